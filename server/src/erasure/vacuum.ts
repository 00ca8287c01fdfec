import { setTimeout as wait } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';

/** Attempts at truncating the WAL while a reader (the ingest writer, the checkpoint worker) holds part of it. */
const CHECKPOINT_TRIES = 50;
const CHECKPOINT_RETRY_MS = 100;

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
export async function compact(db: Kysely<Database>, dialect: DialectName, tables: readonly string[]): Promise<void> {
  if (dialect === 'postgres') {
    for (const table of tables) await sql`vacuum (full, analyze) ${sql.table(table)}`.execute(db);
    return;
  }
  await sql`vacuum`.execute(db);
  for (let i = 0; ; i++) {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    if (Number(rows[0]?.busy ?? 0) === 0) return;
    if (i === CHECKPOINT_TRIES) throw new Error('the WAL could not be truncated: readers kept it busy');
    await wait(CHECKPOINT_RETRY_MS);
  }
}
