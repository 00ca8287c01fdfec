import type { RouteHistory } from '../core/integration';

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
