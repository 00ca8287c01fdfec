import { cors } from 'hono/cors';
import { API_KEY_HEADER } from '../../../wire/paths';

/** Headers the browser SDK sends (and agents may): each must be allowed or the preflight fails. */
export const INGEST_REQUEST_HEADERS = ['content-type', 'content-encoding', API_KEY_HEADER, 'traceparent', 'tracestate', 'x-svc-session-id'];

/** How long browsers may cache a preflight: one per URL per two hours instead of one per request. */
export const PREFLIGHT_MAX_AGE = 7200;

/**
 * CORS for ingest. `allowed` is `*` (any origin: ingest keys are public and write-only) or a list of exact origins.
 * The exact origin is echoed (never `*`) so credentialed requests, such as keepalive fetches that carry cookies, work.
 */
export function ingestCors(allowed: '*' | readonly string[]) {
  return cors({
    origin: (origin) => (origin && (allowed === '*' || allowed.includes(origin)) ? origin : null),
    allowMethods: ['POST', 'OPTIONS'],
    allowHeaders: INGEST_REQUEST_HEADERS,
    exposeHeaders: ['retry-after'],
    credentials: true,
    maxAge: PREFLIGHT_MAX_AGE,
  });
}
