import { looksSensitive, REDACTED } from './sensitive';

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
export function redactCardNumbers(text: string): string {
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
        result += `${run.slice(kept, starts[first])}${REDACTED}`;
        kept = (starts[last] as number) + (groups[last] as string).length;
        first = last;
        break;
      }
    }
    return result + run.slice(kept);
  });
}

/**
 * A parsed JSON value with every value under a sensitive key (`password`, `api_token`, `cardNumber`...) replaced by
 * `[REDACTED]`, at any depth, arrays included, and card numbers removed from the remaining strings and numbers. A
 * string that is itself a JSON document or a form is redacted the same way. Returns `value` itself when nothing
 * needed redacting, so the caller can keep the original text (re-serialising would round large integers).
 */
export function redactJsonValue(value: unknown): unknown {
  if (typeof value === 'string') return redactBodyText(value);
  if (typeof value === 'number') return redactCardNumbers(String(value)) === String(value) ? value : REDACTED;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).map(([key, child]) => [key, looksSensitive(key) ? REDACTED : redactJsonValue(child)] as const);
  if (entries.every(([key, child]) => child === (value as Record<string, unknown>)[key])) return value;
  return Array.isArray(value) ? entries.map(([, child]) => child) : Object.fromEntries(entries);
}

/** `name=value&...` as forms and query strings write it. */
const FORM = /^[^=&\s]+=[^&\s]*(?:&[^=&\s]+=[^&\s]*)*$/;
/** `"key": value` inside JSON that did not parse (cut short, or with a syntax error). */
const JSON_MEMBER = /"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[^\s,}\]]*)/g;

const decodeFormPart = (part: string): string => {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
};

function redactForm(text: string): string {
  return text
    .split('&')
    .map((pair) => {
      const [name, value] = pair.split('=', 2) as [string, string];
      if (looksSensitive(decodeFormPart(name))) return `${name}=${REDACTED}`;
      const decoded = decodeFormPart(value);
      const redacted = redactCardNumbers(decoded);
      return redacted === decoded ? pair : `${name}=${encodeURIComponent(redacted)}`;
    })
    .join('&');
}

/**
 * A request or response body with its secrets removed, whatever content type it claims (apps send JSON as
 * `text/plain`): a JSON document is parsed and redacted by key ({@link redactJsonValue}); JSON that does not parse
 * has the values of its sensitive `"key": value` members replaced; a form-urlencoded body has the values of its
 * sensitive fields replaced; and card numbers are removed from any text.
 */
export function redactBodyText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return redactCardNumbers(
        text.replace(JSON_MEMBER, (member, key: string, colon: string) =>
          looksSensitive(key) ? `"${key}"${colon}"${REDACTED}"` : member,
        ),
      );
    }
    const redacted = redactJsonValue(parsed);
    return redacted === parsed ? text : JSON.stringify(redacted);
  }
  return FORM.test(text) ? redactForm(text) : redactCardNumbers(text);
}
