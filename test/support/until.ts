import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` until it returns a value; fails naming `what` once `timeoutMs` has passed without one. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
