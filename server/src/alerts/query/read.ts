import { sql, type Expression, type SqlBool } from 'kysely';
import { MAX_ROWS, type SignalContext } from './context';

/**
 * The reads every signal query is made of, each bounded by {@link MAX_ROWS}.
 *
 * SQLite's planner has no statistics (the server never runs ANALYZE) and picks an index by the shape of the query: a
 * query may steer it with `+column`, which keeps a column's condition or order from using an index (valid SQL in
 * PostgreSQL too, whose planner has statistics and needs no steering).
 */

const conditions = (where: ReadonlyArray<Expression<SqlBool>>) => sql.join(where, sql` and `);

/** Rows of `table` (as `r`) meeting `where`, counted up to {@link MAX_ROWS}. */
export async function countRows(
  ctx: SignalContext,
  table: string,
  where: ReadonlyArray<Expression<SqlBool>>,
): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from
    (select 1 as one from ${sql.table(table)} as r where ${conditions(where)} limit ${MAX_ROWS}) as capped`.execute(
    ctx.db,
  );
  return Number(rows[0]?.n ?? 0);
}

/** `value` of the newest {@link MAX_ROWS} rows of `table` (as `r`) meeting `where`, newest by `time`. */
export async function newestValues(
  ctx: SignalContext,
  table: string,
  value: Expression<unknown>,
  where: ReadonlyArray<Expression<SqlBool>>,
  time: Expression<unknown> = sql.ref('r.time_ms'),
): Promise<number[]> {
  const { rows } = await sql<{ v: number | string }>`select ${value} as v from ${sql.table(table)} as r
    where ${conditions(where)} order by ${time} desc limit ${MAX_ROWS}`.execute(ctx.db);
  return rows.map((r) => Number(r.v));
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
