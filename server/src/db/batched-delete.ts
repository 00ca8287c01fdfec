import { sql, type Kysely, type RawBuilder } from 'kysely';
import { leafTables, UNDEFINED_TABLE } from './partitions';
import type { Database } from './schema';

/** Rows deleted by one statement: each statement holds its locks (SQLite's write lock) only briefly. */
export const DELETE_BATCH = 5_000;

/** Rows that age out: those of `table` (of one owner, if given) whose `time` column is before the cutoff. */
export interface AgedRows {
  table: string;
  /** The columns of the table's primary key: one batch is chosen by them (`id`, or `project_id, fingerprint, …`). */
  key: readonly string[];
  /** The column holding the row's time, epoch milliseconds. */
  time: string;
  /**
   * Only the rows of this project (`project_id`) or organisation (`tenant_id`), all of the table's when absent: with
   * an index led by that column and `time`, a batch reads only rows it deletes.
   */
  owner?: { column: 'project_id' | 'tenant_id'; id: string };
}

export interface BatchOptions {
  /** Rows per statement (default {@link DELETE_BATCH}). */
  batchSize?: number;
  /** Stops between batches once aborted (the server is closing); what was deleted stays deleted. */
  signal?: AbortSignal;
}

/** Hands the event loop to what is waiting (ingest requests, their commits) before the next batch. */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes `rows` older than `cutoffMs` in batches of at most `batchSize` (see {@link deleteMatching}). Returns how many
 * rows were deleted.
 */
export function deleteOlderThan(
  db: Kysely<Database>,
  rows: AgedRows,
  cutoffMs: number,
  options: BatchOptions = {},
): Promise<number> {
  const owner = rows.owner ? sql`and ${sql.ref(rows.owner.column)} = ${rows.owner.id}` : sql``;
  return deleteMatching(db, rows, sql`${sql.ref(rows.time)} < ${cutoffMs} ${owner}`, options);
}

/**
 * Deletes the rows of `rows.table` that `where` matches in batches of at most `batchSize`, each batch its own statement
 * that picks its rows by primary key (`delete … where key in (select key … limit n)`, the same in SQLite and
 * PostgreSQL), yielding between batches: a large backlog never becomes one long statement holding the database's write
 * lock or a transaction with millions of row locks, and ingest goes on between them. Returns how many rows were deleted.
 */
export async function deleteMatching(
  db: Kysely<Database>,
  rows: Pick<AgedRows, 'table' | 'key'>,
  where: RawBuilder<unknown>,
  options: BatchOptions = {},
): Promise<number> {
  return sumOverLeaves(db, rows.table, (table) => deleteFrom(db, { ...rows, table }, where, options));
}

/**
 * The sum of `run` over the tables holding `table`'s rows: PostgreSQL's telemetry tables one day partition at a time
 * (db/partitions.ts, leafTables), skipping a partition another replica's retention dropped meanwhile.
 */
export async function sumOverLeaves(
  db: Kysely<Database>,
  table: string,
  run: (leaf: string) => Promise<number>,
): Promise<number> {
  let sum = 0;
  for (const leaf of await leafTables(db, table)) {
    try {
      sum += await run(leaf);
    } catch (err) {
      if ((err as { code?: unknown }).code !== UNDEFINED_TABLE) throw err;
    }
  }
  return sum;
}

async function deleteFrom(
  db: Kysely<Database>,
  rows: Pick<AgedRows, 'table' | 'key'>,
  where: RawBuilder<unknown>,
  options: BatchOptions,
): Promise<number> {
  const size = options.batchSize ?? DELETE_BATCH;
  const key = sql.join(rows.key.map((column) => sql.ref(column)));
  const table = sql.table(rows.table);
  let deleted = 0;
  while (!options.signal?.aborted) {
    const batch = sql`select ${key} from ${table} where ${where} limit ${size}`;
    const result = await sql`delete from ${table} where (${key}) in (${batch})`.execute(db);
    const n = Number(result.numAffectedRows ?? 0);
    deleted += n;
    if (n < size) break;
    await yieldToOthers();
  }
  return deleted;
}
