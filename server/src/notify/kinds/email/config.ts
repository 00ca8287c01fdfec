import { isIP } from 'node:net';
import { invalidField } from '../config-fields';
import { readInteger, readObject, readString, type JsonObject } from '../../../json/read';

/** The stored config of an `email` channel; the SMTP password is kept apart, in {@link EmailSecrets}. */
export interface EmailConfig {
  to: string[];
  from: string;
  smtp: SmtpSettings;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  /** Refuse to send unless the connection is upgraded with STARTTLS. */
  require_tls: boolean;
}

export interface EmailSecrets {
  smtp_password: string | null;
}

export const MAX_EMAIL_RECIPIENTS = 50;

/** A plain address (no display name): a local part without spaces or specials, and a dotted domain. */
const ADDRESS =
  /^[^\s@<>()[\]\\,;:"]{1,64}@(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

/**
 * Validates the `config` of an `email` channel and splits out the SMTP password. Throws a `DomainError` naming the field
 * (`config.to[3]`, `config.smtp.port`, …).
 */
export function parseEmailConfig(input: unknown): { config: EmailConfig; secrets: EmailSecrets } {
  const config = readObject(input, 'config');
  const smtp = readObject(config.smtp, 'config.smtp');

  const host = readString(smtp.host, 'config.smtp.host')?.toLowerCase();
  if (!host || !(HOSTNAME.test(host) || isIP(host) !== 0))
    throw invalidField('config.smtp.host must be a host name or an IP address', 'config.smtp.host');
  const port = readInteger(smtp.port, 'config.smtp.port', 1, 65535) ?? 587;
  const secure = readBoolean(smtp, 'secure') ?? port === 465;
  const requireTls = readBoolean(smtp, 'require_tls') ?? false;

  const user = readString(smtp.user, 'config.smtp.user') || null;
  const password = readString(smtp.password, 'config.smtp.password') || null;
  if (user && !password)
    throw invalidField('config.smtp.password is required with config.smtp.user', 'config.smtp.password');
  if (password && !user)
    throw invalidField('config.smtp.user is required with config.smtp.password', 'config.smtp.user');

  return {
    config: {
      to: readRecipients(config),
      from: readAddress(config.from, 'config.from'),
      smtp: { host, port, secure, user, require_tls: requireTls },
    },
    secrets: { smtp_password: password },
  };
}

function readRecipients(config: JsonObject): string[] {
  if (!Array.isArray(config.to) || config.to.length === 0 || config.to.length > MAX_EMAIL_RECIPIENTS) {
    throw invalidField(`config.to must be a list of 1 to ${MAX_EMAIL_RECIPIENTS} e-mail addresses`, 'config.to');
  }
  const to: string[] = [];
  config.to.forEach((value, index) => {
    const field = `config.to[${index}]`;
    const address = readAddress(value, field);
    if (to.some((seen) => seen.toLowerCase() === address.toLowerCase()))
      throw invalidField(`${field} repeats ${address}`, field);
    to.push(address);
  });
  return to;
}

function readAddress(value: unknown, field: string): string {
  const address = readString(value, field)?.trim();
  if (!address || !ADDRESS.test(address))
    throw invalidField(`${field} must be an e-mail address such as oncall@example.com`, field);
  return address;
}

function readBoolean(object: JsonObject, name: string): boolean | undefined {
  const value = object[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw invalidField(`config.smtp.${name} must be true or false`, `config.smtp.${name}`);
  return value;
}
