import { tokenize, type Token } from './js-tokens';

/** A named function's extent in its source: character offsets, `end` exclusive. */
export interface FunctionScope {
  name: string;
  start: number;
  end: number;
}

/** Words that take a parenthesized head before a block, so `if (x) {` is no method `if`. */
const NOT_METHODS = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'with',
  'return',
  'typeof',
  'await',
  'yield',
  'new',
  'in',
  'of',
  'do',
  'else',
  'void',
  'delete',
  'throw',
]);
/** Tokens a TypeScript return type is made of (`): Promise<Map<string, T[]>> {`). */
const TYPE_PUNCT = new Set(['.', '<', '>', '[', ']', '|', '&', ',', '?', '(', ')', '=>']);
/** Punctuators that continue an expression on the next line, so a line break there does not end an arrow's body. */
const CONTINUES = new Set([
  '.',
  '?.',
  '?',
  ':',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '&&',
  '||',
  '??',
  '==',
  '===',
  '!=',
  '!==',
  '<',
  '>',
  ')',
  ']',
  '}',
]);
const MAX_TYPE_TOKENS = 40;
const CLOSERS = new Set([')', ']', '}']);

/**
 * The named functions of a JavaScript or TypeScript source: `function name`, methods `name(...) {`, and functions
 * assigned to a name (`name = (...) =>`, `name = function`, `name: function`, `const name: T = () => …`). Anonymous
 * functions are left out: a frame inside one belongs to the named function around it. A heuristic scan, aware of
 * strings, comments, template literals and regular expressions; it never throws.
 */
export function functionScopes(src: string): FunctionScope[] {
  return new ScopeScanner(tokenize(src)).scan();
}

/** The innermost of `scopes` holding `offset`, or null. */
export function enclosingFunction(scopes: readonly FunctionScope[], offset: number): string | null {
  let best: FunctionScope | null = null;
  for (const s of scopes) {
    if (s.start <= offset && offset < s.end && (!best || s.start >= best.start)) best = s;
  }
  return best?.name ?? null;
}

interface Open {
  index: number;
  /** The function whose body this `{` opens, when it does and it has a name. */
  name: string | null;
}
interface ExpressionArrow {
  name: string;
  start: number;
  depth: number;
  bodyStart: number;
}

class ScopeScanner {
  private readonly opens: Open[] = [];
  /** Token index of the opening bracket of each closing one, by the closing one's index; -1 for other tokens. */
  private readonly openerOf: Int32Array;
  private readonly arrows: ExpressionArrow[] = [];
  private readonly scopes: FunctionScope[] = [];

  constructor(private readonly tokens: Token[]) {
    this.openerOf = new Int32Array(tokens.length).fill(-1);
  }

  scan(): FunctionScope[] {
    for (let k = 0; k < this.tokens.length; k++) {
      const token = this.tokens[k]!;
      if (this.arrows.length > 0) this.endArrowsAt(token, k);
      if (token.kind !== 'punct') continue;
      const v = token.value;
      if (v === '{' || v === '(' || v === '[')
        this.opens.push({ index: k, name: v === '{' ? this.functionBefore(k) : null });
      else if (v === '}' || v === ')' || v === ']') this.close(k);
      else if (v === '=>' && this.tokens[k + 1]?.value !== '{') this.startExpressionArrow(k);
    }
    const last = this.tokens[this.tokens.length - 1];
    for (const arrow of this.arrows)
      this.scopes.push({ name: arrow.name, start: arrow.start, end: last?.end ?? arrow.start });
    return this.scopes;
  }

  private close(k: number): void {
    const open = this.opens.pop();
    if (!open) return;
    this.openerOf[k] = open.index;
    if (open.name)
      this.scopes.push({ name: open.name, start: this.tokens[open.index]!.start, end: this.tokens[k]!.end });
  }

  private startExpressionArrow(k: number): void {
    const name = this.arrowName(k);
    if (name) this.arrows.push({ name, start: this.tokens[k]!.end, depth: this.opens.length, bodyStart: k + 1 });
  }

