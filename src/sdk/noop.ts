import type { BrowserSDK } from '../core/types';

/**
 * What `initBrowserSDK` returns where it cannot run (no `window`, as in SSR and Node tests) or has no identity to
 * send under: the same object shape, doing nothing, so calling code never needs a guard.
 */
export function createNoopSDK(): BrowserSDK {
  const nothing = (): void => undefined;
  return {
    log: nothing,
    captureException: nothing,
    captureError: nothing,
    metric: nothing,
    instrumentFetch: () => ((input, init) => globalThis.fetch(input, init)) as typeof fetch,
    captureReplayEvent: nothing,
    setUser: nothing,
    clearUser: nothing,
    setAttributes: nothing,
    flushReplay: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
    sessionId: '',
  };
}
