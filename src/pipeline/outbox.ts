import type { Leftover, LeftoverStore } from './leftovers';

// The misconfiguration warnings ride in this module's chunk: code a working page rarely needs, in one lazy chunk
// rather than two (each chunk costs its own compression start and import glue).
export { misconfiguration } from './misconfig';

/**
 * The outbox: OTLP requests that could not go out, kept in IndexedDB (database `svc-outbox`, one per origin) until a
 * later attempt delivers them (docs/sdk-pipeline.md, "Persistence"). Loaded with a dynamic import only when something
 * must be kept or the marker says something is waiting, so none of this is in the initial bundle.
 */

/** Most requests and UTF-8 body bytes kept; over either, the oldest requests go (and their records are counted). */
export const OUTBOX_LIMITS = { requests: 500, bytes: 2_000_000 } as const;

/**
 * A kept request, with the number of records in it (for the drop counter) and the UTF-8 size of its body. The caller
 * measures (it already has, or has `utf8Length`): importing utf8.ts here would make that small module, shared with the
 * initial chunk, a chunk of its own to bundlers that split at dynamic imports (esbuild).
 */
export interface OutboxRequest extends Leftover {
  readonly count: number;
  readonly bytes: number;
}

interface Row extends OutboxRequest {
  readonly id?: number;
  /** A tab sending this row holds it until then (epoch ms); a tab that closed mid-send frees it by expiry. */
  readonly claimedUntil: number;
}

const STORE = 'requests';
const CLAIM_MS = 60_000;

const promised = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

const committed = (tx: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });

let database: Promise<IDBDatabase> | undefined;

function open(): Promise<IDBDatabase> {
  if (!database) {
    const request = indexedDB.open('svc-outbox', 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'id', autoIncrement: true });
    database = promised(request);
    // Blocked or unavailable (private mode): the next call tries again rather than keep a rejected promise.
    database.catch(() => (database = undefined));
  }
  return database;
}

/** Runs `work` in one read-write transaction on the store and resolves its result once the transaction committed. */
async function transact<T>(work: (store: IDBObjectStore) => Promise<T>): Promise<T> {
  const tx = (await open()).transaction(STORE, 'readwrite');
  const done = committed(tx);
  const result = await work(tx.objectStore(STORE));
  await done;
  return result;
}

const allRows = (store: IDBObjectStore): Promise<Row[]> => promised(store.getAll() as IDBRequest<Row[]>);

/** Adds requests, then drops the oldest while over {@link OUTBOX_LIMITS}; resolves the records dropped. */
export function addToOutbox(requests: readonly OutboxRequest[]): Promise<number> {
  return transact(async (store) => {
    for (const { path, body, count, bytes } of requests) store.add({ path, body, count, bytes, claimedUntil: 0 });
    const rows = await allRows(store);
    let bytes = rows.reduce((sum, row) => sum + row.bytes, 0);
    let dropped = 0;
    for (let i = 0; rows.length - i > OUTBOX_LIMITS.requests || bytes > OUTBOX_LIMITS.bytes; i++) {
      store.delete(rows[i]!.id!);
      bytes -= rows[i]!.bytes;
      dropped += rows[i]!.count;
    }
    return dropped;
  });
}

/**
 * Takes the requests a closing page left in local storage into the outbox, then claims every unclaimed row. Two tabs
 * starting at once never claim the same row: IndexedDB runs read-write transactions on one store one after another,
 * and the claim is written in the transaction that read it. The move out of local storage (which has no transactions)
 * runs under a Web Lock where the browser has them.
 */
async function moveAndClaim(
  leftovers: LeftoverStore,
  utf8Length: (text: string) => number,
): Promise<{ rows: Row[]; dropped: number }> {
  const moved = leftovers.list_();
  for (const { key } of moved) leftovers.remove_(key);
  const dropped =
    moved.length > 0
      ? await addToOutbox(moved.map(({ leftover }) => ({ ...leftover, count: 1, bytes: utf8Length(leftover.body) })))
      : 0;
  const now = Date.now();
  const rows = await transact(async (store) => {
    const free = (await allRows(store)).filter((row) => row.claimedUntil < now);
    for (const row of free) store.put({ ...row, claimedUntil: now + CLAIM_MS });
    return free;
  });
  return { rows, dropped };
}

/**
 * Sends the outbox oldest first, deleting each request once `send` says it is done with (delivered, or refused for
 * good); stops at the first one that is not and frees the rest for a later drain. Resolves the records dropped for
 * room and whether the outbox is now empty. `utf8Length` (utf8.ts, passed in: see {@link OutboxRequest}) measures
 * the requests moved in from `leftovers`.
 */
export async function drainOutbox(
  leftovers: LeftoverStore,
  send: (request: Leftover) => Promise<boolean>,
  utf8Length: (text: string) => number,
): Promise<{ dropped: number; empty: boolean }> {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  const move = () => moveAndClaim(leftovers, utf8Length);
  const { rows, dropped } = await (locks ? locks.request('svc-outbox', move) : move());
  let sent = 0;
  while (sent < rows.length && (await send(rows[sent]!))) {
    const id = rows[sent++]!.id!;
    await transact(async (store) => store.delete(id));
  }
  const rest = rows.slice(sent);
  return transact(async (store) => {
    for (const row of rest) store.put({ ...row, claimedUntil: 0 });
    return { dropped, empty: (await promised(store.count())) === 0 };
  });
}
