import type { RecipeStep } from '../../wire/replay';

/** Headers that carry credentials, by exact name. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
/** Any other header whose name looks like it carries a secret. */
const SECRET_LOOKING = /token|secret|passw|api[-_]?key|auth|session|card|csrf|xsrf|otp/i;
/** Response headers worth keeping to replay a request; the rest is noise or infrastructure detail. */
const KEPT_RESPONSE_HEADERS = new Set(['content-type', 'content-length', 'location', 'cache-control', 'etag', 'retry-after']);
/** Fixed-length mask: the length of a secret is not leaked. */
export const REDACTED = '[REDACTED]';

/** Request headers as a plain object with credentials replaced by {@link REDACTED}. */
export function redactRequestHeaders(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, name) => {
    result[name] = CREDENTIAL_HEADERS.has(name) || SECRET_LOOKING.test(name) ? REDACTED : value;
  });
  return result;
}

/** The response headers a replay needs, never cookies. */
export function selectResponseHeaders(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (KEPT_RESPONSE_HEADERS.has(name)) result[name] = value;
  });
  return result;
}

/** What the fetch wrapper knows about one exchange when it settles. */
export interface Exchange {
  readonly startMs: number;
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: Headers;
  readonly response: Response | undefined;
  readonly durationMs: number;
  readonly traceparent: string | null;
  readonly error: string | undefined;
}

/**
 * A recipe step without bodies. Bodies (size-capped and redacted) are the replay issue's part: reading them means
 * cloning streams, which must not cost the page anything when recipes are off.
 */
export function toRecipeStep(exchange: Exchange): RecipeStep {
  return {
    ts: Math.round(exchange.startMs),
    method: exchange.method,
    url: exchange.url,
    requestHeaders: redactRequestHeaders(exchange.requestHeaders),
    status: exchange.response?.status ?? 0,
    responseHeaders: exchange.response === undefined ? {} : selectResponseHeaders(exchange.response.headers),
    durationMs: Math.round(exchange.durationMs * 1000) / 1000,
    traceparent: exchange.traceparent,
    error: exchange.error ?? null,
  };
}
