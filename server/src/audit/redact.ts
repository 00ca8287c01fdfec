import { redactValues } from '../../../src/replay/body-redact';
import { looksSensitive, REDACTED } from '../../../src/replay/sensitive';
import { SHARED_HELPERS } from '../../../src/replay/shared-helpers';

/**
 * What the audit log keeps of a request body: every value that is, or may be, a credential replaced by `[REDACTED]`
 * (docs/teams.md, "Audit log"), so that an entry can be read by every admin and exported without handing out a secret.
 *
 * By name, at any depth: what the SDK's looksSensitive reads as a secret (`password`, `token`, `secret`, `apiKey`,
 * `private_key`, `credentials`, `authorization`...), a bare `key`, anything naming a webhook, and the fields the
 * server seals though their names do not say so: a cost connection's AWS role and external id and Azure tenant and
 * client (cost/sources/*\/config.ts). By value: a URL keeps only its origin (the path, query and fragment of a
 * channel's URL are its credential: a chat webhook's path is its token), and a string the SDK's value rules read as a
 * credential (Bearer, JWT, well-known key prefixes, long random text), a phone or a card number is replaced whole.
 * E-mail addresses are kept: who was invited, who receives a channel's mail, is what an audit is read for.
 */

/** Sealed fields whose names do not look secret (cost/sources/aws and azure config.ts). */
const SEALED_NAMES = new Set(['role_arn', 'external_id', 'tenant_id', 'client_id']);

const secretName = (name: string): boolean =>
  looksSensitive(name) || SEALED_NAMES.has(name.toLowerCase()) || /(^|[^a-z])key$|^key|webhook/i.test(name);

/** A plain e-mail address, kept whole: the value rules would take it for personal data. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

function redactString(value: string): string {
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      const origin = url.origin === 'null' ? `${url.protocol}//` : url.origin;
      return `${url.pathname}${url.search}${url.hash}` === '/' ? origin : `${origin}/${REDACTED}`;
    } catch {
      return REDACTED;
    }
  }
  if (EMAIL.test(value)) return value;
  return redactValues(value, SHARED_HELPERS) === value ? value : REDACTED;
}

/** `value` (a parsed JSON body) with its secrets replaced by `[REDACTED]`; the shape and the other values kept. */
export function redactForAudit(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value);
  if (typeof value === 'number')
    return redactValues(String(value), SHARED_HELPERS) === String(value) ? value : REDACTED;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(redactForAudit);
  return Object.fromEntries(
    Object.entries(value).map(([name, child]) => [name, secretName(name) ? REDACTED : redactForAudit(child)]),
  );
}
