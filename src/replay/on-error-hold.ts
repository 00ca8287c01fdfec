import type { ReplayMode, SessionSampling } from '../session/sampling';
import { openStore } from '../session/storage';
import type { NextChunk } from './chunk-buffer';
import type { Buffered } from './replay-buffers';

/**
 * In on-error mode a full snapshot is taken this often and what came before the previous one is let go, so an error
 * sends between one and two of these periods of replay.
 */
export const ON_ERROR_WINDOW_MS = 60_000;

export interface OnErrorHold {
  /** The replay mode of a session: `full` for an on-error session that had its error, on this page or an earlier one. */
  mode_(sessionId: string): ReplayMode;
  /** A window closed: `buffered` is kept as the previous window, letting go of the one before it. */
  window_(buffered: Buffered): void;
  /** The session had its error: it records in full from now on, on its later pages too. Gives what was kept. */
  release_(sessionId: string): NextChunk;
}

/** What an on-error session keeps in memory until an error: the events and recipe steps of the previous window. */
export function createOnErrorHold(sampling: (sessionId: string) => SessionSampling, storageKey: string): OnErrorHold {
  const store = openStore();
  const erroredKey = `${storageKey}.errored`;
  let held: Buffered = [[], []];
  return {
    mode_(sessionId) {
      const mode = sampling(sessionId).replay;
      return mode === 'on_error' && store.get(erroredKey) === sessionId ? 'full' : mode;
    },
    window_(buffered) {
      held = buffered;
    },
    release_(sessionId) {
      store.set(erroredKey, sessionId);
      const kept = held;
      held = [[], []];
      return (steps) => kept[steps].shift();
    },
  };
}
