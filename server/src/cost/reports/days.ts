/**
 * UTC calendar days as `YYYY-MM-DD`, the unit every cost report works in: line items are bucketed by the UTC day of
 * their charge period start, so a day here is a whole number of days since the epoch and never meets a time zone.
 */
export type Day = string;

/** Cost of one UTC day. Days missing from a series had no cost (within its history; see each report). */
export interface DailyCost {
  day: Day;
  cost: number;
}

/** Days from `start` to `end`, both included. */
export interface DayRange {
  start: Day;
  end: Day;
}

const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const PERIOD = /^(\d{4})-(\d{2})$/;

/** Days since 1970-01-01. Throws on anything but a real calendar day: report inputs come from our own queries. */
export function dayNumber(day: Day): number {
  const m = DAY.exec(day);
  const n = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY_MS : NaN;
  if (!Number.isInteger(n) || fromDayNumber(n) !== day) throw new Error(`not a UTC day (YYYY-MM-DD): ${day}`);
  return n;
}

export function fromDayNumber(n: number): Day {
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

export const addDays = (day: Day, days: number): Day => fromDayNumber(dayNumber(day) + days);

/** The UTC day of an instant (epoch ms). */
export const dayOf = (ms: number): Day => fromDayNumber(Math.floor(ms / DAY_MS));

// ISO days order as strings.
export const minDay = (a: Day, b: Day): Day => (a < b ? a : b);
export const maxDay = (a: Day, b: Day): Day => (a > b ? a : b);

/** Number of days in the range (0 when it ends before it starts). */
export const rangeLength = (range: DayRange): number => Math.max(0, dayNumber(range.end) - dayNumber(range.start) + 1);

/** The calendar month `YYYY-MM` as a day range: `2024-02` → 2024-02-01 … 2024-02-29. */
export function monthRange(period: string): DayRange {
  const m = PERIOD.exec(period);
  const month = m ? Number(m[2]) : 0;
  if (!m || month < 1 || month > 12) throw new Error(`not a billing period (YYYY-MM): ${period}`);
  const start = `${period}-01`;
  // Day 0 of the next month is the last day of this one.
  const end = fromDayNumber(Date.UTC(Number(m[1]), month, 0) / DAY_MS);
  return { start, end };
}

/** The month before `YYYY-MM`: `2024-01` → `2023-12`. */
export const previousMonth = (period: string): string => addDays(monthRange(period).start, -1).slice(0, 7);

/** Costs by day, for lookups of days that may be missing (missing is 0). Repeated days add up. */
export function costByDay(series: readonly DailyCost[]): Map<number, number> {
  const byDay = new Map<number, number>();
  for (const { day, cost } of series) {
    const n = dayNumber(day);
    byDay.set(n, (byDay.get(n) ?? 0) + cost);
  }
  return byDay;
}

/**
 * Where a series' history starts, as a day number: the given first day there is data for, else the series' earliest
 * day (Infinity for an empty series). Days before it are unknown rather than free, so they never count as 0.
 */
export function historyStart(byDay: ReadonlyMap<number, number>, start: Day | undefined): number {
  return start !== undefined ? dayNumber(start) : Math.min(...byDay.keys());
}

/** Sum of a series over the days of `range`. */
export function sumRange(series: readonly DailyCost[], range: DayRange): number {
  const from = dayNumber(range.start);
  const to = dayNumber(range.end);
  let sum = 0;
  for (const { day, cost } of series) {
    const n = dayNumber(day);
    if (n >= from && n <= to) sum += cost;
  }
  return sum;
}
