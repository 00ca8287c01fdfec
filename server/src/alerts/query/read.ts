import { sql, type Expression, type SqlBool } from 'kysely';
import type { SignalContext } from './context';

/**
 * The reads every signal query is made of: each one aggregate statement over all the rows of the rule's window that
 * meet its conditions, computed in the database and answered as one row (docs/alerts.md, "Cost"). Counts, sums,
 * shares and averages are exact whatever the window holds; percentiles are by nearest rank, as the Web Vitals page
 * computes them (vitals/summary.ts, `nearestRank`).
 *
 * SQLite's planner has no statistics (the server never runs ANALYZE) and picks an index by the shape of the query: a
 * query may steer it with `+column`, which keeps a column's condition or order from using an index (valid SQL in
 * PostgreSQL too, whose planner has statistics and needs no steering).
 */

const conditions = (where: ReadonlyArray<Expression<SqlBool>>) => sql.join(where, sql` and `);

/** Rows of `table` (as `r`) meeting `where`, counted. */
export async function countRows(
  ctx: SignalContext,
  table: string,
  where: ReadonlyArray<Expression<SqlBool>>,
): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} as r
    where ${conditions(where)}`.execute(ctx.db);
  return Number(rows[0]?.n ?? 0);
}

/** The sum of `value` over the rows of `table` (as `r`) meeting `where` (a non-null numeric expression), and their count. */
export async function sumAndCount(
  ctx: SignalContext,
  table: string,
  value: Expression<unknown>,
  where: ReadonlyArray<Expression<SqlBool>>,
): Promise<{ sum: number; n: number }> {
  const { rows } = await sql<{ total: number | string | null; n: number | string }>`select sum(${value}) as total,
    count(*) as n from ${sql.table(table)} as r where ${conditions(where)}`.execute(ctx.db);
  return { sum: Number(rows[0]?.total ?? 0), n: Number(rows[0]?.n ?? 0) };
}

/**
 * The `percent` percentile (an integer, 1..99) by nearest rank of `value` (non-null) over the rows of `table` (as `r`)
 * meeting `where`: the value at rank ceil(percent × n / 100) of the n in ascending order; null for no rows.
 *
 * PostgreSQL: `percentile_disc(f)` is the first value whose cumulative share of the rows reaches f, i.e. the value at
 * rank ceil(f × n), the same rank (test/integration/alert-percentiles.test.ts compares both). SQLite has no ordered-set
 * aggregate: the statement counts the rows in a subquery and skips to that rank in the sorted values (the sorter keeps
 * only the rows up to the rank, the values never leave the database).
 */
export async function percentile(
  ctx: SignalContext,
  table: string,
  value: Expression<unknown>,
  where: ReadonlyArray<Expression<SqlBool>>,
  percent: number,
): Promise<number | null> {
  if (!Number.isInteger(percent) || percent < 1 || percent > 99) throw new Error(`percentile ${percent} not in 1..99`);
  const from = sql`${sql.table(table)} as r where ${conditions(where)}`;
  const { rows } =
    ctx.dialect === 'postgres'
      ? await sql<{ v: number | string | null }>`select percentile_disc(${percent / 100}::float8)
          within group (order by ${value}) as v from ${from}`.execute(ctx.db)
      : await sql<{ v: number | string | null }>`select ${value} as v from ${from} order by 1 limit 1
          offset (select (count(*) * ${sql.lit(percent)} + 99) / 100 - 1 from ${from})`.execute(ctx.db);
  const v = rows[0]?.v;
  return v === undefined || v === null ? null : Number(v);
}

/** Whether `table` (as `r`) has any row meeting `where`: what tells "nothing counted" from "nothing sent". */
export async function anyRow(
  ctx: SignalContext,
  table: string,
  where: ReadonlyArray<Expression<SqlBool>>,
): Promise<boolean> {
  const { rows } = await sql`select 1 as one from ${sql.table(table)} as r where ${conditions(where)} limit 1`.execute(
    ctx.db,
  );
  return rows.length > 0;
}
