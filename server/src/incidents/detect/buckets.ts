/** Error counts over time, `[bucket start ms, errors]`, oldest first: a group's recent rate in a few numbers. */
export type Buckets = Array<[number, number]>;

/** Buckets per window: counts at the window's edge are off by at most a tenth of it. */
const BUCKETS_PER_WINDOW = 10;

export function bucketWidth(windowMs: number): number {
  return Math.max(1000, Math.round(windowMs / BUCKETS_PER_WINDOW));
}

/** `buckets` with `times` added, keeping only the buckets that can still overlap a window ending at or after `now`. */
export function addToBuckets(buckets: Buckets, times: number[], windowMs: number, now: number): Buckets {
  const width = bucketWidth(windowMs);
  const counts = new Map(buckets);
  for (const t of times) {
    const start = t - (t % width);
    counts.set(start, (counts.get(start) ?? 0) + 1);
  }
  return [...counts].filter(([start]) => start + width > now - windowMs).sort((a, b) => a[0] - b[0]);
}

/** Errors in the window ending at `now`, counting every bucket that overlaps it. */
export function countInWindow(buckets: Buckets, windowMs: number, now: number): number {
  const width = bucketWidth(windowMs);
  return buckets.reduce((sum, [start, n]) => (start + width > now - windowMs && start <= now ? sum + n : sum), 0);
}
