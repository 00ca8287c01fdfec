import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { dayPartitions, limitLockWaits, MAINTENANCE_LOCK, withLockTimeout, type DayPartition } from '../db/partitions';
import type { Database, TelemetryTable } from '../db/schema';
import { chunkStoreOf, DATABASE_CHUNKS } from '../replay/chunk-store';
import { DELETE_OBJECTS_MAX } from '../replay/s3-chunk-store';

/** Each project's cutoff for one signal: rows received before it are expired; `null` keeps the signal forever. */
export type Cutoffs = ReadonlyMap<string, number | null>;

/**
 * PostgreSQL: drops each day partition of `table` that holds no row its project still keeps, and returns how many rows
 * went. A day goes whole only when, for every project, either its cutoff is past every row it has there, by receipt as
 * the batched deletes judge (a client with a slow clock may send a day's rows long after that day), or it has no row
 * there; and the day ended before the latest cutoff, so today's and the days made ahead stay. Any other day, and the
 * default partition, is left to the per-project batched deletes that follow. The check is made again under the
 * table's lock, so no row arrives between it and the drop; a drop that waits too long for its locks is left to the
 * next run (db/partitions.ts, withLockTimeout) while the batched deletes take its expired rows. The count returned is
 * taken before that lock (counting a large day under it would hold up ingest): a row erased meanwhile is counted.
 * Replay chunks whose payloads live in object storage lose their objects after their rows, as in
 * replay/chunk-deletion.ts: an object left by a crash between the two is one no row names, which the sweeper deletes.
 */
export async function dropExpiredPartitions(
  db: Kysely<Database>,
  table: TelemetryTable,
  cutoffs: Cutoffs,
): Promise<number> {
  const latest = Math.max(...[...cutoffs.values()].map((c) => c ?? -Infinity));
  if (!Number.isFinite(latest)) return 0;
  let dropped = 0;
  for (const day of await dayPartitions(db, table)) {
    if (day.toMs > latest) break;
    dropped += await dropIfExpired(db, table, day, cutoffs);
  }
  return dropped;
}

/** Whether some project still keeps a row of the partition: one probe of its (project_id, received_ms) index each. */
async function keepsAny(tx: Transaction<Database>, part: RawBuilder<unknown>, cutoffs: Cutoffs): Promise<boolean> {
  for (const [projectId, cutoff] of cutoffs) {
    const kept = await sql<{ kept: boolean }>`select exists (select 1 from ${part}
      where project_id = ${projectId} and received_ms >= ${cutoff ?? Number.MIN_SAFE_INTEGER}) as kept`.execute(tx);
    if (kept.rows[0]?.kept) return true;
  }
  return false;
}

async function dropIfExpired(
  db: Kysely<Database>,
  table: TelemetryTable,
  day: DayPartition,
  cutoffs: Cutoffs,
): Promise<number> {
  const part = sql.table(day.name);
  const store = chunkStoreOf(db);
  const none = { rows: 0, objects: [] as string[] };
  // The objects are deleted only once the drop committed: a drop that fails leaves its rows naming them.
  const dropped = await withLockTimeout(() =>
    db.transaction().execute(async (tx) => {
      await sql`select ${MAINTENANCE_LOCK}`.execute(tx);
      const found = await sql<{ found: boolean }>`select to_regclass(${day.name}) is not null as found`.execute(tx);
      if (!found.rows[0]?.found || (await keepsAny(tx, part, cutoffs))) return none;
      const counted = await sql<{ n: string }>`select count(*) as n from ${part}`.execute(tx);
      const objects =
        table === 'replay_chunks' && store !== DATABASE_CHUNKS
          ? (
              await sql<{ key: string }>`select object_key as key from ${part}
                where object_key is not null`.execute(tx)
            ).rows.map((r) => r.key)
          : [];
      // The parent's lock before the partition's, the order every query and insert through the parent takes them:
      // locking the partition first deadlocks with a query that holds the parent and waits for the partition. Rows can
      // only reach the day through the parent, so the probes again, under its lock, see every row it will ever hold.
      await limitLockWaits(tx);
      await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(tx);
      if (await keepsAny(tx, part, cutoffs)) return none;
      await sql`drop table ${part}`.execute(tx);
      return { rows: Number(counted.rows[0]?.n ?? 0), objects };
    }),
  );
  const { rows, objects } = dropped ?? none;
  for (let i = 0; i < objects.length; i += DELETE_OBJECTS_MAX)
    await store.release(objects.slice(i, i + DELETE_OBJECTS_MAX));
  return rows;
}
