import { BUCKET_MS, type Bucket } from '../summary';
import type { Marks } from './store';

/** Half-open time ranges [from, to), epoch milliseconds. */
export type Range = readonly [number, number];

/** Where each part of a summary's window is read from. */
export interface WindowPlan {
  /** Whole days already rolled up: their daily rows. */
  days: Range[];
  /** Whole hours already rolled up outside those days: their hourly rows. */
  hours: Range[];
  /** The rest, at most the window's two ends and the periods not rolled up yet: the raw points. */
  raw: Range[];
}

const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;
const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

/**
 * Splits [from, to) into whole rolled-up days (only when the series is by day: a day's row has no hours), whole
 * rolled-up hours and the rest. Without marks (nothing rolled up yet) the window is all raw.
 */
export function planWindow(from: number, to: number, bucket: Bucket, marks: Marks | undefined): WindowPlan {
  const plan: WindowPlan = { days: [], hours: [], raw: [] };
  if (!marks) {
    plan.raw.push([from, to]);
    return plan;
  }
  /** The whole `unit`s of [a, b) before `mark` into `whole`; the parts before and after them to `rest`. */
  const split = (
    a: number,
    b: number,
    unit: number,
    mark: number,
    whole: Range[],
    rest: (x: number, y: number) => void,
  ) => {
    const start = ceilTo(a, unit);
    const end = Math.min(floorTo(b, unit), floorTo(mark, unit));
    if (start >= end) return rest(a, b);
    if (a < start) rest(a, start);
    whole.push([start, end]);
    if (end < b) rest(end, b);
  };
  const toRaw = (a: number, b: number) => void plan.raw.push([a, b]);
  const toHours = (a: number, b: number) => split(a, b, BUCKET_MS.hour, marks.hours_ms, plan.hours, toRaw);
  if (bucket === 'day') split(from, to, BUCKET_MS.day, marks.days_ms, plan.days, toHours);
  else toHours(from, to);
  return plan;
}
