import type { DebugLog } from '../core/core';
import type { PipelineClock } from './clock';
import { retryDelay, type RetryPolicy } from './retry';
import type { SendResult } from './transport';

export type Retry = Extract<SendResult, { verdict: 'retry' }>;

/**
 * Consecutive failures and the pause they impose: no sending before it ends (except at unload and shutdown). A tuple,
 * like the pipeline's other units (see DropLedger).
 */
export type Backoff = readonly [
  /** Consecutive failures so far: failed flushes, and failed `postJson` and unload requests. */
  failures: () => number,
  /** Milliseconds until sending may resume; zero or less when it may now. */
  wait: () => number,
  /** A request to `url` failed, the `nth` failure in a row: sending pauses for its delay (the longest pause wins). */
  pause: (url: string, result: Retry, nth: number) => void,
  /** One more failure in a row, paused for. */
  fail: (url: string, result: Retry) => void,
  /** A flush ended: one step of the backoff when any of its requests failed, however many; else the count restarts. */
  flushed: (failed: boolean) => void,
];

export function createBackoff(
  clock: Pick<PipelineClock, 'now' | 'random'>,
  policy: RetryPolicy,
  debug: Pick<DebugLog, 'warn'>,
): Backoff {
  let failures = 0;
  let pausedUntil = 0;
  const pause = (url: string, result: Retry, nth: number): void => {
    const delay = retryDelay(nth, result.retryAfterMs, clock.random, policy);
    pausedUntil = Math.max(pausedUntil, clock.now() + delay);
    debug.warn(`sending to ${url} failed (${result.reason}); retrying in ${delay} ms`);
  };
  return [
    () => failures,
    () => pausedUntil - clock.now(),
    pause,
    (url, result) => pause(url, result, ++failures),
    (failed) => {
      failures = failed ? failures + 1 : 0;
    },
  ];
}
