/** A token of JavaScript or TypeScript source, as much as finding function scopes needs. */
export interface Token {
  kind: 'id' | 'punct' | 'string' | 'number' | 'template' | 'regex';
  /** The text of identifiers and punctuators; empty for literals. */
  value: string;
  start: number;
  end: number;
  /** A line break comes between this token and the previous one. */
  newline: boolean;
}

/** Multi-character punctuators that matter (all start with `=`, `!` or `?`): `=>` must not read as `=`, nor `==` as an assignment. */
const PUNCTUATORS = ['===', '!==', '=>', '==', '!=', '?.'];
/** After these, `/` starts a regular expression rather than dividing. */
const BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);
// Character codes, compared directly: a regular expression per character would make the scan several times slower.
const isDigit = (c: number) => c >= 48 && c <= 57;
/** Letters, `_`, `$`, `#` (private names) and anything beyond ASCII. */
const isIdStart = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c === 35 || c >= 128;
const isIdPart = (c: number) => isIdStart(c) || isDigit(c);
const isWordOrDot = (c: number) => isIdPart(c) || c === 46;

/**
 * Splits source into tokens, skipping comments and whitespace and reading string, template and regex literals whole
 * (template substitutions `${…}` are tokenized, since functions may sit inside them). Never throws: unterminated
 * literals end at the end of their line (quotes) or of the source (templates, comments).
 */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  /** Open `{` and template `${`: a `}` closes the innermost, and resumes the template after a substitution. */
  const braces: Array<'brace' | 'template'> = [];
  let i = 0;
  let newline = false;
  const push = (kind: Token['kind'], start: number, value = '') => {
    tokens.push({ kind, value, start, end: i, newline });
    newline = false;
  };
  /** Reads template characters from `i` up to and including the closing backtick or a `${`. */
  const templateRest = (start: number) => {
    while (i < src.length && src[i] !== '`' && !(src[i] === '$' && src[i + 1] === '{')) i += src[i] === '\\' ? 2 : 1;
    if (src[i] === '`') i++;
    else if (i < src.length) {
      i += 2;
      braces.push('template');
    }
    push('template', start);
  };
  while (i < src.length) {
    const code = src.charCodeAt(i);
    const ch = src[i]!;
    const start = i;
    if (code === 10) {
      newline = true;
      i++;
    } else if (code === 32 || code === 9 || code === 13) i++;
    else if (ch === '/' && src[i + 1] === '/') i = lineEnd(src, i);
    else if (ch === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (src.slice(i, end < 0 ? src.length : end).includes('\n')) newline = true;
      i = end < 0 ? src.length : end + 2;
    } else if (ch === '"' || ch === "'") {
      i = quotedEnd(src, i);
      push('string', start);
    } else if (ch === '`') {
      i++;
      templateRest(start);
    } else if (ch === '}' && braces[braces.length - 1] === 'template') {
      braces.pop();
      i++;
      templateRest(start);
    } else if (isIdStart(code)) {
      i++;
      while (i < src.length && isIdPart(src.charCodeAt(i))) i++;
      push('id', start, src.slice(start, i));
    } else if (isDigit(code) || (ch === '.' && isDigit(src.charCodeAt(i + 1)))) {
      while (i < src.length && isWordOrDot(src.charCodeAt(i))) i++;
      push('number', start);
    } else if (ch === '/' && regexAllowed(tokens[tokens.length - 1])) {
      i = regexEnd(src, i);
      push('regex', start);
    } else {
      const op =
        (code === 61 || code === 33 || code === 63 ? PUNCTUATORS.find((p) => src.startsWith(p, i)) : undefined) ?? ch;
      i += op.length;
      if (op === '{') braces.push('brace');
      else if (op === '}') braces.pop();
      push('punct', start, op);
    }
  }
  return tokens;
}

function lineEnd(src: string, i: number): number {
  const end = src.indexOf('\n', i);
  return end < 0 ? src.length : end;
}

/** End of a quoted string starting at `i`: after its closing quote, or at the end of the line when it has none. */
function quotedEnd(src: string, i: number): number {
  const quote = src[i];
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') j++;
    else if (c === quote) return j + 1;
    else if (c === '\n') return j;
  }
  return src.length;
}

function regexAllowed(prev: Token | undefined): boolean {
  if (!prev) return true;
  if (prev.kind === 'id') return BEFORE_REGEX.has(prev.value);
  if (prev.kind === 'punct') return prev.value !== ')' && prev.value !== ']' && prev.value !== '}';
  return false;
}

/** End of a regex literal starting at `i` (a `/` inside a character class does not end it), flags included. */
function regexEnd(src: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') j++;
    else if (c === '\n') return j;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      let end = j + 1;
      while (end < src.length && isIdPart(src.charCodeAt(end))) end++;
      return end;
    }
  }
  return src.length;
}
