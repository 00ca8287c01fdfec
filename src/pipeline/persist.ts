import { createLeftoverStore, localStorageIfAvailable, type Leftover } from './leftovers';
import type { OutboxRequest } from './outbox';
import { utf8Length } from './utf8';

/**
 * Local-storage key saying the outbox may hold requests: only then does a page load the outbox module at start. Its
 * value is the time (epoch ms) before which no page of the origin sends, the server's `Retry-After` (1 when none): a
 * full quota then holds every page load back, instead of each trying once more at start.
 */
export const OUTBOX_MARKER = 'svc.outbox';

/** Most characters of page-leave requests kept in local storage: what the outbox holds (OUTBOX_LIMITS.bytes). */
const KEPT_CHARS = 2_000_000;

/** How the pipeline keeps requests it cannot send (docs/sdk-pipeline.md, "Persistence"). */
export interface Persistence {
  /**
   * Page leave: keeps requests the browser did not take in local storage, synchronously (a closing page cannot wait
   * for IndexedDB); the next start moves them into the outbox. Returns each one's key, undefined when not kept.
   */
  keep_(requests: readonly Leftover[]): Array<string | undefined>;
  /** A kept request went out after all (the page was only hidden). */
  forget_(key: string): void;
  /** Puts requests in the IndexedDB outbox. */
  store_(requests: readonly OutboxRequest[]): void;
  /** Sends what the outbox holds, when the marker says it may hold something. */
  drain_(): void;
  /** The pause an earlier page of the origin was asked for (epoch ms; 0 or a time past when none). */
  readonly pausedUntil_: number;
  /** The server asked to wait until `time` (epoch ms): every page load of the origin waits too, until a drain. */
  pause_(time: number): void;
}

/**
 * `send` posts one kept request and resolves true once it is done with (delivered, or refused for good); `onDrop`
 * counts records lost for room (`outbox_full`) or because the outbox cannot be used (`persist_failed`). The outbox
 * code is imported on first use; its calls run one after another.
 */
export function createPersistence(
  send: (request: Leftover) => Promise<boolean>,
  onDrop: (reason: string, count: number) => void,
): Persistence {
  const storage = localStorageIfAvailable();
  const leftovers = createLeftoverStore(storage, 'svc.otlp.', KEPT_CHARS);
  const read = (): string | null => {
    try {
      return storage ? storage.getItem(OUTBOX_MARKER) : null;
    } catch {
      // Unreadable storage: nothing is known to wait.
      return null;
    }
  };
  let until = Number(read()) || 0;
  const mark = (on: boolean): void => {
    try {
      if (on) storage!.setItem(OUTBOX_MARKER, String(until || 1));
      else storage!.removeItem(OUTBOX_MARKER);
    } catch {
      // No storage: nothing kept in local storage, and the outbox is still drained whenever this page stored.
    }
  };
  let chain: Promise<unknown> = Promise.resolve();
  const run = (work: (outbox: typeof import('./outbox')) => Promise<void>, lost: number): void => {
    chain = chain
      .then(() => import('./outbox'))
      .then(work)
      .catch(() => lost && onDrop('persist_failed', lost));
  };
  return {
    keep_(requests) {
      const keys = leftovers.save_(requests);
      if (keys.some((key) => key !== undefined)) mark(true);
      return keys;
    },
    forget_: (key) => leftovers.remove_(key),
    store_(requests) {
      mark(true);
      run(
        async (outbox) => {
          const dropped = await outbox.addToOutbox(requests);
          if (dropped > 0) onDrop('outbox_full', dropped);
        },
        requests.reduce((sum, request) => sum + request.count, 0),
      );
    },
    drain_() {
      if (read() === null) return;
      run(async (outbox) => {
        const { dropped, empty } = await outbox.drainOutbox(leftovers, send, utf8Length);
        if (dropped > 0) onDrop('outbox_full', dropped);
        if (empty) mark(false);
      }, 0);
    },
    pausedUntil_: until,
    pause_(time) {
      until = time;
      mark(true);
    },
  };
}
