import { context, propagation, SpanKind, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { SdkCore } from '../core/core';
import type { Attributes, LogLevel } from '../core/types';
import { streamBody, valueBody, type BodySource } from '../replay/body-source';
import type { Exchange } from '../replay/recipe';
import { endRequestSpan, failed, recordExchange, recordsBodies } from './network-record';
import { shouldPropagate } from './targets';
import { resolveUrl, sanitizeUrl } from './url';

/** Writes the outcome log of a request; called inside the request span's context so the log carries its trace. */
export type OutcomeLog = (level: LogLevel, message: string, attributes: Attributes) => void;

interface RequestTarget {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly request: Request | undefined;
}

function describeRequest(input: RequestInfo | URL, init: RequestInit | undefined): RequestTarget | undefined {
  const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
  const page = globalThis.location;
  const url = resolveUrl(request ? request.url : String(input), page?.href);
  if (url === undefined) return undefined;
  const { method, headers }: RequestInit = init || {};
  return {
    method: (method ?? (request ? request.method : 'GET')).toUpperCase(),
    url,
    headers: new Headers(headers ?? request?.headers),
    request,
  };
}

/**
 * The request body for the recipe: `init.body`, read once the request has left, or a copy of a `Request`'s body,
 * cloned now, before fetch consumes the original.
 */
function captureRequestBody(target: RequestTarget, init: RequestInit | undefined): BodySource | undefined {
  const body = init?.body;
  if (body !== undefined && body !== null) return valueBody(body);
  const { request } = target;
  return request?.body && !request.bodyUsed ? streamBody(request) : undefined;
}

function outcomeLevel(exchange: Exchange): LogLevel {
  if (exchange.aborted) return 'warn';
  if (failed(exchange)) return 'error';
  return exchange.status >= 400 ? 'warn' : 'info';
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
 * OpenTelemetry tracer and headers from the registered propagator, the same ones the XHR spans use (xhr-network.ts).
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
    const page = globalThis.location;
    if (options.enabled && shouldPropagate(target.url, page?.origin, options.origins)) {
      propagation.inject(spanContext, target.headers, {
        set: (headers: Headers, name: string, value: string) => {
          if (!headers.has(name)) headers.set(name, value);
        },
      });
      sendInit = { ...init, headers: target.headers };
    }

    const bodies = recordsBodies(core, target.url);
    let requestBody: BodySource | undefined;
    try {
      if (bodies) requestBody = captureRequestBody(target, init);
    } catch (failure) {
      core.debug.error('could not read a fetch request body', failure);
    }

    const settle = (response: Response | undefined, error: unknown): void => {
      try {
        const exchange: Exchange = {
          startMs,
          method: (target as RequestTarget).method,
          url,
          requestHeaders: (target as RequestTarget).headers,
          status: response ? response.status : 0,
          responseHeaders: response ? response.headers : [],
          durationMs: performance.timeOrigin + performance.now() - startMs,
          traceId: span.spanContext().traceId,
          traceparent: (target as RequestTarget).headers.get(options.headerName),
          error: error === undefined ? undefined : String(error),
          aborted: isAbort(error),
        };
        // Cloned now, before the app reads its response; read off the clone without holding the app up.
        const responseBody = bodies && response !== undefined ? streamBody(response) : undefined;
        finish(span, spanContext, log, exchange, core.config.issuesFrom.includes('requests'));
        recordExchange(core, exchange, requestBody, responseBody);
      } catch (failure) {
        core.debug.error('could not record a fetch request', failure);
      }
    };
    return context
      .with(spanContext, () => base(input, sendInit))
      .then(
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

/**
 * Ends the request's span and writes its outcome log inside the span's context, so the log carries its trace. A failed
 * request's log is an issue on the server only when the app asks for it (`issuesFrom: ['requests']`).
 */
function finish(
  span: Span,
  spanContext: ReturnType<typeof context.active>,
  log: OutcomeLog,
  exchange: Exchange,
  issues: boolean,
): void {
  const { status, method, url, error } = exchange;
  const durationMs = endRequestSpan(span, exchange);

  const outcome = error !== undefined ? `failed: ${error}` : `→ ${status}`;
  const attributes: Attributes = {
    'http.method': method,
    'http.url': url,
    'http.status_code': status,
    'http.duration_ms': durationMs,
  };
  if (error !== undefined) attributes['error.message'] = error;
  if (issues && outcomeLevel(exchange) === 'error') attributes['svc.issue'] = true;
  context.with(spanContext, () =>
    log(outcomeLevel(exchange), `${method} ${url} ${outcome} (${Math.round(durationMs)} ms)`, attributes),
  );
}
