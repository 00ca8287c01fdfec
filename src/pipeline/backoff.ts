import { explain } from './outcomes';
import type { PipelineState } from './pipeline-state';
import { DEFAULT_RETRY_POLICY, retryDelay } from './retry';
import type { SendResult } from './transport';

export type Retry = Extract<SendResult, { verdict_: 'retry' }>;

/**
 * Pauses sending for the retry delay after `failuresSoFar` failures (or the server's `Retry-After`), and says so; a
 * 429 (over a rate limit or quota) is warned about once, even without `debug`.
 */
export function backoff(state: PipelineState, url: string, result: Retry, failuresSoFar: number): void {
  const { clock_: clock } = state;
  const policy = state.options_.retryPolicy || DEFAULT_RETRY_POLICY;
  const delay = retryDelay(failuresSoFar, result.retryAfterMs_, clock.random, policy);
  state.pausedUntil_ = Math.max(state.pausedUntil_, clock.now() + delay);
  // The server's own wait holds for the origin's next page loads too: a full quota is not retried by each of them.
  if (result.retryAfterMs_ !== undefined && state.persistence_) state.persistence_.pause_(state.pausedUntil_);
  if (result.status_ === 429) explain(state, url, 429, result.detail_!);
  state.debug_.warn(`sending to ${url} failed (${result.reason_}); retrying in ${delay} ms`);
}

/** A request outside a flush failed: one more step of the backoff. */
export function failedOutsideFlush(state: PipelineState, url: string, result: Retry): void {
  state.failures_ += 1;
  backoff(state, url, result, state.failures_);
}