  /** An expression body ends at `;` or `,` at its depth, at a closer of an enclosing bracket, or at a new line. */
  private endArrowsAt(token: Token, k: number): void {
    while (this.arrows.length > 0) {
      const arrow = this.arrows[this.arrows.length - 1]!;
      const depth = this.opens.length;
      const closesOuter = depth <= arrow.depth && token.kind === 'punct' && CLOSERS.has(token.value);
      const separates = depth === arrow.depth && token.kind === 'punct' && (token.value === ';' || token.value === ',');
      const newLine =
        depth === arrow.depth &&
        token.newline &&
        k > arrow.bodyStart &&
        !(token.kind === 'punct' && CONTINUES.has(token.value));
      if (!closesOuter && !separates && !newLine) return;
      this.arrows.pop();
      this.scopes.push({ name: arrow.name, start: arrow.start, end: this.tokens[k - 1]!.end });
    }
  }

  /** When the `{` at `k` opens a function body: its name, or null (anonymous, or no function at all). */
  private functionBefore(k: number): string | null {
    const prev = this.tokens[k - 1];
    if (prev?.value === '=>') return this.arrowName(k - 1);
    const close = this.paramsClose(k - 1);
    if (close < 0) return null;
    const before = this.skipTypeParameters(this.openerOf[close]! - 1);
    const t = this.tokens[before];
    if (!t) return null;
    if (t.value === 'function' || (t.value === '*' && this.tokens[before - 1]?.value === 'function')) {
      return this.assignedName(this.skipAsync(before - (t.value === '*' ? 2 : 1)));
    }
    if (t.kind !== 'id' || NOT_METHODS.has(t.value)) return null;
    const p = this.tokens[before - 1];
    return p?.value === '.' || p?.value === '?.' ? null : t.value.replace(/^#/, '');
  }

  /** The name an arrow function at `=>` (index `k`) is assigned to, or null. */
  private arrowName(k: number): string | null {
    const close = this.paramsClose(k - 1);
    const start = close >= 0 ? this.openerOf[close]! : k - 1;
    if (close < 0 && this.tokens[start]?.kind !== 'id') return null;
    return this.assignedName(this.skipAsync(this.skipTypeParameters(start - 1)));
  }

  /** `name =`, `name:` or `name: Type =` (`const Cart: React.FC<Props> =`) ending at token `k`: the name. */
  private assignedName(k: number): string | null {
    const op = this.tokens[k]?.value;
    if (op !== '=' && op !== ':') return null;
    if (op === '=') {
      const annotated = this.typeAnnotationStart(k - 1);
      if (annotated >= 0) return this.tokens[annotated - 1]!.value;
    }
    const target = this.tokens[k - 1];
    return target?.kind === 'id' ? target.value.replace(/^#/, '') : null;
  }

  /** The `:` of a type annotation `name: Type` ending at token `k`, when a name precedes it; else -1. */
  private typeAnnotationStart(k: number): number {
    for (let j = k; j > 0 && k - j < MAX_TYPE_TOKENS; j--) {
      const t = this.tokens[j]!;
      if (t.value === ':') return this.tokens[j - 1]!.kind === 'id' && j < k ? j : -1;
      if (t.kind !== 'id' && t.kind !== 'string' && t.kind !== 'number' && !TYPE_PUNCT.has(t.value)) return -1;
    }
    return -1;
  }

  /** The `)` closing a function's parameters that ends at `k`, past a TypeScript return type; -1 when there is none. */
  private paramsClose(k: number): number {
    if (this.tokens[k]?.value === ')' && this.openerOf[k]! >= 0) return k;
    for (let j = k; j >= 0 && k - j < MAX_TYPE_TOKENS; j--) {
      const t = this.tokens[j]!;
      if (t.value === ':') return this.tokens[j - 1]?.value === ')' && this.openerOf[j - 1]! >= 0 ? j - 1 : -1;
      if (t.kind !== 'id' && t.kind !== 'string' && t.kind !== 'number' && !TYPE_PUNCT.has(t.value)) return -1;
    }
    return -1;
  }

  /** Index before the `<…>` type parameters ending at `k`, or `k` when there are none. */
  private skipTypeParameters(k: number): number {
    if (this.tokens[k]?.value !== '>') return k;
    let depth = 0;
    for (let j = k; j >= 0 && k - j < MAX_TYPE_TOKENS; j--) {
      const v = this.tokens[j]!.value;
      if (v === '>') depth++;
      else if (v === '<' && --depth === 0) return j - 1;
    }
    return k;
  }

  private skipAsync(k: number): number {
    return this.tokens[k]?.value === 'async' ? k - 1 : k;
  }
}
