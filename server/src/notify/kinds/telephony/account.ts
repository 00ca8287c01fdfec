import { invalidField } from '../config-fields';
import { readObject, readString, type JsonObject } from '../../../json/read';
import type { Integrations } from '../types';

/**
 * The telephony account as the API shows it (`GET /control-plane/integrations/telephony`). Type aliases, not
 * interfaces, so both stay assignable to the `Record<string, unknown>` of a stored `Integration`.
 */
export type TelephonyConfig = {
  /** The only provider so far. */
  provider: 'twilio';
  account_sid: string;
  /** The caller id of calls and, without a messaging service, the sender of SMS. */
  from: string | null;
  /** Sends SMS through a Twilio Messaging Service (its sender pool) instead of `from`. */
  messaging_service_sid: string | null;
  /** Without a trailing slash. */
  api_base_url: string;
};

/** Stored encrypted, never returned. */
export type TelephonySecrets = {
  auth_token: string;
};

export type TelephonyAccount = TelephonyConfig & TelephonySecrets;

export const TWILIO_API_BASE_URL = 'https://api.twilio.com';

/** E.164: a `+`, then 8 to 15 digits, the first not 0. */
export const E164 = /^\+[1-9]\d{7,14}$/;
export const ACCOUNT_SID = /^AC[0-9a-f]{32}$/i;
export const MESSAGING_SERVICE_SID = /^MG[0-9a-f]{32}$/i;

/** True when `number` is an E.164 telephone number. */
export const isE164 = (number: string): boolean => E164.test(number);

/**
 * Validates the body of `PUT /control-plane/integrations/telephony` and splits out the secret. Throws an `invalid` DomainError
 * naming the field as sent (`account_sid`, `from`, …).
 */
export function parseTelephonyIntegration(input: unknown): { config: TelephonyConfig; secrets: TelephonySecrets } {
  const body = readObject(input, 'body');
  const provider = readString(body.provider, 'provider') ?? 'twilio';
  if (provider !== 'twilio')
    throw invalidField(`provider must be "twilio", the only telephony provider supported`, 'provider');

  const accountSid = required(body, 'account_sid');
  if (!ACCOUNT_SID.test(accountSid))
    throw invalidField('account_sid must be "AC" followed by 32 hexadecimal characters', 'account_sid');
  const authToken = required(body, 'auth_token');
  if (/\s/.test(authToken)) throw invalidField('auth_token must not contain whitespace', 'auth_token');

  const from = readString(body.from, 'from') ?? null;
  if (from !== null && !isE164(from))
    throw invalidField('from must be an E.164 number: "+" and 8 to 15 digits', 'from');
  const messagingServiceSid = readString(body.messaging_service_sid, 'messaging_service_sid') ?? null;
  if (messagingServiceSid !== null && !MESSAGING_SERVICE_SID.test(messagingServiceSid)) {
    throw invalidField(
      'messaging_service_sid must be "MG" followed by 32 hexadecimal characters',
      'messaging_service_sid',
    );
  }
  if (from === null && messagingServiceSid === null) {
    throw invalidField('from is required (or messaging_service_sid, which only sends SMS)', 'from');
  }

  return {
    config: {
      provider,
      account_sid: accountSid,
      from,
      messaging_service_sid: messagingServiceSid,
      api_base_url: apiBaseUrl(body.api_base_url),
    },
    secrets: { auth_token: authToken },
  };
}

/**
 * The project's telephony account, read back from the stored integration; undefined when none is connected.
 * Throws an `invalid` DomainError if the stored integration no longer validates.
 */
export async function readTelephonyAccount(integrations: Integrations): Promise<TelephonyAccount | undefined> {
  const stored = await integrations.get('telephony');
  if (!stored) return undefined;
  const { config, secrets } = parseTelephonyIntegration({ ...stored.config, ...stored.secrets });
  return { ...config, ...secrets };
}

function required(body: JsonObject, field: string): string {
  const value = readString(body[field], field);
  if (!value) throw invalidField(`${field} is required`, field);
  return value;
}

/** A proxy or a local stand-in may sit under a path, but credentials, queries and fragments have no place here. */
function apiBaseUrl(value: unknown): string {
  const text = readString(value, 'api_base_url');
  if (text === undefined) return TWILIO_API_BASE_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField('api_base_url must be an absolute http(s) URL', 'api_base_url');
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username ||
    url.password ||
    url.search ||
    url.hash
  ) {
    throw invalidField('api_base_url must be an http(s) URL without credentials, query or fragment', 'api_base_url');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
