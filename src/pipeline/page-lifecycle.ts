import type { Teardown } from '../core/core';

/**
 * Calls `callback` when the page may be about to go away: on `visibilitychange` to hidden, on `pagehide` and on
 * `beforeunload`. Never on `unload`, which is unreliable on mobile and disables the back/forward cache.
 *
 * The listeners are on `window` in the bubble phase on purpose. web-vitals finalises CLS and INP in a capture-phase
 * `visibilitychange` listener on `window`; a `visibilitychange` dispatched at `document` reaches window's capture
 * listeners first and window's bubble listeners last, so by the time `callback` runs the final values are queued and
 * leave with this flush. `pagehide` and `beforeunload` target `window` itself, where capture listeners also run first.
 *
 * The callback runs for each of these events rather than once per hide: Chromium fires `pagehide` *before*
 * `visibilitychange` when a document unloads, so skipping the later event would lose exactly the vitals web-vitals
 * reports on `visibilitychange`. The callback (a flush) is cheap when nothing is queued.
 */
export function onPageHidden(listen: Teardown['listen'], callback: () => void): void {
  if (typeof window === 'undefined') return;
  listen(window, 'visibilitychange', () => {
    if (document.visibilityState === 'hidden') callback();
  });
  listen(window, 'pagehide', callback);
  listen(window, 'beforeunload', callback);
}
