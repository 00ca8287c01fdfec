import { afterCommit } from '../../db/request-transaction';

/** Runs passes over due work one at a time: now when woken, else every `pollMs`. */
export interface PassLoop {
  /** Runs a pass soon (a sync may have fallen due). */
  wake(): void;
  /** Runs a pass after the one under way, if any, and answers what it did. */
  runDue(): Promise<number>;
  /** No pass starts after this; answers once the one under way has ended. */
  stop(): Promise<void>;
}

/**
 * `pass(stopped)` does the work due and answers how much; it should look at `stopped()` before taking more. One pass
 * runs at a time in a process: a wake during a pass runs another one after it. A pass that throws is logged, and the
 * loop goes on at its next poll.
 */
export function startPassLoop(
  pass: (stopped: () => boolean) => Promise<number>,
  pollMs: number,
  log: (error: unknown) => void,
): PassLoop {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<number> | undefined;
  const isStopped = () => stopped;
  const tick = () => pass(isStopped);

  const runDue = (): Promise<number> => {
    const next = (running ?? Promise.resolve(0)).then(tick, tick);
    running = next;
    return next;
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      void runDue()
        .catch(log)
        .finally(() => schedule(pollMs));
    }, delay);
  };
  schedule(0);

  return {
    // A sync a request asked for is committed with it: a pass started before then would not see it.
    wake: () => afterCommit(() => schedule(0)),
    runDue,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
