import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { DialectName } from '../db/connect';
import type { Database, TelemetryTable } from '../db/schema';
import { ApiError, badRequest } from '../http/errors';
import type { PendingBatch } from '../otlp/records';
import { resolveServiceNames } from '../tenancy/apps';

/** Session counter column each table feeds. */
const SESSION_COUNTER = {
  spans: 'span_count',
  logs: 'log_count',
  metric_points: 'metric_count',
  replay_chunks: 'replay_chunk_count',
  recipes: 'recipe_count',
} as const satisfies Record<TelemetryTable, keyof Database['sessions']>;

/** Rows per INSERT: keeps every statement under SQLite's and PostgreSQL's bound-parameter limits. */
const INSERT_BATCH = 400;

export interface StoreContext {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
}

export interface StoreResult {
  stored: number;
  /** Replay chunks already stored under the same (session, replay, seq): an SDK retry, acknowledged and ignored. */
  duplicates: number;
}

/**
 * Stores one request's rows in one transaction, so a payload is kept whole or not at all. Every `service.name` must be
 * an app of the key's project or one of its aliases; aliases are stored as the canonical app. Any other name rejects
 * the whole payload with 422 `unknown_service`.
 */
export async function storeBatch<T extends TelemetryTable>(
  ctx: StoreContext,
  projectId: string,
  batch: PendingBatch<T>,
): Promise<StoreResult> {
  if (batch.rows.length === 0) return { stored: 0, duplicates: 0 };
  refuseNul(batch);
  const names = [...new Set(batch.rows.map((r) => r.serviceName))];
  const apps = await resolveServiceNames(ctx.db, projectId, names);
  const unknown = names.filter((n) => !apps.has(n));
  if (unknown.length > 0) {
    throw new ApiError(
      422,
      'unknown_service',
      `service.name ${unknown.map((n) => JSON.stringify(n)).join(', ')} is neither the name nor an alias of an app in this project; nothing was stored`,
      { field: 'service.name', rejected: unknown },
    );
  }
  const receivedMs = ctx.clock.now();
  const rows = batch.rows.map(({ serviceName, ...row }) => ({
    ...row,
    project_id: projectId,
    app_id: apps.get(serviceName)!.id,
    received_ms: receivedMs,
  }));

  return ctx.db.transaction().execute(async (tx) => {
    if (batch.table === 'replay_chunks') {
      // One chunk per request; a retried chunk is a no-op so counts and data stay exact.
      const res = await tx
        .insertInto('replay_chunks')
        .values(rows as never)
        .onConflict((oc) => oc.columns(['project_id', 'session_id', 'replay_id', 'seq']).doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) return { stored: 0, duplicates: rows.length };
    } else {
      for (let i = 0; i < rows.length; i += INSERT_BATCH) {
        await tx
          .insertInto(batch.table)
          .values(rows.slice(i, i + INSERT_BATCH) as never)
          .execute();
      }
    }
    await touchSessions(tx, ctx.dialect, projectId, batch.table, rows, receivedMs);
    return { stored: rows.length, duplicates: 0 };
  });
}

/**
 * U+0000 is valid in JSON and OTLP strings but PostgreSQL text cannot hold it, so it is refused on both databases
 * alike. JSON columns are unaffected: JSON.stringify escapes it.
 */
function refuseNul(batch: PendingBatch): void {
  for (const row of batch.rows) {
    for (const [column, value] of Object.entries(row)) {
      if (typeof value === 'string' && value.includes('\u0000')) {
        const field = column === 'serviceName' ? 'service.name' : column;
        throw badRequest(`${field} of a ${batch.table} record contains U+0000 (NUL), which cannot be stored; nothing was stored`, { field });
      }
    }
  }
}

interface SessionDelta {
  appId: string;
  first: number;
  last: number;
  count: number;
  end: number;
}

async function touchSessions(
  tx: Kysely<Database>,
  dialect: DialectName,
  projectId: string,
  table: TelemetryTable,
  rows: ReadonlyArray<{ session_id: string | null; app_id: string; time_ms: number; end_ms?: number }>,
  receivedMs: number,
): Promise<void> {
  const deltas = new Map<string, SessionDelta>();
  for (const r of rows) {
    if (!r.session_id) continue;
    const end = r.end_ms ?? r.time_ms;
    const d = deltas.get(r.session_id);
    if (!d) deltas.set(r.session_id, { appId: r.app_id, first: r.time_ms, last: end, count: 1, end });
    else {
      d.first = Math.min(d.first, r.time_ms);
      d.last = Math.max(d.last, end);
      d.count += 1;
    }
  }
  if (deltas.size === 0) return;
  const counter = SESSION_COUNTER[table];
  const [least, greatest] = dialect === 'postgres' ? ['least', 'greatest'] : ['min', 'max'];
  const zero = { span_count: 0, log_count: 0, metric_count: 0, replay_chunk_count: 0, recipe_count: 0 };
  for (const [sessionId, d] of deltas) {
    await tx
      .insertInto('sessions')
      .values({
        ...zero,
        [counter]: d.count,
        project_id: projectId,
        session_id: sessionId,
        app_id: d.appId,
        first_ms: d.first,
        last_ms: d.last,
        last_received_ms: receivedMs,
      })
      .onConflict((oc) =>
        oc.columns(['project_id', 'session_id']).doUpdateSet({
          [counter]: sql`sessions.${sql.ref(counter)} + excluded.${sql.ref(counter)}`,
          first_ms: sql`${sql.raw(least)}(sessions.first_ms, excluded.first_ms)`,
          last_ms: sql`${sql.raw(greatest)}(sessions.last_ms, excluded.last_ms)`,
          last_received_ms: sql`excluded.last_received_ms`,
        }),
      )
      .execute();
  }
}
