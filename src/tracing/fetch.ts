import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { SdkCore } from '../sdk/core';
import type { Attributes, LogLevel } from '../sdk/types';
import { toRecipeStep, type Exchange } from '../replay/recipe';
import { shouldPropagate } from './targets';
import { resolveUrl, sanitizeUrl } from './url';

/** Writes the outcome log of a request; called inside the request span's context so the log carries its trace. */
export type OutcomeLog = (level: LogLevel, message: string, attributes: Attributes) => void;

interface RequestTarget {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
}

function describeRequest(input: RequestInfo | URL, init: RequestInit | undefined): RequestTarget | undefined {
  const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
  const url = resolveUrl(request?.url ?? String(input), globalThis.location?.href);
  if (url === undefined) return undefined;
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
  return { method, url, headers: new Headers(init?.headers ?? request?.headers) };
}

/** A failed request, in SPEC terms: no response at all, or a server error. Client errors (4xx) are outcomes. */
const failed = (response: Response | undefined): boolean => response === undefined || response.status >= 500;

function outcomeLevel(response: Response | undefined, aborted: boolean): LogLevel {
  if (aborted) return 'warn';
  if (failed(response)) return 'error';
  return (response as Response).status >= 400 ? 'warn' : 'info';
}

const isAbort = (error: unknown): boolean => error instanceof Error && error.name === 'AbortError';

/**
 * Wraps `base` so that each request produces what SPEC 2.9 lists: a `browser.fetch <METHOD>` span with
 * `http.method`, `http.url`, `http.status_code`, `http.duration_ms` and `replay_id`; an outcome log; a `network`
 * replay event (plus `network_error` and an `error` log when it failed); a recipe step; and the trace and session
 * headers on same-origin and configured origins, unless the app already set them.
 *
 * Written here rather than taken from `@opentelemetry/instrumentation-fetch`: that instrumentation can only patch
 * the global fetch (`instrumentFetch()` must return a wrapper without patching anything), names and attributes
 * spans differently, and has no place for the log, replay and recipe outputs. Spans still come from the
 * OpenTelemetry tracer and headers from the registered propagator, the same ones the XHR instrumentation uses.
 */
export function createTracedFetch(core: SdkCore, tracer: Tracer, base: typeof fetch, log: OutcomeLog): typeof fetch {
  const { propagation: options } = core.config;

  const traced = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    let target: RequestTarget | undefined;
    try {
      target = describeRequest(input, init);
    } catch (error) {
      core.debug.error('could not read a fetch request; sending it untraced', error);
    }
    if (target === undefined || core.isIngestUrl(target.url.href)) return base(input, init);

    const startMs = performance.timeOrigin + performance.now();
    const url = sanitizeUrl(target.url);
    const span = tracer.startSpan(`browser.fetch ${target.method}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'http.method': target.method, 'http.url': url, replay_id: core.replay.replayId },
    });
    const spanContext = trace.setSpan(context.active(), span);
    let sendInit = init;
    if (options.enabled && shouldPropagate(target.url, globalThis.location?.origin, options.origins)) {
      propagation.inject(spanContext, target.headers, {
        set: (headers: Headers, name: string, value: string) => {
          if (!headers.has(name)) headers.set(name, value);
        },
      });
      sendInit = { ...init, headers: target.headers };
    }

    const settle = (response: Response | undefined, error: unknown): void => {
      try {
        finish(core, span, spanContext, log, {
          startMs,
          method: (target as RequestTarget).method,
          url,
          requestHeaders: (target as RequestTarget).headers,
          response,
          durationMs: performance.timeOrigin + performance.now() - startMs,
          traceparent: (target as RequestTarget).headers.get(options.headerName),
          error: error === undefined ? undefined : String(error),
        }, isAbort(error));
      } catch (failure) {
        core.debug.error('could not record a fetch request', failure);
      }
    };
    return context.with(spanContext, () => base(input, sendInit)).then(
      (response) => {
        settle(response, undefined);
        return response;
      },
      (error: unknown) => {
        settle(undefined, error);
        throw error;
      },
    );
  };
  return traced as typeof fetch;
}

function finish(
  core: SdkCore,
  span: Span,
  spanContext: ReturnType<typeof context.active>,
  log: OutcomeLog,
  exchange: Exchange,
  aborted: boolean,
): void {
  const { response, method, url } = exchange;
  const status = response?.status ?? 0;
  const durationMs = Math.round(exchange.durationMs * 1000) / 1000;
  span.setAttributes({ 'http.status_code': status, 'http.duration_ms': durationMs });
  if (response === undefined || status >= 400) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: exchange.error ?? `HTTP ${status}` });
  }
  span.end();

  const outcome = response === undefined ? `failed: ${exchange.error ?? 'network error'}` : `→ ${status}`;
  const attributes: Attributes = { 'http.method': method, 'http.url': url, 'http.status_code': status, 'http.duration_ms': durationMs };
  if (exchange.error !== undefined) attributes['error.message'] = exchange.error;
  context.with(spanContext, () => log(outcomeLevel(response, aborted), `${method} ${url} ${outcome} (${Math.round(durationMs)} ms)`, attributes));

  const traceId = span.spanContext().traceId;
  const event = { method, url, status, durationMs, traceId, ...(exchange.error === undefined ? {} : { error: exchange.error }) };
  core.replay.event('network', event);
  if (failed(response) && !aborted) core.replay.event('network_error', event);
  if (core.config.replay.captureNetworkRecipes) core.replay.recipe(toRecipeStep(exchange));
}
