import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';
import { createDayPartition, DAY_MS, DAYS_AHEAD, dayStart, defaultPartition } from '../partitions';
import { TELEMETRY_TABLES, type TelemetryTable } from '../schema';

/**
 * PostgreSQL only: each telemetry table becomes a table partitioned by day of `time_ms` (db/partitions.ts), so
 * retention drops a whole day instead of deleting its rows. SQLite is unchanged.
 *
 * For each table: a partitioned copy `LIKE` the table (its columns, NOT NULLs and defaults, the `id` sequence among
 * them), its default partition, a partition for each day that holds rows in the last {@link DAYS_KEPT} days and for
 * today and the days ahead, and one for all time before those days; the rows are copied (once, a full read of the
 * table), the old table dropped, the copy takes its name and the sequence, and the old indexes are made again on it,
 * by the same names. PostgreSQL wants each unique index of a partitioned table to hold the partition key: the primary
 * key becomes (id, time_ms) and each unique index gains time_ms. Dedupe stays exact because a retried record carries
 * the same time (see ingest/untimed-logs.ts for the one record whose time is its receipt).
 */
export function timePartitionsMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      const now = Date.now();
      for (const table of TELEMETRY_TABLES) await partition(db, table, now);
    },
  };
}

/**
 * Days older than this share one partition, `<table>_before`: a day partition each would make every query that does
 * not filter by time plan over hundreds of partitions, and in the default partition they would be read again each
 * time a day's partition is made (PostgreSQL checks the default holds no row of the new day). Retention deletes them in
 * batches, as it does the default partition's rows.
 */
const DAYS_KEPT = 400;

async function partition(db: Kysely<unknown>, table: TelemetryTable, now: number): Promise<void> {
  const next = `${table}__partitioned`;
  const indexes = await sql<{ name: string; definition: string }>`
    select i.indexname as name, i.indexdef as definition from pg_indexes i
    where i.tablename = ${table} and i.schemaname = current_schema()
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname and c.contype = 'p')`.execute(db);
  const sequence = await sql<{ name: string | null }>`select pg_get_serial_sequence(${table}, 'id') as name`.execute(
    db,
  );

  await sql`create table ${sql.table(next)} (like ${sql.table(table)} including defaults including storage)
    partition by range (time_ms)`.execute(db);
  await sql`create table ${sql.table(defaultPartition(table))} partition of ${sql.table(next)} default`.execute(db);
  const lo = dayStart(now) - DAYS_KEPT * DAY_MS;
  await sql`create table ${sql.table(`${table}_before`)} partition of ${sql.table(next)}
    for values from (minvalue) to (${sql.lit(lo)})`.execute(db);
  const hi = dayStart(now) + (DAYS_AHEAD + 1) * DAY_MS;
  const held = await sql<{ day: string }>`
    select distinct (time_ms / ${DAY_MS}) * ${DAY_MS} as day from ${sql.table(table)}
    where time_ms >= ${lo} and time_ms < ${hi}`.execute(db);
  const days = new Set(held.rows.map((r) => Number(r.day)));
  for (let d = dayStart(now); d < hi; d += DAY_MS) days.add(d);
  // The default partition is still empty: no day's partition has rows to take from it.
  for (const day of [...days].sort((a, b) => a - b)) await createDayPartition(db, table, day, next);

  await sql`insert into ${sql.table(next)} select * from ${sql.table(table)}`.execute(db);
  const seq = sequence.rows[0]?.name;
  if (seq) await sql`alter sequence ${sql.raw(seq)} owned by ${sql.table(next)}.id`.execute(db);
  await sql`drop table ${sql.table(table)}`.execute(db);
  await sql`alter table ${sql.table(next)} rename to ${sql.table(table)}`.execute(db);
  await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_pkey`)} primary key (id, time_ms)`.execute(
    db,
  );
  for (const { definition } of indexes.rows) await sql.raw(withPartitionKey(definition)).execute(db);
  await sql`analyze ${sql.table(table)}`.execute(db);
}

/** An index definition (pg_indexes.indexdef) as the partitioned table takes it: a unique one holds time_ms too. */
export function withPartitionKey(definition: string): string {
  const unique = /^(CREATE UNIQUE INDEX \S+ ON \S+ USING \w+ \()([^()]*)(\).*)$/.exec(definition);
  if (!unique) return definition;
  const columns = unique[2]!.split(',').map((c) => c.trim());
  return columns.includes('time_ms') ? definition : `${unique[1]}${[...columns, 'time_ms'].join(', ')}${unique[3]}`;
}
