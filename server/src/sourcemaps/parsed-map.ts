import { FlattenMap, originalPositionFor, sourceContentFor, type TraceMap } from '@jridgewell/trace-mapping';
import { enclosingFunction, functionScopes, type FunctionScope } from './enclosing-function';
import type { OriginalPosition, SourceContext } from './types';

/** Lines of context on each side of a frame's line. */
const CONTEXT_LINES = 5;
/** A context line longer than this (minified code in `sourcesContent`) is cut to this many characters around the column. */
const MAX_CONTEXT_LINE = 400;

/** One original source of a map, indexed once for every frame that lands in it. */
interface SourceIndex {
  content: string;
  lineStarts: number[];
  scopes: FunctionScope[] | undefined;
}

/** A parsed source map and what its frames need from it: original positions, enclosing functions, context lines. */
export class ParsedMap {
  private readonly trace: TraceMap;
  private readonly sources = new Map<string, SourceIndex | null>();

  constructor(text: string) {
    // FlattenMap reads plain maps and index maps (`sections`) alike.
    this.trace = new FlattenMap(text);
  }

  /** The original position of a 1-based line and 1-based column (as browsers print them), or null when unmapped. */
  lookup(line: number, column: number, minifiedName: string | null): OriginalPosition | null {
    const found = originalPositionFor(this.trace, { line, column: Math.max(0, column - 1) });
    if (found.source === null) return null;
    const source = this.sourceIndex(found.source);
    const offset = source ? (source.lineStarts[found.line - 1] ?? source.content.length) + found.column : -1;
    return {
      file: cleanSourcePath(found.source),
      line: found.line,
      column: found.column + 1,
      function: (source && enclosingFunction(this.scopesOf(source), offset)) ?? found.name ?? minifiedName,
      context: source ? contextAround(source, found.line, found.column) : null,
    };
  }

  private sourceIndex(source: string): SourceIndex | null {
    let index = this.sources.get(source);
    if (index === undefined) {
      const content = sourceContentFor(this.trace, source);
      index = content === null ? null : { content, lineStarts: lineStarts(content), scopes: undefined };
      this.sources.set(source, index);
    }
    return index;
  }

  private scopesOf(source: SourceIndex): FunctionScope[] {
    source.scopes ??= functionScopes(source.content);
    return source.scopes;
  }
}

function lineStarts(content: string): number[] {
  const starts = [0];
  for (let i = content.indexOf('\n'); i >= 0; i = content.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function contextAround(source: SourceIndex, line: number, column: number): SourceContext {
  const startLine = Math.max(1, line - CONTEXT_LINES);
  const endLine = Math.min(source.lineStarts.length, line + CONTEXT_LINES);
  const lines: string[] = [];
  for (let n = startLine; n <= endLine; n++) {
    const text = source.content.slice(source.lineStarts[n - 1], n < source.lineStarts.length ? source.lineStarts[n]! - 1 : undefined).replace(/\r$/, '');
    lines.push(clip(text, column));
  }
  return { startLine, lines };
}

function clip(text: string, column: number): string {
  if (text.length <= MAX_CONTEXT_LINE) return text;
  const from = Math.max(0, Math.min(column - MAX_CONTEXT_LINE / 2, text.length - MAX_CONTEXT_LINE));
  return text.slice(from, from + MAX_CONTEXT_LINE);
}

/**
 * A source path as people read it: bundler schemes and the `../` that lead out of the output directory removed
 * (`webpack://shop/./src/cart.ts` and `../../src/cart.ts` both read `src/cart.ts`).
 */
export function cleanSourcePath(source: string): string {
  return source
    .replace(/^webpack:\/\/[^/]*\//, '')
    .replace(/^(?:\.\.?\/)+/, '');
}
