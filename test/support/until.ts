import { setTimeout as sleep } from 'node:timers/promises';
import { onTestFinished } from 'vitest';

/** How often `eventually` polls, and the test it waits in when that is not the one Vitest tracks globally. */
export interface EventuallyOptions {
  everyMs?: number;
  /** A concurrent test's own `onTestFinished` (its context's): Vitest does not track concurrent tests globally. */
  onTestFinished?: typeof onTestFinished;
}

/**
 * Polls `check` until it returns a value, with no deadline of its own: the test's timeout is the only bound, so a
 * loaded machine makes the test slower, never wrong. If the test ends first (its timeout), the test's output says what
 * it was waiting for (`what`, or what it returns then) and the polling stops. Call it inside a test, not in a hook.
 */
export async function eventually<T>(
  what: string | (() => string),
  check: () => Promise<T | undefined>,
  options: EventuallyOptions = {},
): Promise<T> {
  const waitingFor = () => `the test ended while waiting for ${typeof what === 'string' ? what : what()}`;
  let ended = false;
  (options.onTestFinished ?? onTestFinished)(() => {
    if (!ended) console.error(waitingFor());
    ended = true;
  });
  for (;;) {
    const value = await check();
    if (value !== undefined) {
      ended = true;
      return value;
    }
    if (ended) throw new Error(waitingFor());
    await sleep(options.everyMs ?? 100);
  }
}
