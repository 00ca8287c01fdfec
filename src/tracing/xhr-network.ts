import { later, recordBodyValue, recordXhrResponse } from '../replay/body-read';
import type { Exchange } from '../replay/recipe';
import type { SdkCore } from '../sdk/core';
import { patchMethod } from '../sdk/patch';
import { recordExchange, recordsRecipes } from './network-record';
import { resolveUrl, sanitizeUrl } from './url';

/** One XMLHttpRequest between `open()` and `loadend`. */
interface XhrRequest {
  readonly method: string;
  /** Undefined for the SDK's own ingest URLs and unparsable ones: not recorded. */
  readonly url: URL | undefined;
  /** Lower-case names; a header set twice is joined with ', ', as the browser sends it. */
  readonly headers: Map<string, string>;
}

/** What the OpenTelemetry XHR instrumentation's hook hands over. */
export interface XhrObserver {
  /** The trace of the request's span, given when the span ends: the trace the replay events carry. */
  setTraceId(xhr: XMLHttpRequest, traceId: string): void;
}

/** The error each end event other than `load` reports, worded like fetch's rejections. */
const END_ERRORS: Record<string, string> = { error: 'TypeError: network error', timeout: 'TimeoutError: timeout', abort: 'AbortError: aborted' };
const END_EVENTS = ['load', ...Object.keys(END_ERRORS)];

const now = (): number => performance.timeOrigin + performance.now();

function responseHeaderPairs(raw: string): Array<[string, string]> {
  return raw.split(/[\r\n]+/).flatMap((line): Array<[string, string]> => {
    const colon = line.indexOf(':');
    return colon > 0 ? [[line.slice(0, colon).trim(), line.slice(colon + 1).trim()]] : [];
  });
}

/**
 * Observes `open`, `setRequestHeader` and `send` of every XMLHttpRequest, for two jobs the OpenTelemetry XHR
 * instrumentation (which makes the spans) cannot do:
 * - `propagationHeaders`: the instrumentation adds the trace and session headers in `send()` with
 *   `setRequestHeader`, which appends to a header the app already set (`traceparent: a, b` is invalid and breaks the
 *   trace on the server); a second value for one of these names on one request is dropped;
 * - with `replay.enabled`, what a fetch gets on the replay timeline (network-record.ts): `network` and
 *   `network_error` events and a recipe step, with the headers and body the instrumentation never sees. Patched
 *   before the instrumentation wraps `open` and `send`, so the headers seen are those that reach the browser,
 *   traceparent included; the instrumentation's end hook passes on the span's trace id.
 * Every hook is guarded and calls through unchanged; shutdown removes the patches.
 */
export function observeXhr(core: SdkCore, propagationHeaders: readonly string[]): XhrObserver {
  const requests = new WeakMap<XMLHttpRequest, XhrRequest>();
  const traceIds = new WeakMap<XMLHttpRequest, string>();
  const observer: XhrObserver = { setTraceId: (xhr, traceId) => void traceIds.set(xhr, traceId) };
  const prototype = globalThis.XMLHttpRequest?.prototype;
  const recording = core.config.replay.enabled;
  if (prototype === undefined || (!recording && propagationHeaders.length === 0)) return observer;
  const watched = new Set(propagationHeaders.map((name) => name.toLowerCase()));

  const guard = (fn: () => void): void => {
    try {
      fn();
    } catch (error) {
      core.debug.error('could not observe an XMLHttpRequest', error);
    }
  };

  patchMethod(core.teardown, prototype, 'open', (original) =>
    function (this: XMLHttpRequest, ...args: unknown[]) {
      requests.delete(this);
      const result: unknown = Reflect.apply(original, this, args);
      guard(() => {
        const url = resolveUrl(String(args[1]), globalThis.location?.href);
        const recorded = recording && url !== undefined && !core.isIngestUrl(url.href);
        requests.set(this, { method: String(args[0]).toUpperCase(), url: recorded ? url : undefined, headers: new Map() });
      });
      return result;
    } as XMLHttpRequest['open'],
  );

  patchMethod(core.teardown, prototype, 'setRequestHeader', (original) =>
    function (this: XMLHttpRequest, name: string, value: string) {
      const headers = requests.get(this)?.headers;
      const lower = String(name).toLowerCase();
      const previous = headers?.get(lower);
      if (previous !== undefined && watched.has(lower)) return;
      original.call(this, name, value);
      headers?.set(lower, previous === undefined ? String(value) : `${previous}, ${String(value)}`);
    },
  );

  if (!recording) return observer;
  patchMethod(core.teardown, prototype, 'send', (original) =>
    function (this: XMLHttpRequest, ...args: unknown[]) {
      const request = requests.get(this);
      let stop: (() => void) | undefined;
      if (request?.url !== undefined) guard(() => (stop = follow(this, request, args[0])));
      try {
        return Reflect.apply(original, this, args) as void;
      } catch (error) {
        // Not sent (a wrong state), or a synchronous request that failed: it ends here, without events.
        stop?.();
        throw error;
      }
    },
  );

  /** Listens for the end of one sent request; returns the function that stops listening. */
  function follow(xhr: XMLHttpRequest, request: XhrRequest, body: unknown): () => void {
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
    return stop;
  }

  function settle(xhr: XMLHttpRequest, request: XhrRequest, body: unknown, startMs: number, outcome: string): void {
    const loaded = outcome === 'load';
    const { headers } = request;
    const exchange: Exchange = {
      startMs,
      method: request.method,
      url: sanitizeUrl(request.url as URL),
      requestHeaders: headers,
      status: loaded ? xhr.status : 0,
      responseHeaders: loaded ? responseHeaderPairs(xhr.getAllResponseHeaders()) : [],
      durationMs: now() - startMs,
      traceId: traceIds.get(xhr) ?? '',
      traceparent: headers.get(core.config.propagation.headerName.toLowerCase()) ?? null,
      error: END_ERRORS[outcome],
      aborted: outcome === 'abort',
    };
    const recipes = recordsRecipes(core);
    // Read off the request now (the app may reuse it with open() from its own loadend listener), redacted later.
    const response =
      recipes && loaded
        ? { response: xhr.response as unknown, responseType: xhr.responseType, contentType: xhr.getResponseHeader('content-type') }
        : undefined;
    recordExchange(
      core,
      exchange,
      recipes ? later(() => recordBodyValue(body)) : undefined,
      response && later(() => recordXhrResponse(response)),
    );
  }

  return observer;
}
