/** Waits for a channel's turn: `pace(channel, interval)` resolves once `interval` ms have passed since its last turn. */
export type Pace = (channelId: string, minIntervalMs: number | undefined) => Promise<void>;

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * When each channel may next be sent to (RetryPolicy.minIntervalMs), in this process. A paced attempt waits while
 * holding its lease: at most `concurrency` × the interval (32 s for chat), well inside the 60 s lease. `now` and `wait`
 * are the clock and the timer, so a test can read the schedule without waiting it out.
 */
export function createPacer(now: () => number = Date.now, wait: (ms: number) => Promise<void> = timer): Pace {
  const nextSlot = new Map<string, number>();
  return async (channelId, minIntervalMs) => {
    if (!minIntervalMs) return;
    const at = now();
    const slot = Math.max(at, nextSlot.get(channelId) ?? 0);
    nextSlot.set(channelId, slot + minIntervalMs);
    if (slot > at) await wait(slot - at);
  };
}
