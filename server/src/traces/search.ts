import type { Services } from '../http/env';
import { readSortedCursor, sortedPage, type KeysetSort } from '../shared/keyset';
import { iso } from '../shared/time';
import type { TracesQuery } from './schemas';
import { traceLabel } from './label';
import { searchTraces, type TraceSearch } from './store';

/** Without `from`, a search looks this far back (unless it names a trace or a session, which an index finds anyway). */
export const DEFAULT_TRACE_WINDOW_MS = 24 * 3_600_000;

/** The search a query asks for: its window resolved against now, its cursor read under its sort. */
export function traceSearchOf(p: TracesQuery, projectId: string, appId: string | undefined, now: number): TraceSearch {
  // Cursors from before the search could be sorted were by start, newest first.
  const ks: KeysetSort = { sort: p.sort, order: p.order, value: 'integer', defaultSort: 'start' };
  const pinned = p.trace_id !== undefined || p.session_id !== undefined;
  return {
    ...p,
    projectId,
    appId,
    from: p.from ?? (pinned ? undefined : now - DEFAULT_TRACE_WINDOW_MS),
    to: p.to,
    value: 'integer',
    after: readSortedCursor(p.cursor, ks),
  };
}

/** One page of the trace search: each trace with its root span, figures and services. */
export async function searchPage({ db, dialect }: Pick<Services, 'db' | 'dialect'>, search: TraceSearch) {
  const rows = await searchTraces(db, dialect, search);
  const ks = { sort: search.sort, order: search.order, value: 'integer' as const, defaultSort: 'start' };
  return sortedPage(
    rows,
    search.limit,
    ks,
    (r) => ({
      trace_id: r.trace_id,
      root:
        r.root_span_id === null
          ? null
          : {
              name: r.root_name!,
              label: traceLabel(r.root_name!, JSON.parse(r.root_attributes ?? '{}')),
              service: r.root_service,
              span_id: r.root_span_id,
            },
      start: iso(Number(r.start_ms)),
      duration_ms: Number(r.duration_ns) / 1e6,
      span_count: Number(r.span_count),
      error_count: Number(r.error_count),
      services: (JSON.parse(r.services) as string[]).sort(),
      session_id: r.session_id,
    }),
    (r) => ({ t: r.sort_value, k: r.trace_id }),
  );
}
