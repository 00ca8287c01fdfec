/** Where a lazily loaded module's pending load is kept between calls (see {@link sharedLoad}). */
export interface LoadSlot<T> {
  pending?: Promise<T>;
}

/**
 * Runs `load` once and hands its promise to every caller, concurrent or later; after a failure (a chunk or script
 * that could not be fetched) the slot empties, so the next call tries again instead of returning the same rejection
 * forever. Shared by the bundler loader (replay/load-recorder.ts) and the script-tag one (cdn/load-recorder.ts).
 */
export function sharedLoad<T>(slot: LoadSlot<T>, load: () => Promise<T>): Promise<T> {
  if (slot.pending === undefined) {
    const loading = load();
    slot.pending = loading;
    loading.catch(() => {
      if (slot.pending === loading) slot.pending = undefined;
    });
  }
  return slot.pending;
}
