/** `+1:05.3`: minutes, seconds and tenths from the start of the replay (`−` before it). */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? '−' : '+';
  const abs = Math.round(Math.abs(ms) / 100) * 100;
  const minutes = Math.floor(abs / 60_000);
  const seconds = ((abs % 60_000) / 1000).toFixed(1).padStart(4, '0');
  return `${sign}${minutes}:${seconds}`;
}

/** Index of the last item at or before `at` in a list sorted by time; -1 when none is. */
export function lastAtOrBefore(items: ReadonlyArray<{ at: number }>, at: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.at <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
