import type { GuardedHttp, HttpAnswer } from '../../http/guarded-http';
import { outcomeOfFailure } from '../outcome';
import type { RetryPolicy, SendOutcome } from '../types';

/**
 * Retries of the chat and Teams kinds. Both providers throttle per channel or webhook (Slack about one message a second
 * per channel, Teams a few requests a second per webhook) and say how long to wait with `Retry-After`, which the next
 * attempt honours on top of these delays. 30 s clears a burst or a brief provider hiccup without making a page late;
 * 2 and 10 minutes ride out a provider incident. After about 12 minutes a chat message is stale and the escalation
 * chain (other rules, other channels) is the better way to reach someone. 10 s per request, like the webhook kind:
 * both providers answer in well under a second when healthy.
 */
/** Chat providers take about one message per second per channel (Slack's documented limit): paced, not refused. */
export const CHAT_RETRY_POLICY: RetryPolicy = {
  delaysMs: [30_000, 120_000, 600_000],
  timeoutMs: 10_000,
  minIntervalMs: 1000,
};

/** POSTs JSON through the guarded client; resolves with the answer, or with the outcome when there was none. */
export async function postJson(
  http: GuardedHttp,
  url: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer | SendOutcome> {
  try {
    return await http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'svc-notifications/1', ...headers },
      body: JSON.stringify(payload),
      timeoutMs: CHAT_RETRY_POLICY.timeoutMs,
    });
  } catch (error) {
    return outcomeOfFailure(error);
  }
}

/** Whether {@link postJson} got an answer. */
export const isAnswer = (result: HttpAnswer | SendOutcome): result is HttpAnswer => 'latencyMs' in result;
