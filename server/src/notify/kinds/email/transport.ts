import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type Mail from 'nodemailer/lib/mailer';
import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { isBlockedAddress, PRIVATE_TARGETS_HINT } from '../../http/ssrf';
import type { SmtpSettings } from './config';
import { MAX_STORED_BODY } from '../outcome';
import type { SendOutcome } from '../types';

export interface SmtpSend {
  smtp: SmtpSettings;
  password: string | null;
  /** Lets the mail server be on loopback or a private network (`--allow-private-targets`). */
  allowPrivateTargets: boolean;
  /** Bounds the DNS lookup, the connection, the greeting and each wait for a reply. */
  timeoutMs: number;
  message: Mail.Options;
}

/**
 * Sends one message over SMTP and maps the result: 250 → `sent` (the server took it; delivery is not confirmed) with
 * the Message-ID; 4xx replies, connection trouble and timeouts → `retry`; 5xx replies → `failed` (`smtp_5xx`). A
 * message some recipients refused is `failed` too, naming them: the others already have it, so a retry would send it
 * to them twice. The `status` of the outcome is the SMTP reply code.
 *
 * The host is resolved here and the connection goes to the checked address (SSRF guard, as guarded-http does for
 * HTTP), with the host name kept for SNI and certificate verification.
 */
export async function sendBySmtp(send: SmtpSend): Promise<SendOutcome> {
  const target = await resolveTarget(send.smtp.host, send.allowPrivateTargets, send.timeoutMs);
  if ('state' in target) return target;
  // Loaded on the first mail: most servers send none, and nodemailer costs every start-up its load time.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: target.address,
    port: send.smtp.port,
    secure: send.smtp.secure,
    requireTLS: send.smtp.require_tls,
    ...(send.smtp.user && send.password ? { auth: { user: send.smtp.user, pass: send.password } } : {}),
    ...(isIP(send.smtp.host) === 0 ? { tls: { servername: send.smtp.host } } : {}),
    connectionTimeout: send.timeoutMs,
    greetingTimeout: send.timeoutMs,
    socketTimeout: send.timeoutMs,
  } satisfies SMTPTransport.Options);
  try {
    const info = await transport.sendMail(send.message);
    return acceptedOutcome(info);
  } catch (error) {
    return failureOutcome(error as SMTPConnection.SMTPError);
  } finally {
    transport.close();
  }
}

async function resolveTarget(
  host: string,
  allowPrivate: boolean,
  timeoutMs: number,
): Promise<{ address: string } | SendOutcome> {
  const allowed = (address: string) => allowPrivate || !isBlockedAddress(address);
  if (isIP(host) !== 0) {
    return allowed(host)
      ? { address: host }
      : {
          state: 'failed',
          errorClass: 'ssrf_blocked',
          message: `${host} is a private or reserved address: ${PRIVATE_TARGETS_HINT}`,
        };
  }
  let addresses: string[];
  try {
    addresses = (await withTimeout(lookup(host, { all: true }), timeoutMs)).map((entry) => entry.address);
  } catch (error) {
    return {
      state: 'retry',
      errorClass: 'dns',
      message: `${host}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const usable = addresses.find(allowed);
  return usable
    ? { address: usable }
    : {
        state: 'failed',
        errorClass: 'ssrf_blocked',
        message: `${host} resolves only to private or reserved addresses: ${PRIVATE_TARGETS_HINT}`,
      };
}

function acceptedOutcome(info: SMTPTransport.SentMessageInfo): SendOutcome {
  const body = info.response.slice(0, MAX_STORED_BODY);
  const refusals = (info as { rejectedErrors?: SMTPConnection.SMTPError[] }).rejectedErrors ?? [];
  if (info.rejected.length > 0) {
    const first = refusals[0];
    const code = first?.responseCode;
    return {
      state: 'failed',
      ...(code ? { status: code } : {}),
      body: refusals
        .map((refusal) => refusal.response ?? refusal.message)
        .join('\n')
        .slice(0, MAX_STORED_BODY),
      errorClass: code && code < 500 ? 'smtp_4xx' : 'smtp_5xx',
      message: `${info.accepted.length} of ${info.accepted.length + info.rejected.length} recipients accepted; refused: ${info.rejected.map(addressOf).join(', ')}`,
    };
  }
  return { state: 'sent', status: replyCode(info.response) ?? 250, body, providerRef: info.messageId };
}

function failureOutcome(error: SMTPConnection.SMTPError): SendOutcome {
  const message = error.message;
  const status = error.responseCode;
  const body = error.response?.slice(0, MAX_STORED_BODY);
  const reply = { ...(status ? { status } : {}), ...(body ? { body } : {}), message };
  if (status && status >= 500) return { state: 'failed', errorClass: 'smtp_5xx', ...reply };
  if (status && status >= 400) return { state: 'retry', errorClass: 'smtp_4xx', ...reply };
  switch (error.code) {
    case 'ETIMEDOUT':
      return { state: 'retry', errorClass: 'timeout', ...reply };
    case 'EDNS':
      return { state: 'retry', errorClass: 'dns', ...reply };
    case 'ETLS':
      return { state: 'retry', errorClass: 'tls', ...reply };
    case 'ECONNECTION':
    case 'ESOCKET':
      return { state: 'retry', errorClass: 'connect', ...reply };
    // Refused before anything reached the server (no credentials for AUTH, an address nodemailer will not send to).
    case 'EENVELOPE':
    case 'EMESSAGE':
    case 'EAUTH':
    case 'ENOAUTH':
      return { state: 'failed', errorClass: 'smtp_client', ...reply };
    default:
      return { state: 'retry', errorClass: 'network', ...reply };
  }
}

const replyCode = (response: string): number | undefined => {
  const code = /^\d{3}/.exec(response)?.[0];
  return code ? Number(code) : undefined;
};

const addressOf = (recipient: string | Mail.Address): string =>
  typeof recipient === 'string' ? recipient : recipient.address;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
