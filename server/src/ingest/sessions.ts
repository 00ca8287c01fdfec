import type { Database, TelemetryTable } from '../db/schema';

/** Session counter column each table feeds. */
export const SESSION_COUNTER = {
  spans: 'span_count',
  logs: 'log_count',
  metric_points: 'metric_count',
  replay_chunks: 'replay_chunk_count',
  recipes: 'recipe_count',
} as const satisfies Record<TelemetryTable, keyof Database['sessions']>;

/** What one write adds to one session's summary. */
export interface SessionDelta {
  sessionId: string;
  appId: string;
  first: number;
  last: number;
  count: number;
}

/** What a session summary needs of a stored row. */
export interface SessionSource {
  session_id: string | null;
  app_id: string;
  time_ms: number;
  end_ms?: number;
}

/**
 * Folds rows into one delta per session, so each session summary is upserted once per write. The deltas come sorted by
 * session id: every write then locks session rows in the same order, so two concurrent writes touching the same
 * sessions (a collector's batches behind a load balancer) wait for each other instead of deadlocking.
 */
export function sessionDeltas(rows: Iterable<SessionSource>): SessionDelta[] {
  const deltas = new Map<string, SessionDelta>();
  for (const r of rows) {
    if (!r.session_id) continue;
    const end = r.end_ms ?? r.time_ms;
    const d = deltas.get(r.session_id);
    if (!d) deltas.set(r.session_id, { sessionId: r.session_id, appId: r.app_id, first: r.time_ms, last: end, count: 1 });
    else {
      d.first = Math.min(d.first, r.time_ms);
      d.last = Math.max(d.last, end);
      d.count += 1;
    }
  }
  return [...deltas.values()].sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
}

/** A new summary row's counters: all zero but the one the delta feeds. */
function sessionCounters(table: TelemetryTable, count: number): Pick<Database['sessions'], (typeof SESSION_COUNTER)[TelemetryTable]> {
  return { span_count: 0, log_count: 0, metric_count: 0, replay_chunk_count: 0, recipe_count: 0, [SESSION_COUNTER[table]]: count };
}

/** The sessions row a delta inserts, or adds to the existing row (each writer's upsert sums the counter column). */
export function sessionRow(table: TelemetryTable, projectId: string, receivedMs: number, d: SessionDelta): Database['sessions'] {
  return {
    ...sessionCounters(table, d.count),
    project_id: projectId,
    session_id: d.sessionId,
    app_id: d.appId,
    first_ms: d.first,
    last_ms: d.last,
    last_received_ms: receivedMs,
  };
}
