import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema';
import { isInApp, parseStack, type StackFrame } from '../incidents/detect/top-frame';
import { DEPENDENCY_PATH, ParsedMap } from './parsed-map';
import {
  findByDebugId,
  findByReleaseUrl,
  MapReplacedError,
  readMapIndex,
  readSourceContent,
  type MapRef,
} from './store';
import type { ExceptionFacts, SymbolicatedFrame, Symbolicator } from './types';

/**
 * Default cap of the parsed-map cache, in estimated heap bytes (ParsedMap.bytes): 256 MiB, some twenty builds of a
 * large app's bundle with the sources their errors land in (bench/symbolicate.ts).
 */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * The parsed-map cache: least recently used first out, bounded by the sum of its entries' estimated heap bytes (taken
 * when an entry is stored), not by their count, so one large map does not sit beside a thousand small ones
 * unaccounted. An entry larger than the whole cap is not kept.
 */
export function parsedMapCache<V extends { readonly bytes: number }>(capBytes: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ maxSize: capBytes, sizeCalculation: (value) => Math.max(1, value.bytes) });
}

export interface SymbolicatorOptions {
  db: Kysely<Database>;
  cacheBytes?: number;
}

/**
 * Symbolicates with the project's stored maps (sourcemaps/store.ts), found per frame by the debug ID the SDK sent for
 * its script, else by release and URL. Parsed maps are kept in an LRU bounded by estimated bytes, keyed by the stored
 * row, so a replaced map is never served stale; concurrent requests for one map parse it once.
 */
export function createSymbolicator({ db, cacheBytes = DEFAULT_CACHE_BYTES }: SymbolicatorOptions): Symbolicator {
  const cache = parsedMapCache<ParsedMap>(cacheBytes);
  const parsing = new Map<string, Promise<ParsedMap | null>>();
  /** Maps found replaced while a source of theirs was read: a symbolication that used one is done again. */
  const replaced = new Set<string>();

  const parsed = (ref: MapRef): Promise<ParsedMap | null> => {
    const hit = cache.get(ref.id);
    if (hit) return Promise.resolve(hit);
    let pending = parsing.get(ref.id);
    if (!pending) {
      pending = loadMap(ref).finally(() => parsing.delete(ref.id));
      parsing.set(ref.id, pending);
    }
    return pending;
  };

  async function loadMap(ref: MapRef): Promise<ParsedMap | null> {
    try {
      const index = await readMapIndex(db, ref.id);
      if (index === undefined) return null;
      const map = new ParsedMap(index, (idx) =>
        readSourceContent(db, ref.id, idx).catch((err: unknown) => {
          if (err instanceof MapReplacedError) replaced.add(ref.id);
          throw err;
        }),
      );
      cache.set(ref.id, map);
      return map;
    } catch {
      // A map that cannot be read symbolicates nothing; its frames stay as they were sent.
      return null;
    }
  }

  const mapFor = async (facts: ExceptionFacts, url: string): Promise<{ id: string; map: ParsedMap } | null> => {
    const debugId = facts.debugIds.get(url);
    const ref =
      (debugId ? await findByDebugId(db, facts.projectId, debugId) : undefined) ??
      (facts.release ? await findByReleaseUrl(db, facts.projectId, facts.release, urlKeys(url), debugId) : undefined);
    const map = ref ? await parsed(ref) : null;
    return ref && map ? { id: ref.id, map } : null;
  };

  const symbolicateOnce = async (facts: ExceptionFacts) => {
    const frames = parseStack(facts.stacktrace);
    const urls = [...new Set(frames.map((f) => f.url))];
    const maps = new Map(await Promise.all(urls.map(async (url) => [url, await mapFor(facts, url)] as const)));
    const result = await Promise.all(
      frames.map((frame) =>
        symbolicateFrame(frame, maps.get(frame.url)?.map ?? null, facts.debugIds.get(frame.url) ?? null),
      ),
    );
    // Sources loaded for these frames make their map larger: account for them, which may evict older maps. Set
    // anew, since lru-cache keeps the size it took for a value set again unchanged.
    for (const used of maps.values()) {
      if (used && cache.get(used.id) === used.map) {
        cache.delete(used.id);
        cache.set(used.id, used.map);
      }
    }
    return { result, used: [...maps.values()].flatMap((m) => (m ? [m.id] : [])) };
  };

  return {
    async symbolicate(facts) {
      // A map uploaded again while its sources were read leaves frames without their source (so without the enclosing
      // function's name): symbolicate once more with the map that replaced it. Twice is enough: the second run finds
      // the new row, whose sources were committed with it.
      for (let attempt = 1; ; attempt++) {
        const { result, used } = await symbolicateOnce(facts);
        const stale = used.filter((id) => replaced.has(id));
        if (stale.length === 0 || attempt === 2) return result;
        for (const id of stale) {
          replaced.delete(id);
          cache.delete(id);
        }
      }
    },
  };
}

async function symbolicateFrame(
  frame: StackFrame,
  map: ParsedMap | null,
  debugId: string | null,
): Promise<SymbolicatedFrame> {
  const original = map
    ? await map.lookup(frame.line, frame.column, frame.fn === '<anonymous>' ? null : frame.fn)
    : null;
  return {
    function: frame.fn,
    url: frame.url,
    line: frame.line,
    column: frame.column,
    // A dependency's code is never the app's, wherever the bundle put it.
    inApp: isInApp(frame.url) && !(original && DEPENDENCY_PATH.test(original.file)),
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
