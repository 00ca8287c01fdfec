import { DomainError } from '../../../shared/domain-errors';
import { readObject, readString } from '../../../json/read';
import { isE164, readTelephonyAccount, type TelephonyAccount } from './account';
import { createTwilioResource, type TwilioResource } from './client';
import { sendToEach } from './fanout';
import type { ChannelKind, Integrations, Notice, RetryPolicy } from '../types';
import { invalidField } from '../config-fields';

/** The config of the `sms` and `voice` kinds; the account they send through is the project's telephony integration. */
export interface PhoneRecipients {
  /** E.164 numbers. */
  to: string[];
}

/** These kinds keep no secret of their own: the auth token belongs to the telephony integration. */
export type NoSecrets = Record<string, never>;

export const MAX_PHONE_RECIPIENTS = 10;

/**
 * Twilio's 429 (too many concurrent requests) and 5xx pass within minutes, and a page that arrives more than about
 * twenty minutes late has lost most of its worth, so three retries after 1, 5 and 15 minutes. 10 s per request:
 * Twilio answers in well under a second when healthy.
 */
export const TELEPHONY_RETRY: RetryPolicy = { delaysMs: [60_000, 5 * 60_000, 15 * 60_000], timeoutMs: 10_000 };

const CONNECT_FIRST = 'connect a telephony account first: PUT /control-plane/integrations/telephony';

export interface TelephonyKindSpec {
  type: 'sms' | 'voice';
  resource: TwilioResource;
  /** The sender fields (`From` or `MessagingServiceSid`), or undefined when the account cannot send this kind. */
  sender(account: TelephonyAccount): Record<string, string> | undefined;
  /** What the account lacks when `sender` gives nothing: the 400 and the failed delivery say it. */
  missingSender: string;
  /** The content fields: `Body` of an SMS, `Twiml` of a call. */
  content(notice: Notice): Record<string, string>;
}

/** A channel kind that reaches a list of phone numbers through the project's telephony account, one request each. */
export function createTelephonyKind(spec: TelephonyKindSpec): ChannelKind<PhoneRecipients, NoSecrets> {
  return {
    type: spec.type,
    retry: TELEPHONY_RETRY,

    async parse(config, context) {
      const account = await accountForParse(context.integrations);
      if (!spec.sender(account)) throw invalidField(`config: ${spec.missingSender}`, 'config');
      return { config: parsePhoneRecipients(config), secrets: {} };
    },

    publicConfig: (config) => ({ to: [...config.to] }),

    async send(context) {
      let account: TelephonyAccount | undefined;
      try {
        account = await readTelephonyAccount(context.integrations);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return {
          state: 'failed',
          errorClass: 'telephony_invalid',
          message: `the telephony account no longer validates: ${error.message}`,
        };
      }
      if (!account) return { state: 'failed', errorClass: 'telephony_not_connected', message: CONNECT_FIRST };
      const sender = spec.sender(account);
      if (!sender) return { state: 'failed', errorClass: 'telephony_no_sender', message: spec.missingSender };
      const content = spec.content(context.notice);
      const { http, clock } = context;
      return sendToEach(context.config.to, context, (to) =>
        createTwilioResource({
          http,
          clock,
          account,
          resource: spec.resource,
          form: { To: to, ...sender, ...content },
          timeoutMs: TELEPHONY_RETRY.timeoutMs,
        }),
      );
    },
  };
}

async function accountForParse(integrations: Integrations): Promise<TelephonyAccount> {
  const account = await readTelephonyAccount(integrations);
  if (!account) throw invalidField(`config: ${CONNECT_FIRST}`, 'config');
  return account;
}

/**
 * `config.to`: 1 to 10 E.164 numbers. Spaces, dashes, dots and brackets people write numbers with are dropped
 * (`+1 (415) 555-0100` is `+14155550100`); a number listed twice is refused rather than called twice.
 */
export function parsePhoneRecipients(config: unknown): PhoneRecipients {
  const object = readObject(config, 'config');
  if (!Array.isArray(object.to) || object.to.length === 0 || object.to.length > MAX_PHONE_RECIPIENTS) {
    throw invalidField(`config.to must be a list of 1 to ${MAX_PHONE_RECIPIENTS} phone numbers`, 'config.to');
  }
  const to: string[] = [];
  object.to.forEach((value, index) => {
    const field = `config.to[${index}]`;
    const number = readString(value, field)?.replace(/[\s().-]/g, '');
    if (!number || !isE164(number))
      throw invalidField(`${field} must be an E.164 number: "+" and 8 to 15 digits`, field);
    if (to.includes(number)) throw invalidField(`${field} repeats ${number}`, field);
    to.push(number);
  });
  return { to };
}
