import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../server/src/db/connect';

/**
 * What a request is allowed to leave behind even when refused: the audit log (which may record the refusal), failed
 * sign-ins (the throttle counts them), the "last seen" and "last used" times a session or key is stamped with on
 * each request that presents it, and ingest's usage counts and rate buckets, which a flush every few seconds writes
 * on its own schedule (an earlier ingest's counts may land during any later request). A deletion job's row is
 * compared without what its worker writes as it works (an earlier request's job may still run): a request that queues
 * one still shows as a new row.
 */
const IGNORED_TABLES = new Set(['audit_log', 'sign_in_failures', 'ingest_usage', 'ingest_rate_buckets']);
const IGNORED_COLUMNS: Record<string, readonly string[]> = {
  console_sessions: ['last_seen_ms'],
  api_keys: ['last_used_ms'],
  erasures: [
    'status',
    'counts',
    'error',
    'target_value',
    'subjects',
    'lease_owner',
    'lease_until_ms',
    'started_ms',
    'finished_ms',
  ],
};

/** Per table, its row count and a hash of all its rows (order-independent): equal snapshots, equal data. */
export type TableSnapshot = Record<string, string>;

/**
 * Every table's rows as a count and a hash. PostgreSQL hashes them itself, every table in one round trip (a refused
 * request is checked by two snapshots, and a matrix makes hundreds); SQLite, in this process, is read table by table.
 */
export async function snapshotTables({ db, dialect }: DatabaseHandle): Promise<TableSnapshot> {
  const tables = (await db.introspection.getTables())
    .map((t) => t.name)
    .filter((name) => !IGNORED_TABLES.has(name))
    .sort();
  if (dialect === 'postgres') {
    const perTable = tables.map((table) => {
      const dropped = (IGNORED_COLUMNS[table] ?? []).map((column) => ` - '${column}'`).join('');
      return sql`select ${sql.lit(table)} as name, count(*)::int as n, md5(coalesce(string_agg(r, ',' order by r), '')) as h
        from (select (to_jsonb(t)${sql.raw(dropped)})::text as r from ${sql.table(table)} t) rows`;
    });
    const { rows } = await sql<{ name: string; n: number; h: string }>`${sql.join(perTable, sql` union all `)}`.execute(
      db,
    );
    return Object.fromEntries(rows.map((r) => [r.name, `${r.n} rows, ${r.h.slice(0, 16)}`]));
  }
  const snapshot: TableSnapshot = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    const ignored = IGNORED_COLUMNS[table] ?? [];
    const lines = rows
      .map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !ignored.includes(column))))
      .sort();
    snapshot[table] =
      `${rows.length} rows, ${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return snapshot;
}

/** The tables whose rows differ between two snapshots, with how: `issues (3 rows, … -> 4 rows, …)`. */
export function changedTables(before: TableSnapshot, after: TableSnapshot): string[] {
  const tables = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...tables]
    .filter((table) => before[table] !== after[table])
    .map((table) => `${table} (${before[table] ?? 'absent'} -> ${after[table] ?? 'absent'})`);
}
