import type { SdkCore } from '../sdk/core';
import { patchMethod } from '../sdk/patch';

/**
 * OpenTelemetry's XHR instrumentation adds the propagation headers in `send()` with `setRequestHeader`, which
 * appends to a header the app already set (`traceparent: a, b` is invalid and breaks the trace on the server).
 * This remembers which of our header names the app set on each request and drops our later duplicate.
 */
export function preventDuplicateXhrHeaders(core: SdkCore, headerNames: readonly string[]): void {
  const prototype = globalThis.XMLHttpRequest?.prototype;
  if (prototype === undefined) return;
  const watched = new Set(headerNames.map((name) => name.toLowerCase()));
  const setByRequest = new WeakMap<XMLHttpRequest, Set<string>>();
  patchMethod(core.teardown, prototype, 'setRequestHeader', (original) =>
    function (this: XMLHttpRequest, name: string, value: string) {
      const lower = String(name).toLowerCase();
      if (watched.has(lower)) {
        const seen = setByRequest.get(this) ?? new Set<string>();
        if (seen.has(lower)) return;
        seen.add(lower);
        setByRequest.set(this, seen);
      }
      original.call(this, name, value);
    },
  );
}
