import type { SendOutcome } from '../kinds/types';

/** Where a delivery stands after an attempt. */
export type DeliveryState = 'delivered' | 'sent' | 'retrying' | 'failed';

/**
 * A delivery's state after attempt number `attempt` (1-based) ended in `outcome`, and when it is tried again: a
 * retryable outcome waits the policy's delay for that attempt, or the receiver's `Retry-After` when longer, until the
 * delays run out, and then fails.
 */
export function afterAttempt(
  outcome: SendOutcome,
  attempt: number,
  delaysMs: readonly number[],
): { state: DeliveryState; retryInMs: number | undefined } {
  if (outcome.state !== 'retry') return { state: outcome.state, retryInMs: undefined };
  if (attempt > delaysMs.length) return { state: 'failed', retryInMs: undefined };
  return { state: 'retrying', retryInMs: Math.max(delaysMs[attempt - 1]!, outcome.retryAfterMs ?? 0) };
}
