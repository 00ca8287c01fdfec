import { context, propagation, SpanKind, trace, type Span, type Tracer } from '@opentelemetry/api';
import { valueBody, xhrResponseBody } from '../replay/body-source';
import type { Exchange } from '../replay/recipe';
import type { SdkCore } from '../core/core';
import type { Attributes } from '../core/types';
import { patchMethod } from '../core/patch';
import { endRequestSpan, recordExchange, recordsBodies } from './network-record';
import { shouldPropagate } from './targets';
import { resolveUrl, sanitizeUrl } from './url';

/** One traced XMLHttpRequest between `open()` and `loadend`. */
interface XhrRequest {
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

function responseHeaderPairs(raw: string): Array<[string, string]> {
  return raw.split(/[\r\n]+/).flatMap((line): Array<[string, string]> => {
    const colon = line.indexOf(':');
    return colon > 0 ? [[line.slice(0, colon).trim(), line.slice(colon + 1).trim()]] : [];
  });
}

/**
 * Traces every XMLHttpRequest with one patch of `open`, `setRequestHeader` and `send`:
 * - a span from `open()` to `loadend`, named after the method, in the context active at `open()` (inside a click's
 *   interaction span, interactions.ts), with the attributes of OpenTelemetry's XHR instrumentation
 *   (`http.request.method`, `url.full`, `server.address`, `server.port`, `http.response.status_code`, `error.type`,
 *   events `open`, `send` and the outcome) beside SPEC 2.9's (`http.method`, `http.url`, `http.status_code`,
 *   `http.duration_ms`, `replay_id`), the names fetch spans carry, so one query finds both;
 * - the trace and session headers, through the registered propagator, on the page's origin and
 *   `propagation.origins` only; a header the app already set is kept, never appended to (`traceparent: a, b` is
 *   invalid and breaks the trace on the server);
 * - with `replay.enabled`, what a fetch gets on the replay timeline (network-record.ts): `network` and
 *   `network_error` events and a recipe step, with the headers as sent.
 * Written here rather than taken from `@opentelemetry/instrumentation-xml-http-request` for bundle size
 * (docs/sdk-build.md), and so one wrapper serves spans and recipes. The SDK's own ingest URLs are never traced.
 * Every hook is guarded and calls through unchanged; shutdown removes the patches.
 */
export function traceXhr(core: SdkCore, tracer: Tracer): void {
  const prototype = globalThis.XMLHttpRequest?.prototype;
  if (prototype === undefined) return;
  const { propagation: options, replay } = core.config;
  const requests = new WeakMap<XMLHttpRequest, XhrRequest>();
  const watched = options.enabled
    ? [options.headerName, options.sessionHeaderName].map((name) => name.toLowerCase())
    : [];

  const guard = (fn: () => void): void => {
    try {
      fn();
    } catch (error) {
      core.debug.error('could not trace an XMLHttpRequest', error);
    }
  };

  patchMethod(
    core.teardown,
    prototype,
    'open',
    (original) =>
      function (this: XMLHttpRequest, ...args: unknown[]) {
        requests.delete(this);
        const result: unknown = Reflect.apply(original, this, args);
        guard(() => {
          const url = resolveUrl(String(args[1]), globalThis.location?.href);
          if (url === undefined || core.isIngestUrl(url.href)) return;
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
          requests.set(this, { method, url, fullUrl, headers: new Map(), span });
        });
        return result;
      } as XMLHttpRequest['open'],
  );

  patchMethod(
    core.teardown,
    prototype,
    'setRequestHeader',
    (original) =>
      function (this: XMLHttpRequest, name: string, value: string) {
        const headers = requests.get(this)?.headers;
        const lower = String(name).toLowerCase();
        const previous = headers?.get(lower);
        if (previous !== undefined && watched.includes(lower)) return;
        original.call(this, name, value);
        headers?.set(lower, previous === undefined ? String(value) : `${previous}, ${String(value)}`);
      },
  );

  patchMethod(
    core.teardown,
    prototype,
    'send',
    (original) =>
      function (this: XMLHttpRequest, ...args: unknown[]) {
        const request = requests.get(this);
        let abandon: ((error: unknown) => void) | undefined;
        if (request !== undefined) guard(() => (abandon = follow(this, request, args[0])));
        // Headers are set by now; a second send() without open() throws, and must not touch the request in flight.
        requests.delete(this);
        try {
          return Reflect.apply(original, this, args) as void;
        } catch (error) {
          // Not sent (a wrong state), or a synchronous request that failed: it ends here, without replay events.
          abandon?.(error);
          throw error;
        }
      },
  );

  /** Adds the headers and listens for the end of one sent request; returns what ends it when send() throws. */
  function follow(xhr: XMLHttpRequest, request: XhrRequest, body: unknown): (error: unknown) => void {
    const { span } = request;
    span.addEvent('send');
    if (options.enabled && shouldPropagate(request.url, globalThis.location?.origin, options.origins)) {
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
      guard(() => settle(xhr, request, body, startMs, outcome));
    };
    for (const type of END_EVENTS) xhr.addEventListener(type, onEnd);
    xhr.addEventListener('loadend', onLoadEnd);
    return (error) => {
      stop();
      endRequestSpan(span, exchangeOf(xhr, request, startMs, String(error)));
    };
  }

  function exchangeOf(xhr: XMLHttpRequest, request: XhrRequest, startMs: number, error: string | undefined): Exchange {
    const loaded = error === undefined;
    const { headers } = request;
    return {
      startMs,
      method: request.method,
      url: request.fullUrl,
      requestHeaders: headers,
      status: loaded ? xhr.status : 0,
      responseHeaders: loaded ? responseHeaderPairs(xhr.getAllResponseHeaders()) : [],
      durationMs: now() - startMs,
      traceId: request.span.spanContext().traceId,
      traceparent: headers.get(options.headerName.toLowerCase()) ?? null,
      error,
      aborted: error === END_ERRORS.abort,
    };
  }

  function settle(xhr: XMLHttpRequest, request: XhrRequest, body: unknown, startMs: number, outcome: string): void {
    const exchange = exchangeOf(xhr, request, startMs, END_ERRORS[outcome]);
    const { status } = exchange;
    const attributes: Attributes = {};
    if (status > 0) attributes['http.response.status_code'] = status;
    if (outcome !== 'load' || status >= 400) attributes['error.type'] = outcome === 'load' ? String(status) : outcome;
    request.span.addEvent(outcome === 'load' ? 'loaded' : outcome);
    endRequestSpan(request.span, exchange, attributes);
    if (!replay.enabled) return;
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
}
