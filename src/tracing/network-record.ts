import { SpanStatusCode, type Span } from '@opentelemetry/api';
import type { BodyCapture } from '../replay/body-read';
import { toRecipeStep, type Exchange } from '../replay/recipe';
import type { SdkCore } from '../sdk/core';
import type { Attributes } from '../sdk/types';

/**
 * A failed request, in SPEC terms: no response at all (an error instead), or a server error. Client errors (4xx) are
 * outcomes, and so is an opaque (`no-cors`) response, whose status reads 0.
 */
export const failed = (exchange: Pick<Exchange, 'status' | 'error'>): boolean => exchange.error !== undefined || exchange.status >= 500;

/** True when the replay keeps recipe steps, so bodies are worth reading at all. */
export const recordsRecipes = (core: SdkCore): boolean => core.config.replay.enabled && core.config.replay.captureNetworkRecipes;

/**
 * What every fetch and XHR leaves on the replay timeline: a `network` event (`{method, url, status, durationMs,
 * traceId, error?}`), a `network_error` event with the same payload when it failed (not when the app aborted it),
 * and, with `replay.captureNetworkRecipes`, a recipe step once its bodies are read. A body that could not be read
 * leaves the step without it.
 */
export function recordExchange(core: SdkCore, exchange: Exchange, requestBody: BodyCapture, responseBody: BodyCapture): void {
  const { method, url, status, traceId, error } = exchange;
  const durationMs = Math.round(exchange.durationMs * 1000) / 1000;
  const event = { method, url, status, durationMs, traceId, ...(error === undefined ? {} : { error }) };
  core.replay.event('network', event);
  if (failed(exchange) && !exchange.aborted) core.replay.event('network_error', event);
  if (!recordsRecipes(core)) return;
  const settled = (body: BodyCapture) => Promise.resolve(body).catch(() => undefined);
  void Promise.all([settled(requestBody), settled(responseBody)])
    .then(([request, response]) => core.replay.recipe(toRecipeStep(exchange, { request, response })))
    .catch((failure: unknown) => core.debug.error('could not record a recipe step', failure));
}

/**
 * Ends a request's span (fetch or XHR) with SPEC 2.9's outcome attributes, `http.status_code` and
 * `http.duration_ms`, beside `attributes`; no response or a 4xx/5xx marks it failed. Returns the rounded duration.
 */
export function endRequestSpan(span: Span, exchange: Exchange, attributes?: Attributes): number {
  const { status, error } = exchange;
  const durationMs = Math.round(exchange.durationMs * 1000) / 1000;
  span.setAttributes({ ...attributes, 'http.status_code': status, 'http.duration_ms': durationMs });
  if (error !== undefined || status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? `HTTP ${status}` });
  span.end();
  return durationMs;
}
