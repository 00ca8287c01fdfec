/**
 * When to retry an ingest request and how long to wait first.
 *
 * Retried: network errors and timeouts, 408, 429 and 5xx. Any other status is final (2xx delivered; other 4xx
 * refused for good: resending the same body cannot succeed). Waits use exponential backoff with full jitter (a
 * uniformly random delay between 0 and the exponential ceiling), so that many pages recovering from the same outage
 * do not retry in step; a `Retry-After` from the server replaces the computed delay.
 */

/** Numbers of the retry schedule (ms). */
export interface RetryPolicy {
  /** Ceiling of the first wait; it doubles after each consecutive failure. */
  readonly baseDelayMs: number;
  /** Largest ceiling of a computed wait. */
  readonly maxDelayMs: number;
  /** A `Retry-After` longer than this is shortened to it, so one bad header cannot silence a page for hours. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 300_000,
});

/** What an HTTP status means for the records in the request. */
export function statusVerdict(status: number): 'delivered' | 'retry' | 'refused' {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'refused';
}

/**
 * Milliseconds to wait according to a `Retry-After` header: delay-seconds or an HTTP date (relative to `nowMs`).
 * Undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | undefined {
  const value = header && header.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * The wait before the next attempt after `failures` consecutive failures (1 for the first): the server's
 * `Retry-After` when it sent one, else full jitter under `min(maxDelayMs, baseDelayMs * 2^(failures-1))`.
 * `random` returns a number in [0, 1), like `Math.random`.
 */
export function retryDelay(
  failures: number,
  retryAfterMs: number | undefined,
  random: () => number,
  policy: RetryPolicy,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.floor(random() * ceiling);
}
