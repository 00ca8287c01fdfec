import { context, propagation, SpanKind, trace, type Span, type Tracer } from '@opentelemetry/api';
import { valueBody, xhrResponseBody } from '../replay/body-source';
import type { Exchange } from '../replay/recipe';
import type { SdkCore } from '../core/core';
import type { Attributes } from '../core/types';
import { endRequestSpan, recordExchange, recordsBodies } from './network-record';
import { shouldPropagate } from './targets';
import { resolveUrl, sanitizeUrl } from './url';

/**
 * One XMLHttpRequest's trace, step by step, for the hooks of xhr-network.ts: its span at `open()`, its headers and end
 * listeners at `send()`, its span's end and replay records at `loadend`.
 */

/** One traced XMLHttpRequest between `open()` and `loadend`. */
export interface XhrRequest {
  readonly method: string;
  readonly url: URL;
  /** Sanitized, as telemetry carries it. */
  readonly fullUrl: string;
  /** Lower-case names; a header set twice is joined with ', ', as the browser sends it. */
  readonly headers: Map<string, string>;
  readonly span: Span;
}

/** The error each end event other than `load` reports, worded like fetch's rejections. */
const END_ERRORS: Record<string, string> = {
  error: 'TypeError: network error',
  timeout: 'TimeoutError: timeout',
  abort: 'AbortError: aborted',
};
const END_EVENTS = ['load', ...Object.keys(END_ERRORS)];

const now = (): number => performance.timeOrigin + performance.now();

export function responseHeaderPairs(raw: string): Array<[string, string]> {
  return raw.split(/[\r\n]+/).flatMap((line): Array<[string, string]> => {
    const colon = line.indexOf(':');
    return colon > 0 ? [[line.slice(0, colon).trim(), line.slice(colon + 1).trim()]] : [];
  });
}

/** Runs one hook step; a failure is logged, never thrown into the app's request. */
export function guarded(core: SdkCore, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    core.debug.error('could not trace an XMLHttpRequest', error);
  }
}

/** At `open()`: the request's span, unless its URL is unreadable or the SDK's own ingest. */
export function startRequest(core: SdkCore, tracer: Tracer, args: unknown[]): XhrRequest | undefined {
  const page = globalThis.location;
  const url = resolveUrl(String(args[1]), page?.href);
  if (url === undefined || core.isIngestUrl(url.href)) return undefined;
  const method = String(args[0]).toUpperCase();
  const fullUrl = sanitizeUrl(url);
  const span = tracer.startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': method,
      'url.full': fullUrl,
      'server.address': url.hostname,
      'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      'http.method': method,
      'http.url': fullUrl,
      replay_id: core.replay.replayId,
    },
  });
  span.addEvent('open');
  return { method, url, fullUrl, headers: new Map(), span };
}

/** At `send()`: adds the headers and listens for the end of the request; returns what ends it when send() throws. */
export function followRequest(
  core: SdkCore,
  xhr: XMLHttpRequest,
  request: XhrRequest,
  body: unknown,
): (error: unknown) => void {
  const { span } = request;
  const options = core.config.propagation;
  span.addEvent('send');
  const page = globalThis.location;
  if (options.enabled && shouldPropagate(request.url, page?.origin, options.origins)) {
    propagation.inject(trace.setSpan(context.active(), span), xhr, {
      set: (carrier: XMLHttpRequest, name: string, value: string) => carrier.setRequestHeader(name, value),
    });
  }
  const startMs = now();
  let outcome = 'load';
  const onEnd = (event: Event): void => void (outcome = event.type);
  const stop = (): void => {
    for (const type of END_EVENTS) xhr.removeEventListener(type, onEnd);
    xhr.removeEventListener('loadend', onLoadEnd);
  };
  const onLoadEnd = (): void => {
    stop();
    guarded(core, () => settle(core, xhr, request, body, startMs, outcome));
  };
  for (const type of END_EVENTS) xhr.addEventListener(type, onEnd);
  xhr.addEventListener('loadend', onLoadEnd);
  return (error) => {
    stop();
    endRequestSpan(span, exchangeOf(core, xhr, request, startMs, String(error)));
  };
}

function exchangeOf(
  core: SdkCore,
  xhr: XMLHttpRequest,
  request: XhrRequest,
  startMs: number,
  error: string | undefined,
): Exchange {
  const loaded = error === undefined;
  const { headers } = request;
  const traceparent = headers.get(core.config.propagation.headerName.toLowerCase());
  return {
    startMs,
    method: request.method,
    url: request.fullUrl,
    requestHeaders: headers,
    status: loaded ? xhr.status : 0,
    responseHeaders: loaded ? responseHeaderPairs(xhr.getAllResponseHeaders()) : [],
    durationMs: now() - startMs,
    traceId: request.span.spanContext().traceId,
    traceparent: traceparent ?? null,
    error,
    aborted: error === END_ERRORS.abort,
  };
}

/** At `loadend`: ends the span with the outcome and, with `replay.enabled`, records the exchange on the timeline. */
function settle(
  core: SdkCore,
  xhr: XMLHttpRequest,
  request: XhrRequest,
  body: unknown,
  startMs: number,
  outcome: string,
): void {
  const exchange = exchangeOf(core, xhr, request, startMs, END_ERRORS[outcome]);
  const { status } = exchange;
  const attributes: Attributes = {};
  if (status > 0) attributes['http.response.status_code'] = status;
  if (outcome !== 'load' || status >= 400) attributes['error.type'] = outcome === 'load' ? String(status) : outcome;
  request.span.addEvent(outcome === 'load' ? 'loaded' : outcome);
  endRequestSpan(request.span, exchange, attributes);
  if (!core.config.replay.enabled) return;
  const bodies = recordsBodies(core, request.url);
  // Read off the request now (the app may reuse it with open() from its own loadend listener), redacted later.
  const response =
    bodies && outcome === 'load'
      ? {
          response: xhr.response as unknown,
          responseType: xhr.responseType,
          contentType: xhr.getResponseHeader('content-type'),
        }
      : undefined;
  recordExchange(core, exchange, bodies ? valueBody(body) : undefined, response && xhrResponseBody(response));
}
