import type { SymbolicatedFrame } from '../../sourcemaps/types';
import type { FrameSource } from './tables';

/** One frame of a JavaScript stack trace. */
export interface StackFrame {
  /** Function name as the engine printed it, `<anonymous>` when it printed none. */
  fn: string;
  url: string;
  line: number;
  column: number;
}

/** The top in-app frame: where the grouping key and the title point. */
export interface TopFrame {
  fn: string;
  /** File name without directories, query, fragment or content hash: the same across deploys. */
  file: string;
  line: number;
  /** Stable across deploys (no line number): the frame part of a fingerprint. */
  key: string;
  /** For people: `renderCart (checkout.js:42)`, or `total (src/cart/total.ts:42:7)` from a map. */
  label: string;
  /** Where a map placed the frame, with its source line; absent without a map. */
  source?: FrameSource;
}

/** V8 (Chrome, Edge, Node): `    at fn (url:line:col)`, `    at url:line:col`, `    at async fn (url:line:col)`. */
const V8_FRAME = /^\s*at (?:(.+?) \((.+):(\d+):(\d+)\)|(.+):(\d+):(\d+))$/;
/** SpiderMonkey and JavaScriptCore (Firefox, Safari): `fn@url:line:col`, `@url:line:col`. */
const GECKO_FRAME = /^\s*([^@\s]*(?:\s[^@]*)?)@(.+):(\d+):(\d+)$/;

/** Parses the frames of a V8 or Firefox/Safari stack; head lines, `Caused by:` sections and native frames are skipped. */
export function parseStack(stack: string): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of stack.split('\n')) {
    // The frames of the error itself, not of its causes (the SDK appends them after `Caused by:`).
    if (line.startsWith('Caused by:')) break;
    const v8 = V8_FRAME.exec(line);
    if (v8) {
      const fn = (v8[1] ?? '').replace(/^(?:async|new) /, '');
      frames.push({
        fn: fn || '<anonymous>',
        url: v8[2] ?? v8[5]!,
        line: Number(v8[3] ?? v8[6]),
        column: Number(v8[4] ?? v8[7]),
      });
      continue;
    }
    const gecko = GECKO_FRAME.exec(line);
    if (gecko)
      frames.push({ fn: gecko[1] || '<anonymous>', url: gecko[2]!, line: Number(gecko[3]), column: Number(gecko[4]) });
  }
  return frames;
}

/**
 * Frames that are not the app's code: browser extensions, engine internals, dependencies, and this project's own SDK
 * (whose wrappers sit on top of every error they capture).
 */
const NOT_IN_APP = [
  /^(?:chrome|moz|safari|safari-web|ms-browser)-extension:\/\//,
  /^webkit-masked-url:/,
  /^(?:native|<anonymous>|\[native code\])$/,
  /\/node_modules\//,
  /\/svc(?:-recorder)?(?:\.min)?\.js$/,
  /\/@svc\/browser\//,
];

export function isInApp(url: string): boolean {
  const path = url.replace(/[?#].*$/, '');
  return !NOT_IN_APP.some((pattern) => pattern.test(path));
}

/**
 * A content hash a bundler puts in a file name (`checkout.3f9a1c2b.js`, vite's `index-DiwrgTda.js`): 6 to 32 word
 * characters after a dot or dash, with a digit or with both cases, so `checkout-summary.js` keeps its name.
 */
const CONTENT_HASH = /[.-](?=\w*\d|\w*[a-z]\w*[A-Z]|\w*[A-Z]\w*[a-z])\w{6,32}(?=\.\w+$)/;

/** The file name of a frame URL, the same across deploys: no origin, directories, query, fragment or content hash. */
export function stableFileName(url: string): string {
  const path = url.replace(/[?#].*$/, '');
  const base = path.slice(path.lastIndexOf('/') + 1) || path;
  return base.replace(CONTENT_HASH, '');
}

/** A frame as sent (no map): named by its minified function and its file name without content hash. */
function rawTopFrame(frame: Pick<StackFrame, 'fn' | 'url' | 'line'>): TopFrame {
  const file = stableFileName(frame.url);
  return {
    fn: frame.fn,
    file,
    line: frame.line,
    key: `${frame.fn}@${file}`,
    label: `${frame.fn} (${file}:${frame.line})`,
  };
}

/** The first frame of `stack` that is the app's own code, or null when there is none. */
export function topInAppFrame(stack: string): TopFrame | null {
  const frame = parseStack(stack).find((f) => isInApp(f.url));
  return frame ? rawTopFrame(frame) : null;
}

/**
 * The top in-app frame of a symbolicated stack (in-app also excludes what a map places in `node_modules`). When a map
 * placed it, it is named by the original function and file (`total@src/cart/total.ts`), which a rebuild does not
 * change even when every minified name and hash does. Without any map the answer is {@link topInAppFrame}'s, so groups
 * made before maps existed keep their key.
 */
export function topFrameOf(stack: string, frames: readonly SymbolicatedFrame[]): TopFrame | null {
  if (!frames.some((f) => f.original)) return topInAppFrame(stack);
  const frame = frames.find((f) => f.inApp);
  if (!frame) return null;
  if (!frame.original) return rawTopFrame({ fn: frame.function, url: frame.url, line: frame.line });
  const { file, line, column, context } = frame.original;
  const fn = frame.original.function ?? '<anonymous>';
  const code = context?.lines[line - context.startLine] ?? null;
  return {
    fn,
    file,
    line,
    key: `${fn}@${file}`,
    label: `${fn} (${file}:${line}:${column})`,
    source: { file, function: frame.original.function, line, column, code },
  };
}
