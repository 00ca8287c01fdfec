import { SpanStatusCode, type Span } from '@opentelemetry/api';
import type { Pattern } from '../config/types';
import type { BodySource } from '../replay/body-source';
import { loadBodies } from '../replay/load-bodies';
import { SHARED_HELPERS } from '../replay/shared-helpers';
import { toRecipeStep, type Exchange } from '../replay/recipe';
import type { SdkCore } from '../core/core';
import type { Attributes } from '../core/types';

/**
 * A failed request, in SPEC terms: no response at all (an error instead), or a server error. Client errors (4xx) are
 * outcomes, and so is an opaque (`no-cors`) response, whose status reads 0.
 */
export const failed = (exchange: Pick<Exchange, 'status' | 'error'>): boolean =>
  exchange.error !== undefined || exchange.status >= 500;

/** True when the replay keeps recipe steps, so bodies are worth reading at all. */
export const recordsRecipes = (core: SdkCore): boolean =>
  core.config.replay.enabled && core.config.replay.captureNetworkRecipes;

/** A string is an origin or a URL prefix, ending where a path segment, query or fragment does; a RegExp sees the URL. */
function listed(href: string, pattern: Pattern): boolean {
  if (typeof pattern !== 'string') {
    // A global or sticky RegExp keeps lastIndex between calls, which would make every other test fail.
    pattern.lastIndex = 0;
    return pattern.test(href);
  }
  return href.startsWith(pattern) && (/[/?#]$/.test(pattern) || /^(?:[/?#]|$)/.test(href.slice(pattern.length)));
}

/**
 * True when the bodies of a request to `url` go into its recipe step: `replay.networkBodies` is `redacted` and the
 * request is same-origin or listed in `replay.networkBodyUrls`. A third party's bodies are its users' data, not the
 * app's: they are not even read unless the app asks for them.
 */
export function recordsBodies(core: SdkCore, url: URL): boolean {
  const { networkBodies, networkBodyUrls } = core.config.replay;
  if (!recordsRecipes(core) || networkBodies !== 'redacted') return false;
  const page = globalThis.location;
  return url.origin === page?.origin || networkBodyUrls.some((pattern) => listed(url.href, pattern));
}

/**
 * What every fetch and XHR leaves on the replay timeline: a `network` event (`{method, url, status, durationMs,
 * traceId, error?}`), a `network_error` event with the same payload when it failed (not when the app aborted it),
 * and, with `replay.captureNetworkRecipes`, a recipe step once the body module (load-bodies.ts) is loaded and the
 * bodies read (sources given only when {@link recordsBodies}). A body that could not be read leaves the step without
 * it; if the module cannot be loaded, the step is recorded without bodies or request headers.
 */
export function recordExchange(
  core: SdkCore,
  exchange: Exchange,
  requestBody?: BodySource,
  responseBody?: BodySource,
): void {
  const { method, url, status, traceId, error } = exchange;
  const durationMs = Math.round(exchange.durationMs * 1000) / 1000;
  const event = { method, url, status, durationMs, traceId, ...(error === undefined ? {} : { error }) };
  core.replay.event('network', event);
  if (failed(exchange) && !exchange.aborted) core.replay.event('network_error', event);
  if (!recordsRecipes(core)) return;
  void loadBodies()
    .then(
      (bodies) => {
        const read = (source?: BodySource) => source && bodies.later(() => source(bodies)).catch(() => undefined);
        return Promise.all([read(requestBody), read(responseBody)]).then(([request, response]) =>
          toRecipeStep(exchange, { request, response }, (text) => bodies.redactValues(text, SHARED_HELPERS)),
        );
      },
      (failure: unknown) => {
        core.debug.error(
          'could not load the body module; recording a recipe step without bodies or request headers',
          failure,
        );
        return toRecipeStep(exchange, { request: undefined, response: undefined });
      },
    )
    .then((step) => core.replay.recipe(step))
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
  if (error !== undefined || status >= 400)
    span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? `HTTP ${status}` });
  span.end();
  return durationMs;
}
