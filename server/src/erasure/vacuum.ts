import { setTimeout as wait } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';

/** Attempts at truncating the WAL while a reader (the ingest writer, the checkpoint worker) holds part of it. */
const CHECKPOINT_TRIES = 50;
const RETRY_MS = 100;
/** How long the compaction waits for PostgreSQL transactions older than the deletions (a pg_dump under way). */
const OLD_SNAPSHOT_WAIT_MS = 30 * 60_000;

/**
 * Removes the old bytes of deleted and changed rows from the database's files, so no page, index or log still holds
 * them (docs/governance.md, "Deletion on request"):
 * - SQLite: `VACUUM` rewrites the whole database (no free page keeps old content), then a TRUNCATE checkpoint copies the
 *   WAL (which the vacuum went through, and which held the rows as they were written) into the file and empties it.
 * - PostgreSQL: `VACUUM (FULL, ANALYZE)` of each table changed rewrites it and its indexes and TOAST into new files
 *   and unlinks the old ones (a plain VACUUM only marks the space reusable, leaving the old tuples' bytes in place),
 *   and refreshes the statistics, whose most common values could name the person. Each table is locked while it is
 *   rewritten: ingest into it waits.
 */
export async function compact(
  db: Kysely<Database>,
  dialect: DialectName,
  tables: readonly string[],
  signal?: AbortSignal,
): Promise<void> {
  if (dialect === 'postgres') {
    await outliveOlderSnapshots(db, signal);
    for (const table of tables) await sql`vacuum (full, analyze) ${sql.table(table)}`.execute(db);
    return;
  }
  await sql`vacuum`.execute(db);
  for (let i = 0; ; i++) {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    if (Number(rows[0]?.busy ?? 0) === 0) return;
    if (i === CHECKPOINT_TRIES) throw new Error('the WAL could not be truncated: readers kept it busy');
    await wait(RETRY_MS);
  }
}

/**
 * Waits until no snapshot can still see the deleted rows: VACUUM FULL copies rows deleted after the oldest snapshot of
 * the database was taken (still visible to it) into the new files. That is every transaction that was running when
 * the deletions committed, in any database (a snapshot taken now starts at the oldest of them), and every snapshot of
 * this database taken before then (a pg_dump under way). Throws after {@link OLD_SNAPSHOT_WAIT_MS}, so the job fails
 * and can be asked for again; stops waiting when `signal` aborts (the server is closing: the job is taken over).
 */
async function outliveOlderSnapshots(db: Kysely<Database>, signal: AbortSignal | undefined): Promise<void> {
  const { rows } = await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(db);
  const mark = rows[0]!.xid;
  for (let waited = 0; ; waited += RETRY_MS) {
    const { rows: older } = await sql<{ pid: number | null }>`
      select pid from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and backend_xmin is not null
          and age(backend_xmin) >= age(${mark}::xid8::xid)
      union all
      select null where pg_snapshot_xmin(pg_current_snapshot()) <= ${mark}::xid8`.execute(db);
    if (older.length === 0) return;
    signal?.throwIfAborted();
    if (waited >= OLD_SNAPSHOT_WAIT_MS) {
      const who = older[0]!.pid === null ? 'in another database' : `process ${older[0]!.pid}`;
      throw new Error(`a transaction older than the deletions is still open (${who})`);
    }
    await wait(RETRY_MS);
  }
}
