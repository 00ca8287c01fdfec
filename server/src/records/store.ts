import type { Kysely } from 'kysely';
import type { Database, TelemetryTable } from '../db/schema';
import { traceKey } from '../db/trace-key';
import { withPayloads, type ChunkPayloadRef } from '../replay/chunk-store';
import type { Cursor } from '../shared/keyset';
import { sessionsOfUser } from '../sessions/store';
import type { Row } from './json';

/** The equality filters a listing may offer; `trace_id` arrives lower-cased and checked by its schema. */
export type RecordFilter = 'session_id' | 'trace_id' | 'name';

/** One page of a record listing: newest first (oldest first when asked), confined to the project. */
export interface RecordQuery {
  projectId: string;
  appId?: string;
  /** The records of every session whose (latest) user is this one. */
  userId?: string;
  from?: number;
  to?: number;
  equal: Partial<Record<RecordFilter, string>>;
  after?: Cursor;
  limit: number;
  /** Oldest first, continuing after `after` in that order (the export reads so). */
  oldestFirst?: boolean;
}

/**
 * Kysely cannot type a query over a table chosen at run time, so listings query this view of the columns every
 * telemetry table shares; the caller pairs each table with its row mapper.
 */
interface SharedColumns {
  id: number;
  project_id: string;
  app_id: string;
  time_ms: number;
  session_id: string | null;
  trace_id: string | null;
  trace_key: number | null;
  name: string;
}
type SharedDb = Kysely<{ t: SharedColumns; apps: Database['apps'] }>;

/** `limit + 1` records of `table` after the cursor, newest first unless `oldestFirst`, each with its app's name. */
export async function listRecords<T extends TelemetryTable>(
  db: Kysely<Database>,
  table: T,
  r: RecordQuery,
): Promise<Array<Row<T> & { time_ms: number; id: number }>> {
  let q = (db as unknown as SharedDb)
    .selectFrom(`${table} as r` as 't as r')
    .innerJoin('apps', 'apps.id', 'r.app_id')
    .selectAll('r')
    .select('apps.name as app')
    .where('r.project_id', '=', r.projectId);
  if (r.appId) q = q.where('r.app_id', '=', r.appId);
  if (r.userId !== undefined) q = q.where('r.session_id', 'in', sessionsOfUser(db, r.projectId, r.userId));
  if (r.from !== undefined) q = q.where('r.time_ms', '>=', r.from);
  if (r.to !== undefined) q = q.where('r.time_ms', '<', r.to);
  for (const [f, v] of Object.entries(r.equal) as Array<[RecordFilter, string | undefined]>) {
    if (v === undefined || v === '') continue;
    q =
      f === 'trace_id'
        ? q.where('r.trace_key', '=', traceKey(v)).where('r.trace_id', '=', v)
        : q.where(`r.${f}`, '=', v);
  }
  const after = r.after;
  const [beyond, order] = r.oldestFirst ? (['>', 'asc'] as const) : (['<', 'desc'] as const);
  if (after) {
    // The bound on time_ms alone is implied by the pair after it, but it is what lets the index on (project_id,
    // time_ms, id) start at the cursor: without it a deep page scans every row before it, and an export is all deep pages.
    q = q
      .where('r.time_ms', `${beyond}=`, after.t)
      .where((eb) =>
        eb.or([
          eb('r.time_ms', beyond, after.t),
          eb.and([eb('r.time_ms', '=', after.t), eb('r.id', beyond, Number(after.k))]),
        ]),
      );
  }
  const rows = await q
    .orderBy('r.time_ms', order)
    .orderBy('r.id', order)
    .limit(r.limit + 1)
    .execute();
  // Replay chunks whose payloads live in object storage are read from it (replay/chunk-store.ts).
  const loaded = table === 'replay_chunks' ? await withPayloads(db, rows as unknown as ChunkPayloadRef[]) : rows;
  return loaded as unknown as Array<Row<T> & { time_ms: number; id: number }>;
}
