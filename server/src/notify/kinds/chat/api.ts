import type { Clock } from '../../../clock';
import type { ChatAppAccount } from '../../../integrations/chat/account';
import type { GuardedHttp, HttpAnswer } from '../../http/guarded-http';
import { isAnswer, postJson } from './http';
import { MAX_STORED_BODY, outcomeOfAnswer, retryAfterMs } from '../outcome';
import type { SendOutcome } from '../types';

/** A message the Web API took: where it is (`channel` is the id, which `chat.update` needs) and the answer. */
export interface PostedMessage {
  ok: true;
  channel: string;
  ts: string;
  answer: HttpAnswer;
}

/** A call that did not take, as the delivery outcome it becomes (`retry` or `failed`). */
export interface ApiRefusal {
  ok: false;
  outcome: SendOutcome;
}

/** Web API `error` words worth another attempt; anything else (channel_not_found, not_in_channel, invalid_auth, …) is final. */
const TRANSIENT_ERRORS = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

export interface ChatApi {
  /** Calls a `chat.*` method with a JSON body. The Web API answers HTTP 200 `{ ok: false, error }` for most refusals. */
  call(method: 'chat.postMessage' | 'chat.update', body: Record<string, unknown>): Promise<PostedMessage | ApiRefusal>;
}

/** The Web API client of the chat kind: Bearer bot token, JSON bodies, through the guarded client. */
export function chatApi(http: GuardedHttp, account: ChatAppAccount, clock: Clock): ChatApi {
  return {
    async call(method, body) {
      const result = await postJson(http, `${account.apiBaseUrl}/${method}`, body, {
        authorization: `Bearer ${account.botToken}`,
      });
      if (!isAnswer(result)) return { ok: false, outcome: result };
      return readAnswer(method, result, clock);
    },
  };
}

function readAnswer(method: string, answer: HttpAnswer, clock: Clock): PostedMessage | ApiRefusal {
  if (answer.status < 200 || answer.status >= 300) return { ok: false, outcome: outcomeOfAnswer(answer, clock.now()) };
  const reply = parseReply(answer.body);
  const status = answer.status;
  const body = answer.body.slice(0, MAX_STORED_BODY);
  if (!reply) {
    const message = `${method} answered something other than Web API JSON; check the integration's api_base_url`;
    return { ok: false, outcome: { state: 'failed', status, body, errorClass: 'invalid_response', message } };
  }
  if (reply.ok === true && typeof reply.ts === 'string' && typeof reply.channel === 'string') {
    return { ok: true, channel: reply.channel, ts: reply.ts, answer };
  }
  const error = typeof reply.error === 'string' ? reply.error : 'unknown_error';
  const message = `${method} failed: ${error}`;
  const outcome: SendOutcome = TRANSIENT_ERRORS.has(error)
    ? {
        state: 'retry',
        status,
        body,
        errorClass: error,
        message,
        retryAfterMs: retryAfterMs(answer.headers['retry-after'], clock.now()),
      }
    : { state: 'failed', status, body, errorClass: error, message };
  return { ok: false, outcome };
}

function parseReply(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
