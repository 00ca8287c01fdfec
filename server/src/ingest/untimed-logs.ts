import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { StoredRow } from './writer';

/** A record with neither a time nor an observed time: otlp/logs.ts stamps it with its receipt. */
const untimed = (row: StoredRow): boolean =>
  row.time_ns === '0' && row.observed_ns === '0' && typeof row.record_uid === 'string';

/**
 * PostgreSQL: `rows` without the untimed log records whose `log.record.uid` the project already stored. The unique
 * index of a partitioned table must hold the partition key, so `logs_record_uid` is (project_id, record_uid, time_ms):
 * exact for every record that carries its own time, which a retry repeats, but a retry of an untimed record arrives
 * with another receipt, hence another time_ms. Those few records are looked up by uid first, each under an advisory
 * lock on its uid (taken in sorted order, so two requests never wait on each other) that holds off a concurrent retry
 * of it until this transaction ends.
 */
export async function withoutStoredUntimedLogs(
  tx: Transaction<Database>,
  projectId: string,
  rows: StoredRow[],
): Promise<StoredRow[]> {
  const uids = [...new Set(rows.filter(untimed).map((row) => row.record_uid as string))].sort();
  if (uids.length === 0) return rows;
  await sql`select pg_advisory_xact_lock(hashtext(${projectId} || '/' || u))
    from unnest(${uids}::text[]) with ordinality as t(u, n) order by n`.execute(tx);
  const found = await tx
    .selectFrom('logs')
    .select('record_uid')
    .where('project_id', '=', projectId)
    .where('record_uid', 'in', uids)
    .execute();
  const stored = new Set(found.map((r) => r.record_uid));
  return rows.filter((row) => !(untimed(row) && stored.has(row.record_uid as string)));
}
