import { createRequire } from 'node:module';
import type * as TS from 'typescript';

/** A named function's extent in its source: character offsets of its body, `end` exclusive. */
export interface FunctionScope {
  name: string;
  start: number;
  end: number;
}

let compiler: typeof TS | undefined;
/**
 * The TypeScript compiler, loaded at the first scan rather than at server start: it is large, and a server that is
 * sent no errors from a mapped source never needs it. Its parser reads what original sources are written in
 * (TypeScript, JSX, the newest JavaScript) and, unlike acorn-loose, keeps the names in type-annotated code.
 */
const ts = (): typeof TS => (compiler ??= createRequire(import.meta.url)('typescript') as typeof TS);

/**
 * The named functions of a JavaScript or TypeScript source, parsed by the TypeScript compiler (which recovers from
 * broken source and never throws): function declarations and named function expressions, methods, accessors and
 * constructors, and anonymous functions or arrows given a name by a variable, a property, a class field or an
 * assignment (`obj.handler = function () {}` is `handler`). Other anonymous functions are left out: a frame inside
 * one belongs to the named function around it. `path` (the source's name in the map) chooses TypeScript, TSX or
 * JavaScript by its extension; an unknown one reads as TSX, which takes the others' syntax but `<T>value` casts.
 * Null for a source nested too deeply for the parser's recursion (some thousand levels): no code is written so.
 */
export function functionScopes(src: string, path = ''): FunctionScope[] | null {
  const t = ts();
  const scopes: FunctionScope[] = [];
  // The nodes from the file down to the one visited: the parser is asked for no parent links, a pass it would make
  // over every node, while names are looked up only for the few anonymous functions.
  const ancestors: TS.Node[] = [];
  const visit = (node: TS.Node, file: TS.SourceFile): void => {
    if (t.isFunctionLike(node) && 'body' in node && node.body) {
      const name = functionName(t, node, ancestors);
      if (name) scopes.push({ name, start: bodyStart(t, node, node.body, file), end: node.body.end });
    }
    ancestors.push(node);
    t.forEachChild(node, (child) => visit(child, file));
    ancestors.pop();
  };
  try {
    const file = t.createSourceFile(path || 'source.tsx', src, PARSE_OPTIONS(t), false, scriptKind(t, path));
    visit(file, file);
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
  return scopes;
}

/** The innermost of `scopes` holding `offset`, or null. */
export function enclosingFunction(scopes: readonly FunctionScope[], offset: number): string | null {
  let best: FunctionScope | null = null;
  for (const s of scopes) {
    if (s.start <= offset && offset < s.end && (!best || s.start >= best.start)) best = s;
  }
  return best?.name ?? null;
}

/** No JSDoc: comments name no function, and reading them took some 15 % of a first parse of commented code. */
const PARSE_OPTIONS = (t: typeof TS): TS.CreateSourceFileOptions => ({
  languageVersion: t.ScriptTarget.Latest,
  jsDocParsingMode: t.JSDocParsingMode.ParseNone,
});

function scriptKind(t: typeof TS, path: string): TS.ScriptKind {
  const extension = /\.([cm]?[jt]sx?)$/.exec(path)?.[1];
  if (extension === undefined || extension === 'tsx') return t.ScriptKind.TSX;
  return extension.includes('t') ? t.ScriptKind.TS : t.ScriptKind.JSX;
}

/** A block body from its `{`; an expression body from just after the `=>`, so a frame at its first token is inside. */
function bodyStart(t: typeof TS, node: TS.SignatureDeclaration, body: TS.Node, file: TS.SourceFile): number {
  return t.isArrowFunction(node) && !t.isBlock(body) ? node.equalsGreaterThanToken.end : body.getStart(file);
}

function functionName(t: typeof TS, node: TS.SignatureDeclaration, ancestors: readonly TS.Node[]): string | null {
  if (t.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return nameText(t, node.name);
  return t.isFunctionExpression(node) || t.isArrowFunction(node) ? assignedName(t, node, ancestors) : null;
}

/**
 * The name an anonymous function expression or arrow is given where it stands, past parentheses and type casts;
 * `ancestors` are the nodes around it, its parent last.
 */
function assignedName(t: typeof TS, node: TS.Expression, ancestors: readonly TS.Node[]): string | null {
  let expression: TS.Node = node;
  let up = ancestors.length - 1;
  let holder = ancestors[up];
  while (
    holder !== undefined &&
    (t.isParenthesizedExpression(holder) ||
      t.isAsExpression(holder) ||
      t.isSatisfiesExpression(holder) ||
      t.isTypeAssertionExpression(holder) ||
      t.isNonNullExpression(holder))
  ) {
    expression = holder;
    holder = ancestors[--up];
  }
  if (holder === undefined) return null;
  if (t.isVariableDeclaration(holder) || t.isPropertyAssignment(holder) || t.isPropertyDeclaration(holder))
    return holder.initializer === expression ? nameText(t, holder.name) : null;
  if (
    t.isBinaryExpression(holder) &&
    holder.operatorToken.kind === t.SyntaxKind.EqualsToken &&
    holder.right === expression
  )
    return t.isIdentifier(holder.left) || t.isPropertyAccessExpression(holder.left)
      ? nameText(t, t.isIdentifier(holder.left) ? holder.left : holder.left.name)
      : null;
  return null;
}

/** Identifiers and private names (`#secret` reads `secret`), and string or number property names. */
function nameText(t: typeof TS, name: TS.Node): string | null {
  if (t.isIdentifier(name) || t.isStringLiteral(name) || t.isNumericLiteral(name)) return name.text;
  if (t.isPrivateIdentifier(name)) return name.text.slice(1);
  return null;
}
