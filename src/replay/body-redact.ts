import type { SharedHelpers } from './shared-helpers';

/**
 * What redaction shares with the initial chunk, handed in with each call (`shared` of the functions below) instead of
 * imported into the lazily loaded body module: shared-helpers.ts says why.
 */
type Shared = Pick<SharedHelpers, 'looksSensitive_' | 'redacted_'>;

/** Digit groups joined by single spaces or dashes: where a payment card number can hide in text. */
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;

/** The Luhn checksum every payment card number satisfies (and 9 in 10 random numbers do not). */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit > 4 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * 13 to 19 Luhn-valid digits, the first 2 to 9. Card networks issue numbers starting with 2 to 6 (the one exception,
 * airline UATP cards starting with 1, is rare); excluding 0 and 1 keeps millisecond, microsecond and nanosecond
 * timestamps and snowflake ids, a tenth of which pass the Luhn check, out of the redaction.
 */
const isCardNumber = (digits: string): boolean => /^[2-9]\d{12,18}$/.test(digits) && luhnValid(digits);

/**
 * Replaces every payment card number in `text` by `[REDACTED]`: a run of 13 to 19 digits, spaces and dashes between
 * groups allowed, that passes the Luhn check. Inside a longer run of groups (`order 12 4111 1111 1111 1111`), every
 * window of whole groups is tried, so a card number next to other numbers is still found.
 */
export function redactCardNumbers(text: string, shared: Shared): string {
  return text.replace(DIGIT_RUN, (run) => {
    const groups = run.split(/[ -]/);
    const starts: number[] = [];
    let offset = 0;
    for (const group of groups) {
      starts.push(offset);
      offset += group.length + 1;
    }
    let result = '';
    let kept = 0;
    for (let first = 0; first < groups.length; first++) {
      let digits = '';
      for (let last = first; last < groups.length && digits.length < 19; last++) {
        digits += groups[last];
        if (!isCardNumber(digits)) continue;
        result += `${run.slice(kept, starts[first])}${shared.redacted_}`;
        kept = (starts[last] as number) + (groups[last] as string).length;
        first = last;
        break;
      }
    }
    return result + run.slice(kept);
  });
}

/**
 * Runs of word characters (and `@ + / -`), dots allowed between them: words, ids, keys, emails, JWTs, paths. Runs
 * never overlap and nothing follows the last one, so matching is linear in the text.
 */
const TOKEN = /[\w@+/-]+(?:\.[\w@+/-]+)*/g;
/** An email address inside a token; bounded parts keep the search linear. */
const EMAIL = /[\w.+-]{1,64}@(?:[A-Za-z\d-]{1,63}\.)+[A-Za-z]{2,24}/g;
/** A JSON Web Token: three base64url segments, the header a JSON object (`{"` encodes as `eyJ`). */
const JWT = /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/;
/** Prefixes of well-known API keys (Stripe, GitHub, Slack, GitLab, AWS, Google), whatever their randomness. */
const KEY_PREFIX = /^(?:[spr]k_(?:live|test)_|gh[pousr]_|github_pat_|xox[abprs]-|glpat-|AKIA|AIza)[\w-]{8}/;
/** Hexadecimal with dashes: UUIDs, hashes, trace and session ids. Identifiers far more often than secrets: kept. */
const HEX = /^[\da-f-]+$/i;
/** `Bearer xxx` and `Basic xxx` credentials in text (an `Authorization` header copied into a body or a log line). */
const AUTH_SCHEME = /\b(bearer|basic)\s+([\w.~+/-]+=*)/gi;
/** What a credential after `Bearer`/`Basic` has and an English word does not: a digit, a symbol or a case change. */
const CREDENTIAL = /[\d+/=_.~-]|[a-z][A-Z]/;
/**
 * Phone numbers: international (`+44 20 7946 0958`), North American (`(555) 123-4567`, `555-123-4567`) and national
 * trunk-prefixed (`020 7946 0958`, `01 23 45 67 89`) formats, with 9 to 15 digits. Separators are required and kept
 * consistent, so plain numbers (ids, prices, years, timestamps) and dates (`01-02-2024`) are left alone.
 */
const PHONES = [
  /\+\d[\d ().-]{6,18}\d/g,
  /\(\d{3}\) ?\d{3}[-. ]\d{4}\b/g,
  /\b\d{3}([-. ])\d{3}\1\d{4}\b/g,
  /\b0\d{1,4}([ -])\d{2,8}(?:\1\d{2,4}){0,3}\b/g,
];

/** Shortest token {@link looksRandom} considers: shorter random strings are too rare as secrets to risk words. */
const RANDOM_MIN_LENGTH = 32;
/** Shannon entropy, bits per character, a random token reaches: English identifiers stay near 3.5 to 4.2. */
const RANDOM_MIN_ENTROPY = 3.5;
/**
 * Share of adjacent letter and digit pairs that switch between lower case, upper case and digits (an upper-case letter
 * starting a word does not count): about 0.45 in random base62 text, under 0.15 in camelCase and snake_case names.
 */
const RANDOM_MIN_SWITCHES = 0.18;

const kind = (char: string): number =>
  char >= 'a' && char <= 'z' ? 1 : char >= 'A' && char <= 'Z' ? 2 : char >= '0' && char <= '9' ? 3 : 0;

