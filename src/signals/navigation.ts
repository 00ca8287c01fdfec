import type { IntegrationCore } from '../core/integration';
import { patchMethod } from '../core/patch';
import { sanitizePageUrl } from '../replay/page-url';
import { runGuarded } from './internal';

/** What changed the URL. */
export type NavigationTrigger = 'pushState' | 'replaceState' | 'popstate' | 'hashchange';

/** Payload of a `navigation` replay event. */
export interface NavigationEventPayload {
  /** `location.href` right after the change. */
  readonly url: string;
  /** `document.title` once the new page had a chance to set it (see {@link startNavigation}). */
  readonly title: string;
  readonly trigger: NavigationTrigger;
}

/** How long to wait for a frame before reading the title anyway (no frames come while the page is hidden). */
const TITLE_WAIT_MS = 250;

/**
 * Records each URL change as a `navigation` replay event `{ url, title, trigger }`, and in `routes` (where Web Vitals
 * find the route they were measured on): `history.pushState` and `replaceState` (patched, restored at shutdown) and the
 * `popstate` and `hashchange` events.
 *
 * - An event is recorded only when the URL differs from the last one recorded: a `replaceState` that only updates
 *   the state object is no navigation, and a fragment change, which fires `popstate` and then `hashchange`, is
 *   recorded once (as `popstate`).
 * - The URL is read at the change, the title later: single-page apps call `pushState` first and set
 *   `document.title` when the new view renders. The title is read after the next animation frame and one more task,
 *   or after 250 ms when no frame comes. If the URL changes again before that, the pending event is recorded at once
 *   with the title of that moment; at shutdown too.
 */
export function startNavigation(core: IntegrationCore): void {
  const { routes } = core;
  if (typeof window === 'undefined' || typeof history === 'undefined' || typeof document === 'undefined') return;
  let lastUrl = location.href;
  let pending: { url: string; trigger: NavigationTrigger } | undefined;
  let frame: number | undefined;
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const cancelWait = (): void => {
    if (frame !== undefined) cancelAnimationFrame(frame);
    frame = undefined;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };

  const later = (run: () => void, ms: number): void => {
    timers.add(setTimeout(run, ms));
  };

  const recordPending = (): void => {
    cancelWait();
    const navigation = pending;
    pending = undefined;
    if (navigation === undefined) return;
    runGuarded(core, 'navigation capture', () => {
      const payload: NavigationEventPayload = {
        url: sanitizePageUrl(navigation.url),
        title: document.title,
        trigger: navigation.trigger,
      };
      core.replay.event('navigation', payload);
    });
  };

  const changed = (trigger: NavigationTrigger): void => {
    runGuarded(core, 'navigation capture', () => {
      const url = location.href;
      if (url === lastUrl) return;
      lastUrl = url;
      routes.changed();
      recordPending();
      pending = { url, trigger };
      if (typeof requestAnimationFrame === 'function') {
        frame = requestAnimationFrame(() => {
          frame = undefined;
          later(recordPending, 0);
        });
      }
      later(recordPending, TITLE_WAIT_MS);
    });
  };

  for (const method of ['pushState', 'replaceState'] as const) {
    patchMethod(
      core.teardown,
      history,
      method,
      (original) =>
        function (this: History, ...args: Parameters<History['pushState']>): void {
          original.apply(this, args);
          changed(method);
        },
    );
  }
  core.teardown.listen(window, 'popstate', () => changed('popstate'));
  core.teardown.listen(window, 'hashchange', () => changed('hashchange'));
  // Registered last, so it runs first at shutdown, while the replay timeline still takes events.
  core.teardown.add(recordPending);
}
