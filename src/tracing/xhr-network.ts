import type { Tracer } from '@opentelemetry/api';
import type { SdkCore } from '../core/core';
import { patchMethod } from '../core/patch';
import { followRequest, guarded, startRequest, type XhrRequest } from './xhr-request';

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
  const xhr = globalThis.XMLHttpRequest;
  const prototype = xhr?.prototype;
  if (prototype === undefined) return;
  const options = core.config.propagation;
  const requests = new WeakMap<XMLHttpRequest, XhrRequest>();
  const watched = options.enabled
    ? [options.headerName, options.sessionHeaderName].map((name) => name.toLowerCase())
    : [];

  patchMethod(
    core.teardown,
    prototype,
    'open',
    (original) =>
      function (this: XMLHttpRequest, ...args: unknown[]) {
        requests.delete(this);
        const result: unknown = Reflect.apply(original, this, args);
        guarded(core, () => {
          const request = startRequest(core, tracer, args);
          if (request !== undefined) requests.set(this, request);
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
        const request = requests.get(this);
        const headers = request?.headers;
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
        if (request !== undefined) guarded(core, () => (abandon = followRequest(core, this, request, args[0])));
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
}
