import { TraceMap, traceSegment } from '@jridgewell/trace-mapping';
import { enclosingFunction, functionScopes, type FunctionScope } from './enclosing-function';
import type { OriginalPosition, SourceContext } from './types';

/** Lines of context on each side of a frame's line. */
const CONTEXT_LINES = 5;
/** A context line longer than this (minified code in `sourcesContent`) is cut to this many characters around the column. */
const MAX_CONTEXT_LINE = 400;
/**
 * Sources larger than this are not parsed for their functions (a frame there is named from the map's `names`): a parse
 * costs some 200 to 250 ms per MB on first use. The app's own modules are far smaller.
 */
const MAX_SCANNED_SOURCE = 1024 * 1024;
/** A dependency's original path. Its frames are never the app's, so they are named from `names` without a scan. */
export const DEPENDENCY_PATH = /(?:^|\/)node_modules\//;
/**
 * Heap per byte of what a parsed map holds (bench/symbolicate.ts measures it): its index JSON, once its mappings are
 * decoded, and each loaded source with its line starts and function scopes.
 */
const HEAP_PER_INDEX_BYTE = 14;
const HEAP_PER_SOURCE_BYTE = 2;

/** One original source of a map, indexed once for every frame that lands in it. */
interface SourceIndex {
  content: string;
  lineStarts: number[];
  /** Parsed on first use; null when the source cannot be parsed (its frames are named from the map). */
  scopes?: FunctionScope[] | null;
}

/** Reads a source's content on first use: maps are stored without their sources (split-map.ts). */
export type SourceLoader = (index: number) => Promise<string | null>;

/**
 * A parsed source map and what its frames need from it: original positions, enclosing functions, context lines. The
 * sources are loaded, indexed and scanned only when a frame lands in them, each once.
 */
export class ParsedMap {
  private readonly trace: TraceMap;
  private readonly sources = new Map<number, Promise<SourceIndex | null>>();
  private loadedBytes = 0;

  constructor(
    private readonly indexJson: string,
    private readonly loadSource: SourceLoader,
  ) {
    this.trace = new TraceMap(indexJson);
  }

  /** Estimated heap this map holds now, for the cache's byte cap. */
  get bytes(): number {
    return this.indexJson.length * HEAP_PER_INDEX_BYTE + this.loadedBytes * HEAP_PER_SOURCE_BYTE;
  }

  /** The original position of a 1-based line and 1-based column (as browsers print them), or null when unmapped. */
  async lookup(line: number, column: number, minifiedName: string | null): Promise<OriginalPosition | null> {
    const segment = line >= 1 ? traceSegment(this.trace, line - 1, Math.max(0, column - 1)) : null;
    if (!segment || segment.length === 1) return null;
    const [, sourceIdx, origLine, origColumn] = segment;
    const name = segment.length === 5 ? (this.trace.names[segment[4]] ?? null) : null;
    const source = await this.sourceIndex(sourceIdx);
    const file = cleanSourcePath(this.trace.resolvedSources[sourceIdx] ?? '');
    const offset = source ? (source.lineStarts[origLine] ?? source.content.length) + origColumn : -1;
    const scannable = source !== null && !DEPENDENCY_PATH.test(file) && source.content.length <= MAX_SCANNED_SOURCE;
    const scopes = scannable ? scopesOf(source, file) : null;
    return {
      file,
      line: origLine + 1,
      column: origColumn + 1,
      // In a scanned source, no enclosing function means top-level code: the map's name at a call there is the callee's.
      function: scopes ? enclosingFunction(scopes, offset) : (name ?? minifiedName),
      context: source ? contextAround(source, origLine + 1, origColumn) : null,
    };
  }

  private sourceIndex(idx: number): Promise<SourceIndex | null> {
    let pending = this.sources.get(idx);
    if (!pending) {
      pending = this.loadSource(idx).then(
        (content) => {
          if (content === null) return null;
          this.loadedBytes += content.length;
          return { content, lineStarts: lineStarts(content) };
        },
        () => {
          // Unreadable now (the database, a damaged row): this frame goes without its source; the next one tries again.
          this.sources.delete(idx);
          return null;
        },
      );
      this.sources.set(idx, pending);
    }
    return pending;
  }
}

function scopesOf(source: SourceIndex, file: string): FunctionScope[] | null {
  if (source.scopes === undefined) source.scopes = functionScopes(source.content, file);
  return source.scopes;
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
    const text = source.content
      .slice(source.lineStarts[n - 1], n < source.lineStarts.length ? source.lineStarts[n]! - 1 : undefined)
      .replace(/\r$/, '');
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
 * (`webpack://shop/./src/cart.ts`, `turbopack:///[project]/src/cart.ts` and `../../src/cart.ts` all read
 * `src/cart.ts`). Turbopack names files from its root, the repository's in a monorepo (`apps/web/src/cart.ts`); its
 * own runtime keeps its `[turbopack]/` prefix.
 */
export function cleanSourcePath(source: string): string {
  return source
    .replace(/^webpack:\/\/[^/]*\//, '')
    .replace(/^turbopack:\/\/\/(?:\[project\]\/)?/, '')
    .replace(/^(?:\.\.?\/)+/, '');
}
