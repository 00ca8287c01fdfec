/**
 * Replay requests a closing page could not hand to the browser, kept in local storage for the next page load of the
 * same origin (docs/sdk-replay.md, "Unload"). Each request is one entry under `<prefix><order>`; the order key sorts
 * entries in the order they were saved, across page loads.
 */

/** One request body, ready to post as it is. */
export interface Leftover {
  readonly path: string;
  readonly body: string;
}

/** The parts of `Storage` used, so that tests and pages without storage can pass their own or none. */
export type LeftoverStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

/** Most characters kept across all entries: a fifth of the usual 5 MB quota, which the application shares. */
export const LEFTOVER_LIMIT_CHARS = 1_000_000;

export interface LeftoverStore {
  /**
   * Saves requests in order, while they fit the limit; returns each one's key, undefined for those not saved (over
   * the limit, or refused by storage).
   */
  save_(leftovers: readonly Leftover[]): Array<string | undefined>;
  remove_(key: string): void;
  /** Every saved request, oldest first, with its key. */
  list_(): Array<{ key: string; leftover: Leftover }>;
}

/** `storage` is undefined where local storage is missing or blocked: then nothing is kept and nothing fails. */
export function createLeftoverStore(
  storage: LeftoverStorage | undefined,
  prefix: string,
  limit = LEFTOVER_LIMIT_CHARS,
): LeftoverStore {
  let counter = 0;
  const guarded = <T>(fallback: T, run: () => T): T => {
    if (storage === undefined) return fallback;
    try {
      return run();
    } catch {
      // Storage throws when full, disabled, or blocked by privacy settings.
      return fallback;
    }
  };
  const keys = (): string[] =>
    guarded([], () => {
      const found: string[] = [];
      for (let i = 0; i < storage!.length; i++) {
        const key = storage!.key(i);
        if (key && key.startsWith(prefix)) found.push(key);
      }
      return found.sort();
    });
  const used = (): number => keys().reduce((sum, key) => sum + key.length + (storage!.getItem(key) || '').length, 0);

  return {
    save_(leftovers) {
      let total = guarded(limit, used);
      return leftovers.map((leftover) => {
        // Time first, so that entries of later page loads sort after; the counter orders one page's entries.
        const key = `${prefix}${Date.now().toString(36).padStart(9, '0')}.${(counter++).toString(36).padStart(4, '0')}`;
        // Only what is posted: callers may pass richer objects (the records of the request) that must not be stored.
        const value = JSON.stringify({ path: leftover.path, body: leftover.body });
        if (total + key.length + value.length > limit) return undefined;
        return guarded(undefined, () => {
          storage!.setItem(key, value);
          total += key.length + value.length;
          return key;
        });
      });
    },
    remove_(key) {
      guarded(undefined, () => storage!.removeItem(key));
    },
    list_() {
      return keys().flatMap((key) => {
        const leftover = guarded<Leftover | undefined>(undefined, () => parseLeftover(storage!.getItem(key)));
        if (leftover !== undefined) return [{ key, leftover }];
        // Not ours or damaged: removed, so it is not read at every start.
        guarded(undefined, () => storage!.removeItem(key));
        return [];
      });
    },
  };
}

function parseLeftover(text: string | null): Leftover | undefined {
  if (text === null) return undefined;
  const value = JSON.parse(text) as Partial<Leftover> | null;
  return value && typeof value.path === 'string' && typeof value.body === 'string'
    ? { path: value.path, body: value.body }
    : undefined;
}

/** `localStorage`, or undefined where it is missing or merely reading it throws (sandboxed frames, blocked storage). */
export function localStorageIfAvailable(): LeftoverStorage | undefined {
  try {
    return globalThis.localStorage || undefined;
  } catch {
    return undefined;
  }
}
