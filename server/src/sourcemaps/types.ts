/**
 * What symbolication answers, shared by the source map store (this folder), incident detection and the issues API.
 * A frame keeps its raw (minified) position beside the original one, so a stack can always be shown as it was sent.
 */

/** Lines of the original source around a frame's line, from the map's `sourcesContent`. */
export interface SourceContext {
  /** 1-based line number of `lines[0]`. */
  startLine: number;
  /** Up to five lines before the frame's line, the line itself, and up to five after. */
  lines: string[];
}

/** Where a minified position came from, as the source map says. */
export interface OriginalPosition {
  /** The original source path as the map names it, `webpack://`/`../` prefixes removed, e.g. `src/cart/total.ts`. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, like browser stacks. */
  column: number;
  /** Name of the enclosing function in the original source (else the map's `names` entry); null when unknown. */
  function: string | null;
  /** Null when the map has no `sourcesContent` for the file. */
  context: SourceContext | null;
}

/** One frame of a stack, symbolicated when a map was found. */
export interface SymbolicatedFrame {
  /** Function name as the engine printed it (`<anonymous>` when none). */
  function: string;
  url: string;
  /** 1-based line and column as the browser printed them. */
  line: number;
  column: number;
  /** The app's own code: not an extension, engine internal, dependency (`node_modules`, also in the original path) or the SDK. */
  inApp: boolean;
  /** Debug ID of the file, when the SDK sent one for its URL. */
  debugId: string | null;
  /** Null when no map covers the frame. */
  original: OriginalPosition | null;
}

/** One exception as stored: its raw stack and the facts that select its maps. */
export interface ExceptionFacts {
  projectId: string;
  /** `exception.stacktrace` as the SDK sent it (V8 or Firefox/Safari format). */
  stacktrace: string;
  /** Script URL → debug ID, from the `svc.exception.debug_ids` attribute (parseDebugIds). */
  debugIds: ReadonlyMap<string, string>;
  /** `service.version` of the resource: the release for maps uploaded without a debug ID. */
  release: string | null;
}

export interface Symbolicator {
  /**
   * The frames of the error itself (not of its `Caused by:` causes), each symbolicated when a map matches it by debug
   * ID, else by release and URL. Never throws for a bad or missing map: such frames keep `original: null`.
   */
  symbolicate(facts: ExceptionFacts): Promise<SymbolicatedFrame[]>;
}
