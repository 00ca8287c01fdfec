/** Helpers to write TypeScript source text that is valid whatever recorded text ends up in it. */

const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** Characters a single-quoted literal cannot hold as they are, and lone surrogates, which UTF-8 cannot encode. */
const UNSAFE =
  /[\\'\u0000-\u001f\u007f\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A single-quoted string literal holding `text` exactly. */
export const quote = (text: string): string =>
  `'${text.replace(UNSAFE, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;

/** `text` made safe for a `//` comment: on one line. */
export const commentText = (text: string): string => text.replace(/[\r\n\u2028\u2029]+/g, ' ');
