import { invalid } from '../shared/domain-errors';
import { findInJson, formatJsonPath } from '../json/walk';

/**
 * Deepest nesting of a replay chunk's events, in JSON arrays and objects counted from the chunk's array of events (1).
 * rrweb full snapshots nest about two levels per DOM level, so this admits pages about 250 elements deep; every read of
 * a chunk serialises its events with JSON.stringify, which overflows the stack a few thousand levels down.
 */
export const MAX_EVENT_DEPTH = 512;

/** Steps of the offending path shown in the error: enough to find the event and the node, short enough to read. */
const SHOWN_STEPS = 4;

/** Throws a 400 naming where `events` (a chunk's `data`, or `field`) nests deeper than {@link MAX_EVENT_DEPTH}. */
export function checkEventDepth(events: readonly unknown[], field = 'data'): void {
  const steps = findInJson(events, (_value, depth) => depth > MAX_EVENT_DEPTH);
  if (steps === undefined) return;
  const path = formatJsonPath(field, steps, SHOWN_STEPS);
  throw invalid(
    `${field} nests deeper than ${MAX_EVENT_DEPTH} levels of arrays and objects, at ${path}`,
    'invalid_request',
    {
      field: path,
      limit: MAX_EVENT_DEPTH,
    },
  );
}
