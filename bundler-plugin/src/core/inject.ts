import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { debugIdFor } from './debug-id';

/** What injecting one emitted JavaScript file did. */
export interface InjectedFile {
  /** Absolute path of the JavaScript file. */
  file: string;
  /** Absolute path of its source map on disk; null when it has none there (none at all, or inline). */
  map: string | null;
  debugId: string;
  /** False when the file already carried a `//# debugId=` (ours or Sentry's): it kept that id and was not changed. */
  injected: boolean;
}

/**
 * The line the build adds to every file: at run time it records the file's own stack (which names the script URL the
 * browser loaded it from) against its debug ID, in the registry the SDK reads when it captures an exception.
 */
export function debugIdSnippet(debugId: string): string {
  return (
    ';!function(){try{var g="undefined"!=typeof globalThis?globalThis:"undefined"!=typeof self?self:{},' +
    `s=(new g.Error).stack;s&&((g._svcDebugIds=g._svcDebugIds||{})[s]="${debugId}")}catch(e){}}();`
  );
}

/** A JavaScript file split into its code and the block of `//#` comments (and blank lines) that ends it. */
interface SplitSource {
  code: string;
  trailer: string;
}

const TRAILER_LINE = /^\s*$|^\s*\/\/[#@] /;

function splitTrailer(text: string): SplitSource {
  const lines = text.split(/(?<=\n)/);
  let start = lines.length;
  while (start > 0 && TRAILER_LINE.test(lines[start - 1]!)) start--;
  return { code: lines.slice(0, start).join(''), trailer: lines.slice(start).join('') };
}

const DEBUG_ID_COMMENT = /\/\/# debugId=([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/;
const MAP_URL_COMMENT = /\/\/[#@] sourceMappingURL=(\S+)/;

/** The `//# sourceMappingURL=` of a file's trailing comments, or null. */
export function sourceMappingUrl(text: string): string | null {
  return MAP_URL_COMMENT.exec(splitTrailer(text).trailer)?.[1] ?? null;
}

/** The file's text without its `//# sourceMappingURL=` comment line; mappings of the code above it are unchanged. */
export function withoutSourceMappingUrl(text: string): string {
  const { code, trailer } = splitTrailer(text);
  return code + trailer.replace(/^[ \t]*\/\/[#@] sourceMappingURL=[^\n]*\n?/m, '');
}

const exists = async (path: string) => (await stat(path).catch(() => null))?.isFile() ?? false;

/**
 * Where a file's map is on disk: the relative `sourceMappingURL` when it points at a file, else `<file>.map` (a
 * "hidden" map, emitted without the comment). Inline (`data:`) and remote maps are not on disk.
 */
async function mapPathOf(file: string, text: string): Promise<string | null> {
  const url = sourceMappingUrl(text);
  if (url?.startsWith('data:')) return null;
  if (url && !/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    const candidate = resolve(dirname(file), decodeURIComponent(url.replace(/[?#].*$/, '')));
    if (await exists(candidate)) return candidate;
  }
  return (await exists(`${file}.map`)) ? `${file}.map` : null;
}

type RawMap = Record<string, unknown>;

async function readMap(path: string): Promise<RawMap> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path} is not a JSON source map: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${path} is not a JSON source map object`);
  return parsed as RawMap;
}

/**
 * Writes `debugId` into a map. `force` replaces an id the map already has (left by an earlier build of different
 * content); otherwise a map with an id of its own (Sentry's `debug_id` included) is left as it is.
 */
async function writeMapDebugId(path: string, debugId: string, force: boolean): Promise<void> {
  const map = await readMap(path);
  const current = map.debugId ?? map.debug_id;
  if (current === debugId || (current !== undefined && !force)) return;
  map.debugId = debugId;
  if ('debug_id' in map) map.debug_id = debugId;
  await writeFile(path, JSON.stringify(map));
}

/**
 * Gives one emitted file a debug ID, and its map the same: the snippet and `//# debugId=` after the last line of code,
 * before a trailing `//# sourceMappingURL=` (so no mapping moves), with the file's own line endings. A file that has a
 * debug ID already keeps it and is left unchanged: injecting twice changes nothing.
 */
export async function injectFile(file: string): Promise<InjectedFile> {
  const text = await readFile(file, 'utf8');
  const map = await mapPathOf(file, text);
  const { code, trailer } = splitTrailer(text);
  const existing = DEBUG_ID_COMMENT.exec(trailer)?.[1]?.toLowerCase();
  if (existing) {
    if (map) await writeMapDebugId(map, existing, false);
    return { file, map, debugId: existing, injected: false };
  }
  const debugId = debugIdFor(text);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const separator = code === '' || code.endsWith('\n') ? '' : eol;
  await writeFile(file, `${code}${separator}${debugIdSnippet(debugId)}${eol}//# debugId=${debugId}${eol}${trailer}`);
  if (map) await writeMapDebugId(map, debugId, true);
  return { file, map, debugId, injected: true };
}
