import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { isInApp, parseStack, type StackFrame } from '../incidents/detect/top-frame';
import { ByteLru } from './byte-lru';
import { ParsedMap } from './parsed-map';
import { findByDebugId, findByReleaseUrl, readMapText, type MapRef } from './store';
import type { ExceptionFacts, SymbolicatedFrame, Symbolicator } from './types';

/**
 * Default cap of the parsed-map cache: 256 MiB, as estimated below. A parsed map holds its JSON's strings and, once
 * looked up, its decoded mappings: about three times its text (bench/symbolicate.ts measures it), so the default keeps
 * some 80 MiB of maps, a few dozen builds of a typical app.
 */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;
const PARSED_BYTES_PER_TEXT_BYTE = 3;

export interface SymbolicatorOptions {
  db: Kysely<Database>;
  cacheBytes?: number;
}

/** A dependency's code is never the app's, wherever the bundle put it. */
const DEPENDENCY = /(?:^|\/)node_modules\//;

/**
 * Symbolicates with the project's stored maps (sourcemaps/store.ts), found per frame by the debug ID the SDK sent for
 * its script, else by release and URL. Parsed maps are kept in an LRU bounded by estimated bytes, keyed by the stored
 * row, so a replaced map is never served stale; concurrent requests for one map parse it once.
 */
export function createSymbolicator({ db, cacheBytes = DEFAULT_CACHE_BYTES }: SymbolicatorOptions): Symbolicator {
  const cache = new ByteLru<ParsedMap>(cacheBytes);
  const parsing = new Map<string, Promise<ParsedMap | null>>();

  const parsed = (ref: MapRef): Promise<ParsedMap | null> => {
    const hit = cache.get(ref.id);
    if (hit) return Promise.resolve(hit);
    let pending = parsing.get(ref.id);
    if (!pending) {
      pending = loadMap(db, ref).finally(() => parsing.delete(ref.id));
      parsing.set(ref.id, pending);
    }
    return pending;
  };

  async function loadMap(db: Kysely<Database>, ref: MapRef): Promise<ParsedMap | null> {
    try {
      const text = await readMapText(db, ref.id);
      if (text === undefined) return null;
      const map = new ParsedMap(text);
      cache.set(ref.id, map, ref.bytes * PARSED_BYTES_PER_TEXT_BYTE);
      return map;
    } catch {
      // A map that cannot be read symbolicates nothing; its frames stay as they were sent.
      return null;
    }
  }

  const mapFor = async (facts: ExceptionFacts, url: string): Promise<ParsedMap | null> => {
    const debugId = facts.debugIds.get(url);
    const ref =
      (debugId ? await findByDebugId(db, facts.projectId, debugId) : undefined) ??
      (facts.release ? await findByReleaseUrl(db, facts.projectId, facts.release, urlKeys(url)) : undefined);
    return ref ? parsed(ref) : null;
  };

  return {
    async symbolicate(facts) {
      const frames = parseStack(facts.stacktrace);
      const urls = [...new Set(frames.map((f) => f.url))];
      const maps = new Map(await Promise.all(urls.map(async (url) => [url, await mapFor(facts, url)] as const)));
      return frames.map((frame) => symbolicateFrame(frame, maps.get(frame.url) ?? null, facts.debugIds.get(frame.url) ?? null));
    },
  };
}

function symbolicateFrame(frame: StackFrame, map: ParsedMap | null, debugId: string | null): SymbolicatedFrame {
  const original = map?.lookup(frame.line, frame.column, frame.fn === '<anonymous>' ? null : frame.fn) ?? null;
  return {
    function: frame.fn,
    url: frame.url,
    line: frame.line,
    column: frame.column,
    inApp: isInApp(frame.url) && !(original && DEPENDENCY.test(original.file)),
    debugId,
    original,
  };
}

/**
 * The stored URLs a frame's script matches, most specific first: itself, itself without query or fragment, and
 * `~/path`, which a map uploaded without an origin is stored under (docs/source-maps.md).
 */
export function urlKeys(url: string): string[] {
  const keys = [url, url.replace(/[?#].*$/, '')];
  try {
    keys.push(`~${new URL(url).pathname}`);
  } catch {
    // Not an absolute URL: only the exact forms can match.
  }
  return [...new Set(keys)];
}
