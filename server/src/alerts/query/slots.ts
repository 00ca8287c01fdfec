import { createHash } from 'node:crypto';
import { sql, type Expression, type SqlBool } from 'kysely';
import { LOG_GAMMA } from '../../vitals/rollup/histogram';
import type { SignalContext, Window } from './context';
import { slotCacheOf, type SlotTotals } from './slot-cache';
import { slotBuckets, WindowHistogram, type BucketRow } from './slot-histogram';

/**
 * Long windows read in ten-minute slots (docs/alerts.md, "Cost"). A rule with a day-long window is evaluated every
 * minute: read whole, every evaluation would aggregate the whole day's rows again for one minute's change. Instead the
 * window is cut at ten-minute boundaries; each whole slot that has settled is read once, in one grouped statement
 * with its neighbours, and kept (slot-cache.ts), so an evaluation reads only the window's two ragged edges and the
 * slots that settled since. Counts, sums and shares add up exactly; a percentile adds up log-bucketed histograms
 * (slot-histogram.ts), within 0.99 % of the exact value, as Datadog's sketches and the Web Vitals rollups are.
 */

export const SLOT_MS = 600_000;
/** Windows this long or longer are read in slots; shorter ones whole, exactly (a percentile by nearest rank). */
export const SLOTTED_FROM_MS = 3_600_000;
/** A slot is kept once it ended this long before now: the SDK sends within seconds, a retried batch within minutes. */
export const SETTLE_MS = 300_000;

/** What a long window's read adds up per slot. */
export type SlotMeasure =
  | { kind: 'count' }
  | { kind: 'sum'; value: Expression<unknown> }
  | { kind: 'histogram'; value: Expression<unknown> };

/** The rows one read is over: a table (as `r`), every condition but the window, and the time column the window is on. */
export interface SlotRows {
  table: string;
  where: ReadonlyArray<Expression<SqlBool>>;
  time: string;
}

/** Everything the slots of a window added up. */
export interface WindowTotals {
  n: number;
  sum: number;
  histogram: WindowHistogram | null;
}

interface Run {
  fromMs: number;
  toMs: number;
}

/** The slots of `w` that can be kept (whole inside it, settled by `nowMs`), and the ranges to read from the database. */
export function planSlots(w: Window, nowMs: number, isKept: (slot: number) => boolean) {
  const settled = (slot: number) => (slot + 1) * SLOT_MS <= nowMs - SETTLE_MS;
  const whole = (slot: number) => slot * SLOT_MS >= w.fromMs && (slot + 1) * SLOT_MS <= w.toMs;
  const keepable: number[] = [];
  const kept: number[] = [];
  const runs: Run[] = [];
  for (let slot = Math.floor(w.fromMs / SLOT_MS); slot * SLOT_MS < w.toMs; slot++) {
    const canKeep = whole(slot) && settled(slot);
    if (canKeep && isKept(slot)) {
      kept.push(slot);
      continue;
    }
    if (canKeep) keepable.push(slot);
    const fromMs = Math.max(w.fromMs, slot * SLOT_MS);
    const toMs = Math.min(w.toMs, (slot + 1) * SLOT_MS);
    const last = runs[runs.length - 1];
    if (last && last.toMs === fromMs) last.toMs = toMs;
    else runs.push({ fromMs, toMs });
  }
  return { kept, keepable, runs };
}

/** The key a slot is kept under: the statement's text and parameters, so any change of the rule's query is a new key. */
function keyOf(ctx: SignalContext, rows: SlotRows, measure: SlotMeasure): string {
  const value = measure.kind === 'count' ? sql`1` : measure.value;
  const { sql: text, parameters } = sql`${sql.table(rows.table)} ${sql.raw(rows.time)} ${value} ${sql.join(
    rows.where,
    sql` and `,
  )}`.compile(ctx.db);
  return createHash('sha1')
    .update(`${measure.kind}\0${text}\0${JSON.stringify(parameters)}`)
    .digest('base64url');
}

interface SlotRow {
  k: number | string;
  n: number | string;
  total?: number | string | null;
  /** A histogram's bucket (null: values ≤ 0) and the least and greatest value in it. */
  i?: number | string | null;
  lo?: number | string;
  hi?: number | string;
}

