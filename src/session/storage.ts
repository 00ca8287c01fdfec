import { localStorageIfAvailable } from '../pipeline/leftovers';

/**
 * `localStorage`, or an in-memory map when storage is unavailable: blocked by the browser's privacy settings, a
 * sandboxed iframe, Safari's private mode quota, or no `window` at all. Every access can throw, so each one is
 * wrapped; a failing write switches to memory for the rest of the page's life.
 */
export interface KeyValueStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

export function openStore(): KeyValueStore {
  const memory = new Map<string, string>();
  let storage = localStorageIfAvailable();
  return {
    get(key) {
      if (storage !== undefined) {
        try {
          return storage.getItem(key);
        } catch {
          storage = undefined;
        }
      }
      return memory.get(key) || null;
    },
    set(key, value) {
      memory.set(key, value);
      if (storage === undefined) return;
      try {
        storage.setItem(key, value);
      } catch {
        storage = undefined;
      }
    },
  };
}
