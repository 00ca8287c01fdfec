/**
 * What counts as sensitive, shared by the recorder (form fields) and recipes (headers, JSON and form keys), so that a
 * name redacted in one place is redacted in every place.
 */

// The markers are part of the wire contract: the server's Playwright export recognises them.
export { MASK, REDACTED } from '../../wire/replay';

/** Whole words that name a secret on their own: `otp`, `pin`, `cvv`... (too short to search for inside words). */
const SENSITIVE_WORDS = new Set([
  'otp',
  'totp',
  'mfa',
  'pin',
  'cvc',
  'cvv',
  'csc',
  'pan',
  'ssn',
  'pwd',
  'auth',
  'authorization',
  'bearer',
  'iban',
]);

/** Fragments that name a secret wherever they appear in the name once separators are removed (`api_key` → `apikey`). */
const SENSITIVE_FRAGMENTS =
  /passw|passcode|secret|token|apikey|accesskey|privatekey|credential|session|cookie|csrf|xsrf|onetime|card|ccnum|ccexp|signature|securitycode/;

/**
 * True when a field, header or key name looks like it holds a credential or a payment card number: `password`,
 * `apiKey`, `x-api-key`, `otp_code`, `cardNumber`, `cc-csc`, `X-Session-Token`... camelCase and any separator count
 * as word boundaries.
 */
export function looksSensitive(name: string | null | undefined): boolean {
  if (typeof name !== 'string' || name === '') return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => SENSITIVE_WORDS.has(word)) || SENSITIVE_FRAGMENTS.test(words.join(''));
}
