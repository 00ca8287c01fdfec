/**
 * The server's rules for values in URLs (docs/ingest.md, "Secrets in URLs"): every query
 * value, and every `name=value` value of a fragment, that looks like a secret or personal data is replaced by
 * `[REDACTED]`, whatever its parameter is called; the parameter names stay, so a URL keeps its shape.
 *
 * The judgement of a value is the SDK's own (src/replay/body-redact.ts and sensitive.ts, what recipes' bodies go
 * through), imported rather than copied so that a value masked in a body is masked in a URL too: those two modules
 * are plain string code with no browser API, and esbuild bundles them into the server's dist/ like ../wire.
 * By value: `Bearer`/`Basic` credentials, JWTs, well-known API key prefixes, long random strings (32 characters or
 * more with the entropy and case/digit switches of random text), e-mail addresses, phone numbers and payment card
 * numbers. By name: the value of any parameter whose name looks sensitive (`token`, `session_id`, `apiKey`,
 * `signature`... as looksSensitive reads them). Kept: ordinary words (`q=shoes`), short numbers (`page=2`), ISO dates, and UUIDs and
 * other hexadecimal ids (identifiers far more often than secrets, as in bodies). Path segments are not judged: the
 * path is what routes, pages and issues are grouped by.
 */
import { decodeFormPart as decode, redactValues } from '../../../src/replay/body-redact';
import { looksSensitive, REDACTED } from '../../../src/replay/sensitive';
import { SHARED_HELPERS } from '../../../src/replay/shared-helpers';

/** One `name=value` pair with its value replaced when the name or the value looks sensitive. */
function redactPair(pair: string): string {
  const equals = pair.indexOf('=');
  if (equals === -1) return pair;
  const value = pair.slice(equals + 1);
  if (value === '' || value === REDACTED) return pair;
  const decoded = decode(value);
  const secret = looksSensitive(decode(pair.slice(0, equals))) || redactValues(decoded, SHARED_HELPERS) !== decoded;
  return secret ? `${pair.slice(0, equals + 1)}${REDACTED}` : pair;
}

/** A query string without its `?` (`a=1&b=2`, as `url.query` holds it) with its sensitive values redacted. */
export function redactQueryValues(query: string): string {
  return query.split('&').map(redactPair).join('&');
}

/**
 * A fragment without its `#`: a hash route's query (`/orders?token=...`), an OAuth-style `access_token=...&state=...`,
 * or a bare value judged as a whole.
 */
function redactFragment(fragment: string): string {
  const question = fragment.indexOf('?');
  if (question !== -1) return `${fragment.slice(0, question + 1)}${redactQueryValues(fragment.slice(question + 1))}`;
  if (fragment.includes('=')) return redactQueryValues(fragment);
  const decoded = decode(fragment);
  return redactValues(decoded, SHARED_HELPERS) === decoded ? fragment : REDACTED;
}

/**
 * `url` (absolute, or a path with query and fragment) with the values of its query and fragment that look sensitive
 * replaced by `[REDACTED]`; parameter names, order, the origin and the path are kept. Linear in the URL's length.
 */
export function redactUrlValues(url: string): string {
  const hash = url.indexOf('#');
  const beforeHash = hash === -1 ? url : url.slice(0, hash);
  const question = beforeHash.indexOf('?');
  const base = question === -1 ? beforeHash : beforeHash.slice(0, question);
  const query = question === -1 ? '' : `?${redactQueryValues(beforeHash.slice(question + 1))}`;
  const fragment = hash === -1 ? '' : `#${redactFragment(url.slice(hash + 1))}`;
  return `${base}${query}${fragment}`;
}
