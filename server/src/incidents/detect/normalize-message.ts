/** Longest normalised message kept in a fingerprint; the rest of a long message rarely tells two errors apart. */
export const MAX_MESSAGE_LENGTH = 200;

interface Rule {
  pattern: RegExp;
  replace: (match: string) => string;
  /** Personal or secret data: also masked in titles and summaries sent to notification channels. */
  private: boolean;
}

/** An identifier as browsers quote it in messages (`reading 'id'`, `evaluating 'a.b'`): part of what the bug is. */
const QUOTED_IDENTIFIER = /^(['"`])[\w$.]{1,40}\1$/;

/** What stands where occurrences of one bug differ. */
const PLACEHOLDERS = ['<url>', '<email>', '<uuid>', '<str>', '<token>', '<hex>', '<n>'] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];

/** Any placeholder in a normalised message (the reproduction test matches each with any text). */
export const PLACEHOLDER_PATTERN = new RegExp(PLACEHOLDERS.join('|'), 'g');

/**
 * Variable parts of error messages, replaced in this order: whole URLs and addresses before the ids, numbers and
 * tokens inside them.
 */
const to = (placeholder: Placeholder) => () => placeholder;

const RULES: Rule[] = [
  { pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>()]+/gi, replace: to('<url>'), private: true },
  { pattern: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, replace: to('<email>'), private: true },
  {
    pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
    replace: to('<uuid>'),
    private: false,
  },
  {
    pattern: /'[^'\n]{0,200}'|"[^"\n]{0,200}"|`[^`\n]{0,200}`/g,
    replace: (quoted) => (QUOTED_IDENTIFIER.test(quoted) ? quoted : ('<str>' satisfies Placeholder)),
    private: false,
  },
  // Secrets and opaque ids: long runs of token characters with at least one digit.
  { pattern: /\b(?=[\w+/=-]*\d)[\w+/=-]{24,}/g, replace: to('<token>'), private: true },
  {
    pattern: /\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi,
    replace: to('<hex>'),
    private: false,
  },
  { pattern: /\b\d+(?:\.\d+)?\b/g, replace: to('<n>'), private: false },
];

function applyRules(message: string, rules: Rule[]): string {
  let text = message;
  for (const { pattern, replace } of rules) text = text.replace(pattern, replace);
  return text.replace(/\s+/g, ' ').trim();
}

function cap(text: string): string {
  return text.length <= MAX_MESSAGE_LENGTH ? text : `${text.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/**
 * The message with everything that varies between occurrences of one bug (numbers, hex ids, UUIDs, quoted values,
 * URLs, e-mail addresses, long tokens) replaced by placeholders, whitespace collapsed, and capped: the message part
 * of a fingerprint. Quoted identifiers (`reading 'id'`) are kept: they name the bug.
 */
export function normalizeMessage(message: string): string {
  return cap(applyRules(message, RULES));
}

/**
 * The message as people may read it in an incident title or notification: only personal and secret data (URLs,
 * e-mail addresses, long tokens) masked, numbers and quoted values kept.
 */
export function redactMessage(message: string): string {
  return cap(
    applyRules(
      message,
      RULES.filter((r) => r.private),
    ),
  );
}

/** An error name heading a message, as browsers and the SDK print it: `TypeError: …`, `Uncaught DOMException: …`. */
const TYPE_PREFIX = /^(?:Uncaught\s+(?:\(in promise\)\s+)?)?([A-Z][\w$.]*(?:Error|Exception)|Error)(?::\s*|$)/;

/** Splits `TypeError: x is undefined` into its error type and message; the type is undefined when there is none. */
export function splitTypePrefix(message: string): { type: string | undefined; message: string } {
  const match = TYPE_PREFIX.exec(message.trimStart());
  if (!match) return { type: undefined, message };
  return { type: match[1], message: message.trimStart().slice(match[0].length) };
}