/**
 * True for a long token that reads as random (an API key, a session secret, a signature): at least
 * {@link RANDOM_MIN_LENGTH} characters, not hexadecimal, with Shannon entropy of at least {@link RANDOM_MIN_ENTROPY}
 * bits per character and case and digit switches in at least {@link RANDOM_MIN_SWITCHES} of its length. Entropy
 * alone cannot tell 32 random characters from a long identifier (both score about 4 bits); the switches can.
 */
export function looksRandom(token: string): boolean {
  if (token.length < RANDOM_MIN_LENGTH || HEX.test(token)) return false;
  const counts = new Map<string, number>();
  let switches = 0;
  let previous = 0;
  for (const char of token) {
    counts.set(char, (counts.get(char) || 0) + 1);
    const current = kind(char);
    if (previous && current && previous !== current && !(previous === 2 && current === 1)) switches++;
    previous = current;
  }
  let entropy = 0;
  counts.forEach((count) => (entropy -= (count / token.length) * Math.log2(count / token.length)));
  return entropy >= RANDOM_MIN_ENTROPY && switches >= token.length * RANDOM_MIN_SWITCHES;
}

const redactToken = (token: string, shared: Shared): string =>
  JWT.test(token) || KEY_PREFIX.test(token) || looksRandom(token)
    ? shared.redacted_
    : token.includes('@')
      ? token.replace(EMAIL, shared.redacted_)
      : token;

/** Phone-shaped matches with 9 to 15 digits become `[REDACTED]`. */
const redactPhones = (text: string, shared: Shared): string =>
  PHONES.reduce(
    (result, phone) =>
      result.replace(phone, (match) => {
        const digits = match.replace(/\D/g, '').length;
        return digits >= 9 && digits <= 15 ? shared.redacted_ : match;
      }),
    text,
  );

/**
 * `text` with every value that looks like a secret or personal data replaced by `[REDACTED]`, whatever key it sits
 * under: `Bearer`/`Basic` credentials, JWTs, well-known API keys, long random strings ({@link looksRandom}), email
 * addresses, phone numbers and payment card numbers. Each pass is one linear scan, so the work is linear in the text.
 */
export function redactValues(text: string, shared: Shared): string {
  const credentials = text.replace(AUTH_SCHEME, (match, scheme: string, credential: string) =>
    CREDENTIAL.test(credential) ? `${scheme} ${shared.redacted_}` : match,
  );
  // Phone numbers before card numbers: a compact international number can pass the Luhn check without its `+`.
  return redactCardNumbers(
    redactPhones(
      credentials.replace(TOKEN, (token) => redactToken(token, shared)),
      shared,
    ),
    shared,
  );
}

/**
 * A parsed JSON value with every value under a sensitive key (`password`, `api_token`, `cardNumber`...) replaced by
 * `[REDACTED]`, at any depth, arrays included; the remaining strings are redacted by value ({@link redactValues}) and
 * numbers that are card numbers replaced. A string that is itself a JSON document or a form is redacted the same way. Returns `value` itself when nothing
 * needed redacting, so the caller can keep the original text (re-serialising would round large integers).
 */
export function redactJsonValue(value: unknown, shared: Shared): unknown {
  if (typeof value === 'string') return redactBodyText(value, shared);
  if (typeof value === 'number')
    return redactCardNumbers(String(value), shared) === String(value) ? value : shared.redacted_;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(
    ([key, child]) => [key, shared.looksSensitive_(key) ? shared.redacted_ : redactJsonValue(child, shared)] as const,
  );
  if (entries.every(([key, child]) => child === (value as Record<string, unknown>)[key])) return value;
  return Array.isArray(value) ? entries.map(([, child]) => child) : Object.fromEntries(entries);
}

/** `name=value&...` as forms and query strings write it. */
const FORM = /^[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*$/;
/** `"key": value` inside JSON that did not parse (cut short, or with a syntax error). */
const JSON_MEMBER = /"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[^\s,}\]]*)/g;

/** A form or query part percent-decoded (`+` as a space); malformed escapes leave it as it is. */
export const decodeFormPart = (part: string): string => {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
};

function redactForm(text: string, shared: Shared): string {
  return text
    .split('&')
    .map((pair) => {
      const [name, value] = pair.split('=', 2) as [string, string];
      if (shared.looksSensitive_(decodeFormPart(name))) return `${name}=${shared.redacted_}`;
      const decoded = decodeFormPart(value);
      const redacted = redactValues(decoded, shared);
      return redacted === decoded ? pair : `${name}=${encodeURIComponent(redacted)}`;
    })
    .join('&');
}

/**
 * A request or response body with its secrets removed, whatever content type it claims (apps send JSON as
 * `text/plain`): a JSON document is parsed and redacted by key ({@link redactJsonValue}); JSON that does not parse
 * has the values of its sensitive `"key": value` members replaced; a form-urlencoded body has the values of its
 * sensitive fields replaced; and values that look like secrets or personal data ({@link redactValues}) are removed
 * from any text, JSON string values and form values included.
 */
export function redactBodyText(text: string, shared: Shared): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return redactValues(
        text.replace(JSON_MEMBER, (member, key: string, colon: string) =>
          shared.looksSensitive_(key) ? `"${key}"${colon}"${shared.redacted_}"` : member,
        ),
        shared,
      );
    }
    const redacted = redactJsonValue(parsed, shared);
    return redacted === parsed ? text : JSON.stringify(redacted);
  }
  return FORM.test(text) ? redactForm(text, shared) : redactValues(text, shared);
}
