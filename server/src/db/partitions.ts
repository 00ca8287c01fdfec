import { PostgresAdapter, sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import { TELEMETRY_TABLES, type TelemetryTable } from './schema';

/**
 * PostgreSQL's telemetry tables are partitioned by day of `time_ms` (UTC), since migration 0032: retention drops a
 * day whole (retention/partition-drop.ts) instead of deleting its rows one by one. Each table has one partition per day,
 * `<table>_pYYYYMMDD`, one for all time before the days migration 0032 found, `<table>_before`, and a DEFAULT
 * partition, `<table>_default`, that takes the rows of days without one (a client whose clock is ahead by more than
 * the days created ahead, a day the server made no partition for). SQLite keeps plain tables and batched deletes.
 */

export const DAY_MS = 86_400_000;
/** Days of partitions made ahead of today: a server down for less than this never sends today's rows to the default. */
export const DAYS_AHEAD = 7;

export interface DayPartition {
  name: string;
  fromMs: number;
  toMs: number;
}

export const isPostgres = <DB>(db: Kysely<DB>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;
export const defaultPartition = (table: TelemetryTable): string => `${table}_default`;

const dayPartitionName = (table: TelemetryTable, fromMs: number): string =>
  `${table}_p${new Date(fromMs).toISOString().slice(0, 10).replaceAll('-', '')}`;

const PARTITION_NAME = /_p(\d{4})(\d{2})(\d{2})$/;

/** The names of the partitions of `table`, the default one among them; none for a table that is not partitioned. */
async function partitionNames<DB>(db: Kysely<DB>, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent
    where p.relname = ${table} and p.relnamespace = current_schema()::regnamespace
    order by c.relname`.execute(db);
  return rows.map((r) => r.name);
}

/**
 * The tables that hold `table`'s rows: its partitions when it is a partitioned telemetry table, else itself. A
 * statement that picks rows by key (`… where (id, time_ms) in (select … limit n)`) is planned on a partitioned table
 * as a hash join over every partition, a full read per batch; on one partition it is the index lookup it is on a
 * plain table. PostgreSQL drops a partition only under the retention job's lock, but another replica's job may have
 * dropped one of these since: see {@link UNDEFINED_TABLE}.
 */
export async function leafTables<DB>(db: Kysely<DB>, table: string): Promise<string[]> {
  if (!isPostgres(db) || !(TELEMETRY_TABLES as readonly string[]).includes(table)) return [table];
  const names = await partitionNames(db, table);
  return names.length > 0 ? names : [table];
}

/** PostgreSQL's error code for a table that is not there (a partition another replica dropped). */
export const UNDEFINED_TABLE = '42P01';

/** The day partitions of `table`, oldest first (the default partition is not one). */
export async function dayPartitions<DB>(db: Kysely<DB>, table: TelemetryTable): Promise<DayPartition[]> {
  const days: DayPartition[] = [];
  for (const name of await partitionNames(db, table)) {
    const m = PARTITION_NAME.exec(name);
    if (!m || name !== `${table}${m[0]}`) continue;
    const fromMs = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    days.push({ name, fromMs, toMs: fromMs + DAY_MS });
  }
  return days.sort((a, b) => a.fromMs - b.fromMs);
}

/**
 * Makes the partition of the day starting at `fromMs` unless it exists. Rows of that day already in the default
 * partition (a skewed clock sent them before the day had a partition) move into it in the same transaction: PostgreSQL
 * refuses a new partition whose range the default still holds rows of. Runs in `db`'s transaction if it is one.
 * `parent` is the partitioned table when it does not have the table's name yet (migration 0032). Whether it made it.
 */
export async function createDayPartition<DB>(
  db: Kysely<DB>,
  table: TelemetryTable,
  fromMs: number,
  parent: string = table,
): Promise<boolean> {
  const name = dayPartitionName(table, fromMs);
  const toMs = fromMs + DAY_MS;
  const exists = await sql<{ found: boolean }>`select to_regclass(${name}) is not null as found`.execute(db);
  if (exists.rows[0]?.found) return false;
  // The table first, whole: no insert is routed to the default partition between the check below and the new
  // partition (PostgreSQL then refuses the insert, or the new partition, over that row), and no query holds the table
  // while this waits for a partition it reads (a deadlock). Held until commit, bounded by the job's lock timeout.
  await sql`lock table ${sql.table(parent)} in access exclusive mode`.execute(db);
  const held = await sql<{ held: boolean }>`
    select exists (select 1 from ${sql.table(defaultPartition(table))}
      where time_ms >= ${fromMs} and time_ms < ${toMs}) as held`.execute(db);
  if (!held.rows[0]?.held) {
    await sql`create table if not exists ${sql.table(name)} partition of ${sql.table(parent)}
      for values from (${sql.lit(fromMs)}) to (${sql.lit(toMs)})`.execute(db);
    return true;
  }
  await sql`create table ${sql.table(name)} (like ${sql.table(parent)} including defaults)`.execute(db);
  await sql`
    with moved as (
      delete from ${sql.table(defaultPartition(table))} where time_ms >= ${fromMs} and time_ms < ${toMs} returning *)
    insert into ${sql.table(name)} select * from moved`.execute(db);
  await sql`alter table ${sql.table(parent)} attach partition ${sql.table(name)}
    for values from (${sql.lit(fromMs)}) to (${sql.lit(toMs)})`.execute(db);
  return true;
}

/** One lock key for every replica's maintenance: two servers never create or drop the same partition at once. */
export const MAINTENANCE_LOCK = sql`pg_advisory_xact_lock(hashtext('svc:telemetry-partitions'))`;

/**
 * Past days made per table and run, newest first: making one moves its rows out of the default partition under the
 * table's lock (ingest waits for it), so a backfill of many days is spread over the hourly runs.
 */
export const PAST_DAYS_PER_RUN = 8;
/**
 * How far back a past day gets a partition of its own: older rows in the default partition are left to the batched
 * deletes, so a backfill of years cannot make the planner weigh thousands of partitions.
 */
export const PAST_DAYS_MAX = 400;

/**
 * The past days (before `today`) whose rows lie in `table`'s default partition and were received at or after
 * `keptSince` (what retention still keeps), newest first, at most {@link PAST_DAYS_PER_RUN}. One read of the default
 * partition, which holds only such rows and those of days far ahead.
 */
async function pastDaysInDefault<DB>(
  db: Kysely<DB>,
  table: TelemetryTable,
  today: number,
  keptSince: number,
): Promise<number[]> {
  const { rows } = await sql<{ day: string }>`
    select distinct (time_ms / ${DAY_MS}) * ${DAY_MS} as day from ${sql.table(defaultPartition(table))}
    where time_ms >= ${today - PAST_DAYS_MAX * DAY_MS} and time_ms < ${today} and received_ms >= ${keptSince}
    order by day desc limit ${PAST_DAYS_PER_RUN}`.execute(db);
  return rows.map((r) => Number(r.day));
}

/**
 * The partition maintenance job's step, run by every replica with the retention job (at start, then hourly): makes
 * the partitions of today and {@link DAYS_AHEAD} days after `nowMs` for each telemetry table, and those of the past
 * days whose rows lie in the default partition (backfilled or late telemetry, received at or after `keptSince(table)`,
 * the oldest receipt some project still keeps), moving their rows in (createDayPartition). One transaction per
 * partition under an advisory lock, so replicas take turns; a replica that finds a partition made does nothing, and
 * the rows move in the transaction that makes it, so exactly once. No-op on SQLite. How many partitions it made.
 */
export async function ensurePartitions<DB>(
  db: Kysely<DB>,
  nowMs: number,
  keptSince: (table: TelemetryTable) => number = () => Number.MIN_SAFE_INTEGER,
): Promise<number> {
  if (!isPostgres(db)) return 0;
  const today = dayStart(nowMs);
  let made = 0;
  for (const table of TELEMETRY_TABLES) {
    const have = new Set((await dayPartitions(db, table)).map((p) => p.fromMs));
    const ahead = Array.from({ length: DAYS_AHEAD + 1 }, (_, i) => today + i * DAY_MS).filter((d) => !have.has(d));
    const missing = [...ahead, ...(await pastDaysInDefault(db, table, today, keptSince(table)))];
    // One partition per transaction: a transaction that made one partition holds it exclusively until it commits, and
    // making the next one waits for the table itself; a query or insert that read the table and then reaches the new
    // partition waits for the first, so two in one transaction deadlock with it (seen under the test suites' load).
    for (const fromMs of missing) {
      const created = await withLockTimeout(() =>
        db.transaction().execute(async (tx) => {
          await sql`select ${MAINTENANCE_LOCK}`.execute(tx);
          await limitLockWaits(tx);
          return createDayPartition(tx, table, fromMs);
        }),
      );
      if (created) made++;
    }
  }
  return made;
}

/**
 * How long making or dropping a partition waits for the queries using the table (both lock it whole, and ingest would
 * queue behind the waiting lock): past it, the step is left to the next run. Days are made a week ahead and expired rows
 * are deleted in batches meanwhile, so a skipped run costs nothing.
 */
const LOCK_TIMEOUT = '2s';
const LOCK_NOT_AVAILABLE = '55P03';

/** `run`'s result, or undefined when a lock it waited for under {@link LOCK_TIMEOUT} was not granted. */
export async function withLockTimeout<T>(run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    if ((err as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return undefined;
    throw err;
  }
}

/** Sets {@link LOCK_TIMEOUT} for the rest of the transaction `tx`. */
export const limitLockWaits = (tx: QueryExecutorProvider) =>
  sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(tx);
