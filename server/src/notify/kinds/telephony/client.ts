import type { Clock } from '../../../clock';
import type { GuardedHttp, HttpAnswer } from '../../http/guarded-http';
import { outcomeOfAnswer, outcomeOfFailure } from '../outcome';
import type { TelephonyAccount } from './account';
import type { SendOutcome } from '../types';

/** The Twilio REST resources the kinds create: an SMS or a call. */
export type TwilioResource = 'Messages' | 'Calls';

export interface TwilioRequest {
  http: GuardedHttp;
  clock: Clock;
  account: TelephonyAccount;
  resource: TwilioResource;
  /** Form fields: `To`, `From`/`MessagingServiceSid`, `Body` or `Twiml`. */
  form: Record<string, string>;
  timeoutMs: number;
}

/**
 * Creates one Message or Call (`POST /2010-04-01/Accounts/{AccountSid}/{resource}.json`, form-encoded, HTTP Basic
 * auth) and maps Twilio's answer: 2xx → `sent` with the SID (Twilio only queued it); 408, 429 and 5xx → `retry`,
 * honouring `Retry-After`; any other 4xx → `failed` as `provider_<code>` (21211: invalid `To` number, 20003: bad
 * credentials, …).
 */
export async function createTwilioResource(request: TwilioRequest): Promise<SendOutcome> {
  const { account } = request;
  const url = `${account.api_base_url}/2010-04-01/Accounts/${encodeURIComponent(account.account_sid)}/${request.resource}.json`;
  let answer: HttpAnswer;
  try {
    answer = await request.http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${account.account_sid}:${account.auth_token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams(request.form).toString(),
      timeoutMs: request.timeoutMs,
    });
  } catch (error) {
    return outcomeOfFailure(error);
  }
  return outcomeOf(answer, request.clock);
}

/** The common HTTP mapping, with Twilio's words: `sent` (queued, not delivered), its SID, its error code and message. */
function outcomeOf(answer: HttpAnswer, clock: Clock): SendOutcome {
  const outcome = outcomeOfAnswer(answer, clock.now());
  const reply = twilioReply(answer.body);
  switch (outcome.state) {
    case 'retry':
      return { ...outcome, message: reply.message ?? outcome.message };
    case 'failed':
      return {
        ...outcome,
        message: reply.message ?? outcome.message,
        ...(reply.code !== undefined ? { errorClass: `provider_${reply.code}` } : {}),
      };
    default:
      return { ...outcome, state: 'sent', ...(reply.sid ? { providerRef: reply.sid } : {}) };
  }
}

/** The fields of Twilio's JSON answers the log uses: `sid` on success, `code` and `message` on error. */
function twilioReply(body: string): { sid?: string; code?: number; message?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const { sid, code, message } = parsed as Record<string, unknown>;
  return {
    ...(typeof sid === 'string' ? { sid } : {}),
    ...(typeof code === 'number' ? { code } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}