/** One grouped statement over a run of slots: a row per slot (and per histogram bucket). */
async function readRun(ctx: SignalContext, rows: SlotRows, measure: SlotMeasure, run: Run): Promise<SlotRow[]> {
  const time = sql.ref(rows.time);
  const where = sql.join([...rows.where, sql`${time} >= ${run.fromMs}`, sql`${time} < ${run.toMs}`], sql` and `);
  const slot = sql`floor(${time} / ${sql.lit(SLOT_MS)})`;
  const from = sql`from ${sql.table(rows.table)} as r where ${where}`;
  if (measure.kind === 'count')
    return (await sql<SlotRow>`select ${slot} as k, count(*) as n ${from} group by 1`.execute(ctx.db)).rows;
  if (measure.kind === 'sum')
    return (
      await sql<SlotRow>`select ${slot} as k, count(*) as n, sum(${measure.value}) as total ${from} group by 1`.execute(
        ctx.db,
      )
    ).rows;
  const v = sql`cast(${measure.value} as double precision)`;
  const bucket = sql`case when ${v} > 0 then ceil(ln(${v}) / ${sql.lit(LOG_GAMMA)}) end`;
  return (
    await sql<SlotRow>`select ${slot} as k, ${bucket} as i, count(*) as n, min(${v}) as lo, max(${v}) as hi ${from}
      group by 1, 2`.execute(ctx.db)
  ).rows;
}

/** The totals of each slot the rows of one run fall in; a slot without rows has none. */
function totalsBySlot(found: SlotRow[], measure: SlotMeasure): Map<number, SlotTotals> {
  const bySlot = new Map<number, { n: number; sum: number; buckets: BucketRow[] }>();
  for (const row of found) {
    const k = Number(row.k);
    let t = bySlot.get(k);
    if (!t) bySlot.set(k, (t = { n: 0, sum: 0, buckets: [] }));
    const count = Number(row.n);
    t.n += count;
    t.sum += Number(row.total ?? 0);
    if (measure.kind === 'histogram')
      t.buckets.push({
        index: row.i === null || row.i === undefined ? null : Number(row.i),
        count,
        low: Number(row.lo),
        high: Number(row.hi),
      });
  }
  const totals = new Map<number, SlotTotals>();
  for (const [k, t] of bySlot)
    totals.set(k, { n: t.n, sum: t.sum, ...(measure.kind === 'histogram' && { histogram: slotBuckets(t.buckets) }) });
  return totals;
}

const EMPTY: SlotTotals = { n: 0, sum: 0 };

function addInto(into: WindowTotals, t: SlotTotals): void {
  into.n += t.n;
  into.sum += t.sum;
  if (t.histogram) into.histogram?.add(t.histogram);
}

/**
 * The totals of `rows` over `w`, slot by slot: kept slots from the cache, the rest read (one statement per run of
 * adjacent slots) and kept when whole and settled. `ctx.nowMs` decides what has settled.
 */
export async function slotTotals(
  ctx: SignalContext,
  rows: SlotRows,
  measure: SlotMeasure,
  w: Window,
): Promise<WindowTotals> {
  const cache = slotCacheOf(ctx.db);
  const key = keyOf(ctx, rows, measure);
  const slotKey = (slot: number) => `${key}:${slot}`;
  const totals: WindowTotals = { n: 0, sum: 0, histogram: measure.kind === 'histogram' ? new WindowHistogram() : null };
  const found = new Map<number, SlotTotals>();
  const plan = planSlots(w, ctx.nowMs, (slot) => {
    const t = cache.get(slotKey(slot), ctx.nowMs);
    if (t) found.set(slot, t);
    return t !== undefined;
  });
  for (const slot of plan.kept) addInto(totals, found.get(slot)!);
  for (const run of plan.runs) {
    const read = totalsBySlot(await readRun(ctx, rows, measure, run), measure);
    for (const t of read.values()) addInto(totals, t);
    for (const slot of plan.keepable)
      if (slot * SLOT_MS >= run.fromMs && slot * SLOT_MS < run.toMs)
        cache.set(slotKey(slot), read.get(slot) ?? EMPTY, ctx.nowMs);
  }
  return totals;
}
