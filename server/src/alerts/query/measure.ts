import { sql, type Expression, type SqlBool } from 'kysely';
import type { SignalContext, Window } from './context';
import { anyRow, countRows, percentile, sumAndCount } from './read';
import { SLOTTED_FROM_MS, slotTotals, type SlotMeasure, type SlotRows } from './slots';

/**
 * The aggregates of a record table's rows in a window, as the signal queries ask them: a window shorter than an hour
 * is one statement over all its rows (read.ts, exact); a longer one is read in ten-minute slots (slots.ts), most of
 * them kept from earlier evaluations.
 */

/** The rows a measure is over: a table (as `r`), every condition but the window, and the time column (default `r.time_ms`). */
export interface Rows {
  table: string;
  where: ReadonlyArray<Expression<SqlBool>>;
  time?: string;
}

const slotted = (w: Window) => w.toMs - w.fromMs >= SLOTTED_FROM_MS;

const slotRows = (rows: Rows): SlotRows => ({ ...rows, time: rows.time ?? 'r.time_ms' });

/** `rows`' conditions with the window's. */
function inWindow(rows: Rows, w: Window): Array<Expression<SqlBool>> {
  const time = sql.ref(rows.time ?? 'r.time_ms');
  return [...rows.where, sql<SqlBool>`${time} >= ${w.fromMs}`, sql<SqlBool>`${time} < ${w.toMs}`];
}

const bySlots = (ctx: SignalContext, rows: Rows, measure: SlotMeasure, w: Window) =>
  slotTotals(ctx, slotRows(rows), measure, w);

/** How many rows. */
export async function countIn(ctx: SignalContext, rows: Rows, w: Window): Promise<number> {
  if (slotted(w)) return (await bySlots(ctx, rows, { kind: 'count' }, w)).n;
  return countRows(ctx, rows.table, inWindow(rows, w));
}

/** The sum of `value` (a non-null numeric expression) over the rows, and their count. */
export async function sumIn(
  ctx: SignalContext,
  rows: Rows,
  value: Expression<unknown>,
  w: Window,
): Promise<{ sum: number; n: number }> {
  if (slotted(w)) return bySlots(ctx, rows, { kind: 'sum', value }, w);
  return sumAndCount(ctx, rows.table, value, inWindow(rows, w));
}

/** The share (0..1) of the rows for which `test` holds; null for no rows. */
export async function shareIn(
  ctx: SignalContext,
  rows: Rows,
  test: Expression<SqlBool>,
  w: Window,
): Promise<number | null> {
  const { sum, n } = await sumIn(ctx, rows, sql`case when ${test} then 1 else 0 end`, w);
  return n === 0 ? null : sum / n;
}

/**
 * The `percent` percentile of `value` (non-null) over the rows; null for no rows. By nearest rank for a window shorter
 * than an hour; from the slots' histograms (within 0.99 %) for a longer one.
 */
export async function percentileIn(
  ctx: SignalContext,
  rows: Rows,
  value: Expression<unknown>,
  percent: number,
  w: Window,
): Promise<number | null> {
  if (!slotted(w)) return percentile(ctx, rows.table, value, inWindow(rows, w), percent);
  return (await bySlots(ctx, rows, { kind: 'histogram', value }, w)).histogram!.percentile(percent);
}

/** Whether any row is in the window: what tells "nothing counted" from "nothing sent" (one `limit 1` read). */
export const anyIn = (ctx: SignalContext, rows: Rows, w: Window): Promise<boolean> =>
  anyRow(ctx, rows.table, inWindow(rows, w));
