/**
 * Which page path the page showed when, on the clock of performance entries (`performance.now()`). Web Vitals are
 * reported after the fact (LCP at the first input, INP and CLS when the page is hidden): by then a single-page app
 * may show another route, so each vital is placed by when it was measured, not when it was reported.
 */
export interface RouteHistory {
  /** The path of the page load (the document's own URL): where FCP, LCP and TTFB belong. */
  readonly loadPath: string;
  /** The path the page showed at `time` (a performance entry's `startTime`). */
  at(time: number): string;
  /** Records a client-side route change to the current `location`. */
  changed(): void;
}

/** Route changes kept: an interaction older than the oldest kept is placed on that one's route. */
const MAX_CHANGES = 100;

/** The path of the document's navigation entry, else (no Navigation Timing) the path now. */
function documentPath(): string {
  const entry =
    typeof performance.getEntriesByType === 'function' ? performance.getEntriesByType('navigation')[0] : undefined;
  try {
    return entry ? new URL(entry.name).pathname : location.pathname;
  } catch {
    return location.pathname;
  }
}

export function createRouteHistory(): RouteHistory {
  const loadPath = documentPath();
  const changes: Array<[time: number, path: string]> = [[0, loadPath]];
  const routes: RouteHistory = {
    loadPath,
    at(time) {
      let path = changes[0]![1];
      for (const [from, to] of changes) if (from <= time) path = to;
      return path;
    },
    changed() {
      const path = location.pathname;
      if (path === changes[changes.length - 1]![1]) return;
      changes.push([performance.now(), path]);
      if (changes.length > MAX_CHANGES) changes.shift();
    },
  };
  // A router that rewrote the URL before the SDK started: the page shows that route from now on.
  routes.changed();
  return routes;
}
