import { afterCommit } from '../../db/request-transaction';

export interface WorkLoopOptions<T> {
  /** Takes up to `limit` items due now, each now owned by this loop (leased); [] when nothing is due. */
  claim(limit: number): Promise<T[]>;
  /** Works one claimed item; must not reject (it records its own failures). */
  work(item: T): Promise<void>;
  /** How often due work is looked for when nothing woke the loop. */
  pollMs: number;
  /** Items worked at once. */
  concurrency: number;
  /** A failed claim, reported and retried at the next poll. */
  onClaimError(error: unknown): void;
}

export interface WorkLoop {
  /** Work may be due now: claim at once instead of at the next poll. */
  wake(): void;
  /** Works every item due now, and waits for them: for tests with a manual clock. Returns how many were claimed. */
  drain(): Promise<number>;
  /** No more claims; waits for the tick and the work under way. */
  stop(): Promise<void>;
}

/**
 * Claims and works due items, at most `concurrency` at a time: one tick at a time claims until the slots are full or
 * nothing is due, a finished item wakes a tick for the next, and a poll looks again when nothing woke it. What is due,
 * and who owns it, is the claim's business (outbox leases): the loop only paces it.
 */
export function startWorkLoop<T>(options: WorkLoopOptions<T>): WorkLoop {
  const { concurrency, pollMs } = options;
  let inFlight = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticking: Promise<number> | undefined;
  /** A wake that came while a tick ran: that tick's claim may have run before the work was committed. */
  let wokenDuringTick = false;
  const running = new Set<Promise<void>>();

  const run = (item: T) => {
    inFlight++;
    const task = options.work(item).finally(() => {
      inFlight--;
      running.delete(task);
      if (!stopped) wake();
    });
    running.add(task);
  };

  const tick = async (): Promise<number> => {
    let started = 0;
    while (!stopped && inFlight < concurrency) {
      const claimed = await options.claim(concurrency - inFlight);
      if (claimed.length === 0) break;
      for (const item of claimed) run(item);
      started += claimed.length;
    }
    return started;
  };

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(wake, ms);
  };

  function wake(): void {
    if (stopped) return;
    if (ticking) {
      wokenDuringTick = true;
      return;
    }
    ticking = tick()
      .catch((error: unknown) => {
        options.onClaimError(error);
        return 0;
      })
      .finally(() => {
        ticking = undefined;
        schedule(wokenDuringTick ? 0 : pollMs);
        wokenDuringTick = false;
      });
  }

  schedule(0);
  return {
    // Work a request queued is committed with it: waking before then would find nothing and sleep a whole poll.
    wake: () => afterCommit(wake),
    async drain() {
      let total = 0;
      for (;;) {
        await ticking;
        const started = await tick();
        await Promise.all(running);
        total += started;
        // A background tick (a finished item wakes one) may have claimed the rest while ours found nothing, its work
        // not yet in `running` when we waited: done only when no tick runs and nothing is under way.
        if (started === 0 && ticking === undefined && running.size === 0) return total;
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await Promise.all(running);
    },
  };
}
