import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { API_KEY_HEADER } from '../../../wire/paths';
import { ApiError } from './errors';

/** Headers the browser SDK sends (and agents may): each must be allowed or the preflight fails. */
export const INGEST_REQUEST_HEADERS = [
  'content-type',
  'content-encoding',
  API_KEY_HEADER,
  'traceparent',
  'tracestate',
  'x-svc-session-id',
];

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

/**
 * Refuses browser requests from origins outside the allow-list. CORS headers alone only stop requests that need a
 * preflight: `sendBeacon` and `no-cors` fetches would still be stored. Requests without `Origin` (agents, servers)
 * are not browser requests and pass.
 */
export function ingestOriginGuard(allowed: '*' | readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (allowed !== '*' && origin !== undefined && c.req.method !== 'OPTIONS' && !allowed.includes(origin)) {
      throw new ApiError(
        403,
        'origin_not_allowed',
        `origin ${origin} is not allowed to send telemetry (SVC_CORS_ORIGINS)`,
        { field: 'Origin' },
      );
    }
    await next();
  };
}
