import { afterEach, describe, expect, it } from 'vitest';
import { afterAttempt } from '../../server/src/notify/outbox/backoff';
import { startWorkLoop, type WorkLoop, type WorkLoopOptions } from '../../server/src/notify/outbox/loop';
import { createPacer } from '../../server/src/notify/outbox/pacer';

/** A promise and its resolver: work that finishes when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** A queue of due items claimed in order; the loop under test with a long poll, so only wakes and drains move it. */
function queueLoop(items: number[], options: Partial<WorkLoopOptions<number>> = {}) {
  const due = [...items];
  const worked: number[] = [];
  const claims: number[] = [];
  const loop = startWorkLoop<number>({
    pollMs: 60_000,
    concurrency: 2,
    claim: async (limit) => {
      claims.push(limit);
      return due.splice(0, limit);
    },
    work: async (item) => void worked.push(item),
    onClaimError: () => undefined,
    ...options,
  });
  return { loop, due, worked, claims };
}

const loops: WorkLoop[] = [];
afterEach(async () => {
  await Promise.all(loops.splice(0).map((loop) => loop.stop()));
});

describe('outbox work loop (server/src/notify/outbox/loop.ts)', () => {
  it('drain works everything due, never more than `concurrency` at once, and counts what it claimed', async () => {
    let running = 0;
    let most = 0;
    const q = queueLoop([1, 2, 3, 4, 5], {
      work: async (item) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        q.worked.push(item);
      },
    });
    loops.push(q.loop);
    const drained = await q.loop.drain();
    expect(q.worked.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBeLessThanOrEqual(2);
    expect(q.claims.every((limit) => limit >= 1 && limit <= 2)).toBe(true);
    // The first background tick (scheduled at start) may have claimed some before drain did.
    expect(drained).toBeLessThanOrEqual(5);
    expect(q.due).toEqual([]);
  });

  it('drain waits for work a background tick claimed while its own tick found nothing', async () => {
    const first = gate();
    const due: number[] = [];
    const worked: number[] = [];
    let working = false;
    const loop = startWorkLoop<number>({
      pollMs: 60_000,
      concurrency: 1,
      // Like a database: the rows are taken at once, the answer comes back later.
      claim: async (limit) => {
        const items = due.splice(0, limit);
        await new Promise((resolve) => setImmediate(resolve));
        return items;
      },
      work: async (item) => {
        if (item === 1) {
          working = true;
          await first.opened;
          // Finishing wakes a background tick; the next item only becomes due now, so that tick claims it.
          due.push(2);
        }
        worked.push(item);
      },
      onClaimError: () => undefined,
    });
    loops.push(loop);
    due.push(1);
    loop.wake();
    await until(() => working);
    await new Promise((resolve) => setImmediate(resolve));
    // Drain's own tick finds the only slot taken by item 1, and nothing due once it is done: item 2 is the background's.
    const drained = loop.drain();
    first.open();
    await drained;
    expect(worked).toEqual([1, 2]);
  });

  it('a wake during a tick claims again at once rather than at the next poll', async () => {
    const claiming = gate();
    let calls = 0;
    const due: number[] = [];
    const worked: number[] = [];
    const loop = startWorkLoop<number>({
      pollMs: 60_000,
      concurrency: 4,
      claim: async (limit) => {
        calls++;
        const items = due.splice(0, limit);
        if (calls === 1) await claiming.opened;
        return items;
      },
      work: async (item) => void worked.push(item),
      onClaimError: () => undefined,
    });
    loops.push(loop);
    // The first tick's claim runs before the item is committed; the wake that follows the commit must not be lost.
    await until(() => calls === 1);
    due.push(7);
    loop.wake();
    claiming.open();
    await until(() => worked.length === 1);
    expect(worked).toEqual([7]);
  });

  it('reports a failed claim and tries again on the next wake', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const due = [1];
    const worked: number[] = [];
    const loop = startWorkLoop<number>({
      pollMs: 60_000,
      concurrency: 1,
      claim: async (limit) => {
        if (fail) throw new Error('database is locked');
        return due.splice(0, limit);
      },
      work: async (item) => void worked.push(item),
      onClaimError: (error) => errors.push(error),
    });
    loops.push(loop);
    await until(() => errors.length === 1);
    expect((errors[0] as Error).message).toBe('database is locked');
    fail = false;
    loop.wake();
    await until(() => worked.length === 1);
  });

  it('stop waits for the work under way and claims nothing after', async () => {
    const finish = gate();
    let finished = false;
    const q = queueLoop([1], {
      work: async () => {
        await finish.opened;
        finished = true;
      },
    });
    await until(() => q.due.length === 0);
    const stopped = q.loop.stop();
    q.due.push(2);
    finish.open();
    await stopped;
    expect(finished).toBe(true);
    q.loop.wake();
    expect(q.due).toEqual([2]);
  });
});

describe('outbox backoff (server/src/notify/outbox/backoff.ts)', () => {
  const retry = (retryAfterMs?: number) =>
    ({ state: 'retry', errorClass: 'http_5xx', message: '503', retryAfterMs }) as const;

  it('keeps a final outcome as the delivery state, with no next attempt', () => {
    expect(afterAttempt({ state: 'delivered' }, 1, [1000])).toEqual({ state: 'delivered', retryInMs: undefined });
    expect(afterAttempt({ state: 'sent' }, 1, [1000])).toEqual({ state: 'sent', retryInMs: undefined });
    const failed = { state: 'failed', errorClass: 'http_4xx', message: '404' } as const;
    expect(afterAttempt(failed, 1, [1000])).toEqual({ state: 'failed', retryInMs: undefined });
  });

  it("retries after the policy's delay for that attempt, or the receiver's Retry-After when longer", () => {
    const delays = [1000, 5000, 30_000];
    expect(afterAttempt(retry(), 1, delays)).toEqual({ state: 'retrying', retryInMs: 1000 });
    expect(afterAttempt(retry(), 3, delays)).toEqual({ state: 'retrying', retryInMs: 30_000 });
    expect(afterAttempt(retry(60_000), 2, delays)).toEqual({ state: 'retrying', retryInMs: 60_000 });
    expect(afterAttempt(retry(10), 2, delays)).toEqual({ state: 'retrying', retryInMs: 5000 });
  });

  it('fails once the delays are used up, and at once with no delays', () => {
    expect(afterAttempt(retry(), 4, [1000, 5000, 30_000])).toEqual({ state: 'failed', retryInMs: undefined });
    expect(afterAttempt(retry(), 1, [])).toEqual({ state: 'failed', retryInMs: undefined });
  });
});

describe('outbox pacer (server/src/notify/outbox/pacer.ts)', () => {
  it("spaces one channel's turns by its interval and leaves other channels and unpaced kinds alone", async () => {
    let now = 1000;
    const pace = createPacer(() => now);
    const turns: string[] = [];
    await pace('a', 50);
    turns.push('a1');
    const second = pace('a', 50).then(() => turns.push('a2'));
    await pace('b', 50);
    turns.push('b1');
    await pace('a', undefined);
    turns.push('a-unpaced');
    expect(turns).toEqual(['a1', 'b1', 'a-unpaced']);
    now += 50;
    await second;
    expect(turns).toEqual(['a1', 'b1', 'a-unpaced', 'a2']);
  });
});

/** Waits for a condition the loop's background work makes true. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
