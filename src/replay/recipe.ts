import type { RecipeStep } from '../../wire/replay';
import type { RecordedBody } from './body-read';
import { looksSensitive, REDACTED } from './sensitive';

/** Headers that carry credentials, by exact name, redacted whatever `looksSensitive` decides about their names. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
/** Response headers worth keeping to replay a request; the rest is noise or infrastructure detail (never cookies). */
const KEPT_RESPONSE_HEADERS = new Set([
  'content-type',
  'content-length',
  'location',
  'cache-control',
  'etag',
  'retry-after',
]);

/** A W3C traceparent; anything else an app put under the header name is not one the server can link to a trace. */
const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/** Header name and value pairs: a `Headers` object, or a list read off an XMLHttpRequest. */
export type HeaderPairs = Iterable<readonly [string, string]>;

/** Redacts secrets and personal data from a value (body-redact.ts's `redactValues`, loaded with the bodies). */
export type RedactValues = (text: string) => string;

/**
 * Request headers as a plain object (lower-case names): credentials replaced by `[REDACTED]`, other values redacted
 * by `redact`.
 */
export function redactRequestHeaders(headers: HeaderPairs, redact: RedactValues): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [rawName, value] of headers) {
    const name = rawName.toLowerCase();
    result[name] = CREDENTIAL_HEADERS.has(name) || looksSensitive(name) ? REDACTED : redact(value);
  }
  return result;
}

/** The response headers a replay needs. */
export function selectResponseHeaders(headers: HeaderPairs): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [rawName, value] of headers) {
    const name = rawName.toLowerCase();
    if (KEPT_RESPONSE_HEADERS.has(name)) result[name] = value;
  }
  return result;
}

/** What the fetch wrapper or the XHR observer knows about one exchange when it settles, bodies aside. */
export interface Exchange {
  readonly startMs: number;
  readonly method: string;
  /** Already sanitized (tracing/url.ts). */
  readonly url: string;
  /** As sent, credentials included: redacted here. */
  readonly requestHeaders: HeaderPairs;
  /** 0 when there was no response. */
  readonly status: number;
  readonly responseHeaders: HeaderPairs;
  readonly durationMs: number;
  /** Trace of the request's span, '' when it has none. */
  readonly traceId: string;
  readonly traceparent: string | null;
  readonly error: string | undefined;
  /** Cancelled by the app: reported, but not as a failure. */
  readonly aborted: boolean;
}

/** The bodies of an exchange, once read. */
export interface ExchangeBodies {
  readonly request: RecordedBody | undefined;
  readonly response: RecordedBody | undefined;
}

/**
 * The recipe step of an exchange: credentials redacted, bodies as recorded (already redacted and capped). Without
 * `redact` (the body module could not be loaded), request header values cannot be checked and none are kept.
 */
export function toRecipeStep(exchange: Exchange, bodies: ExchangeBodies, redact?: RedactValues): RecipeStep {
  const step: RecipeStep = {
    ts: Math.round(exchange.startMs),
    method: exchange.method,
    url: exchange.url,
    requestHeaders: redact ? redactRequestHeaders(exchange.requestHeaders, redact) : {},
    status: exchange.status,
    responseHeaders: selectResponseHeaders(exchange.responseHeaders),
    durationMs: Math.round(exchange.durationMs * 1000) / 1000,
    traceparent: exchange.traceparent !== null && TRACEPARENT.test(exchange.traceparent) ? exchange.traceparent : null,
    error: exchange.error === undefined ? null : exchange.error,
  };
  if (bodies.request !== undefined) {
    step.requestBody = bodies.request.body;
    step.requestBodyTruncated = bodies.request.truncated;
  }
  if (bodies.response !== undefined) {
    step.responseBody = bodies.response.body;
    step.responseBodyTruncated = bodies.response.truncated;
  }
  return step;
}
