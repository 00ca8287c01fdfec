/**
 * `performance.timeOrigin + performance.now()` drifts from the wall clock on long-lived pages (the monotonic clock
 * stops while the computer sleeps), so past this distance from `Date.now()` the wall clock is used instead.
 */
const MAX_DRIFT_MS = 1000;

/** Current time as Unix epoch milliseconds, with sub-millisecond precision where the browser offers it. */
export function nowMs(): number {
  const wall = Date.now();
  const perf = globalThis.performance;
  if (perf === undefined || typeof perf.now !== 'function' || !(perf.timeOrigin > 0)) return wall;
  const precise = perf.timeOrigin + perf.now();
  return Math.abs(precise - wall) <= MAX_DRIFT_MS ? precise : wall;
}
