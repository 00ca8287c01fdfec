/**
 * Error counts over time, `[bucket start ms, errors, first event ms]`, oldest first: a group's recent rate in a few
 * numbers. Buckets are by time of receipt (the server's clock: a wrong browser clock cannot hide or fake a burst); the
 * first event time is the reporter's, where a summary says a burst began (it ends at the group's last error). Buckets
 * stored before event times were kept have only the first two.
 */
export type Buckets = Array<[start: number, errors: number, firstMs?: number]>;

/** One counted error's two times. */
export interface ErrorTimes {
  receivedMs: number;
  timeMs: number;
}

/** Buckets per window: counts at the window's edge are off by at most a tenth of it. */
const BUCKETS_PER_WINDOW = 10;

export function bucketWidth(windowMs: number): number {
  return Math.max(1000, Math.round(windowMs / BUCKETS_PER_WINDOW));
}

const min = (a: number | undefined, b: number) => (a === undefined ? b : Math.min(a, b));

/** `buckets` with `errors` added, keeping only the buckets that can still overlap a window ending at or after `now`. */
export function addToBuckets(buckets: Buckets, errors: readonly ErrorTimes[], windowMs: number, now: number): Buckets {
  const width = bucketWidth(windowMs);
  const byStart = new Map(buckets.map((b) => [b[0], b]));
  for (const { receivedMs, timeMs } of errors) {
    const start = receivedMs - (receivedMs % width);
    const [, n = 0, first] = byStart.get(start) ?? [];
    byStart.set(start, [start, n + 1, min(first, timeMs)]);
  }
  return [...byStart.values()].filter(([start]) => start + width > now - windowMs).sort((a, b) => a[0] - b[0]);
}

/** Two groups' buckets as one group's (an issue merged into another: issues/merge.ts). */
export function addBuckets(a: Buckets, b: Buckets): Buckets {
  const byStart = new Map(a.map((bucket) => [bucket[0], bucket]));
  for (const [start, n, firstMs] of b) {
    const [, m = 0, first] = byStart.get(start) ?? [];
    const earliest = first === undefined ? firstMs : firstMs === undefined ? first : Math.min(first, firstMs);
    byStart.set(start, earliest === undefined ? [start, m + n] : [start, m + n, earliest]);
  }
  return [...byStart.values()].sort((x, y) => x[0] - y[0]);
}

const inWindow = (windowMs: number, now: number) => (b: Buckets[number]) =>
  b[0] + bucketWidth(windowMs) > now - windowMs && b[0] <= now;

/** Errors in the window ending at `now`, counting every bucket that overlaps it. */
export function countInWindow(buckets: Buckets, windowMs: number, now: number): number {
  return buckets.filter(inWindow(windowMs, now)).reduce((sum, [, n]) => sum + n, 0);
}

/** The reporter's time of the first error counted in the window ending at `now`; undefined when no bucket knows it. */
export function firstEventInWindow(buckets: Buckets, windowMs: number, now: number): number | undefined {
  let first: number | undefined;
  for (const [, , firstMs] of buckets.filter(inWindow(windowMs, now)))
    if (firstMs !== undefined) first = min(first, firstMs);
  return first;
}
