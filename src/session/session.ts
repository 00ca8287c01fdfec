import type { SessionTracker } from '../core/core';
import { randomHexId } from './ids';
import { openStore, type KeyValueStore } from './storage';

/**
 * Session lifetime, the values Datadog RUM uses: a session ends after 15 minutes without activity or 4 hours after it
 * started, whichever comes first. Activity is any telemetry the SDK records (which includes user interactions).
 */
export const SESSION_INACTIVITY_MS = 15 * 60 * 1000;
export const SESSION_MAX_AGE_MS = 4 * 60 * 60 * 1000;
/** Activity is written back to storage at most this often, so recording a burst of logs costs no storage writes. */
const PERSIST_INTERVAL_MS = 5_000;

interface SessionState {
  id: string;
  startedMs: number;
  lastActiveMs: number;
}

/**
 * The id itself is stored under `key` (what `replay.sessionStorageKey` promises); start and last-activity times live
 * beside it under `${key}.times`. Tabs of one origin share the storage, hence the session, as users expect. With an
 * `owner` (a test attempt, see sdk/test-context.ts), written under `${key}.test`, a stored session of another owner
 * is not taken up: a test that starts from another test's saved storage state gets a session of its own.
 */
export function createSessionTracker(
  key: string,
  now: () => number = Date.now,
  store: KeyValueStore = openStore(),
  owner?: string,
): SessionTracker {
  const timesKey = `${key}.times`;
  const ownerKey = `${key}.test`;
  const listeners = new Set<(sessionId: string) => void>();
  let persistedMs = -Infinity;

  const expired = (state: SessionState, at: number): boolean =>
    at - state.lastActiveMs >= SESSION_INACTIVITY_MS ||
    at - state.startedMs >= SESSION_MAX_AGE_MS ||
    at < state.startedMs;

  const read = (): SessionState | undefined => {
    const id = store.get(key);
    const stored = store.get(timesKey);
    const times = stored === null ? [] : stored.split('.');
    const startedMs = Number(times[0]);
    const lastActiveMs = Number(times[1]);
    if (id === null || !/^[\w-]{1,128}$/.test(id) || !Number.isFinite(startedMs) || !Number.isFinite(lastActiveMs)) {
      return undefined;
    }
    if (owner !== undefined && store.get(ownerKey) !== owner) return undefined;
    return { id, startedMs, lastActiveMs };
  };

  const persist = (state: SessionState, at: number): void => {
    store.set(key, state.id);
    store.set(timesKey, `${state.startedMs}.${state.lastActiveMs}`);
    if (owner !== undefined) store.set(ownerKey, owner);
    persistedMs = at;
  };

  const begin = (at: number): SessionState => ({ id: randomHexId(), startedMs: at, lastActiveMs: at });

  let state: SessionState = (() => {
    const at = now();
    const stored = read();
    const current = stored !== undefined && !expired(stored, at) ? stored : begin(at);
    current.lastActiveMs = at;
    persist(current, at);
    return current;
  })();

  return {
    id() {
      const at = now();
      if (at - persistedMs >= PERSIST_INTERVAL_MS || expired(state, at)) {
        const previousId = state.id;
        // Another tab may have extended or rotated the session since we last looked.
        const stored = read();
        if (stored !== undefined && !expired(stored, at)) state = stored;
        if (expired(state, at)) state = begin(at);
        state.lastActiveMs = at;
        persist(state, at);
        if (state.id !== previousId) for (const listener of listeners) listener(state.id);
      } else {
        state.lastActiveMs = at;
      }
      return state.id;
    },
    onRotate(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
