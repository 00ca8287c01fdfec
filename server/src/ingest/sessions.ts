import type { Database, TelemetryTable } from '../db/schema';
import type { SessionFacts } from '../otlp/session-facts';

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

type FactColumns = Pick<Database['sessions'], 'user_id' | 'user_email' | 'user_name' | 'user_ms' | 'attributes' | 'attributes_ms' | 'replay_mode' | 'sample_rate'>;

/** A session's facts as columns; null where the batch said nothing (the upsert then keeps what is stored). */
function factColumns(f: SessionFacts | undefined): FactColumns {
  return {
    user_id: f?.user?.id ?? null,
    user_email: f?.user?.email ?? null,
    user_name: f?.user?.name ?? null,
    user_ms: f?.user?.timeMs ?? null,
    attributes: f?.attributes ? JSON.stringify(f.attributes.values) : null,
    attributes_ms: f?.attributes?.timeMs ?? null,
    replay_mode: f?.replayMode ?? null,
    sample_rate: f?.sampleRate ?? null,
  };
}

/** The batch's facts by session id, for the writers' upserts. */
export const factsBySession = (facts: readonly SessionFacts[] | undefined): Map<string, SessionFacts> => new Map((facts ?? []).map((f) => [f.sessionId, f]));

/** `excluded.<column>` when the batch's record is at least as recent as the stored one (`<time>`), else the stored value. */
const latest = (column: string, time: string) =>
  `case when excluded.${time} >= coalesce(sessions.${time}, excluded.${time}) then excluded.${column} else sessions.${column} end`;

/**
 * The ON CONFLICT values of the fact columns, the same SQL for SQLite and PostgreSQL. The latest user wins, by the
 * time of the record that named it, so a record sent late (a retry, a persisted batch) does not undo a newer sign-in;
 * a batch that names no user keeps the stored one. Attributes likewise, as a whole. Sampling: the latest batch that
 * carries it.
 */
export const SESSION_FACTS_UPDATE: Record<keyof FactColumns, string> = {
  user_id: latest('user_id', 'user_ms'),
  user_email: latest('user_email', 'user_ms'),
  user_name: latest('user_name', 'user_ms'),
  // Both databases evaluate every SET expression on the row as it was, so this does not affect the comparisons above.
  user_ms: latest('user_ms', 'user_ms'),
  attributes: latest('attributes', 'attributes_ms'),
  attributes_ms: latest('attributes_ms', 'attributes_ms'),
  replay_mode: 'coalesce(excluded.replay_mode, sessions.replay_mode)',
  sample_rate: 'coalesce(excluded.sample_rate, sessions.sample_rate)',
};

/** The sessions row a delta inserts, or adds to the existing row (each writer's upsert sums the counter column). */
export function sessionRow(table: TelemetryTable, projectId: string, receivedMs: number, d: SessionDelta, facts?: SessionFacts): Database['sessions'] {
  return {
    ...sessionCounters(table, d.count),
    ...factColumns(facts),
    project_id: projectId,
    session_id: d.sessionId,
    app_id: d.appId,
    first_ms: d.first,
    last_ms: d.last,
    last_received_ms: receivedMs,
  };
}
