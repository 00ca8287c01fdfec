import { setTimeout as sleep } from 'node:timers/promises';
import type { DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { yieldIfLongTurn } from './event-loop-turn';

/**
 * The server's own SQLite connection waits for the write lock without stopping the event loop.
 *
 * better-sqlite3 is synchronous, so with a `busy_timeout` a statement that meets another connection's write lock (the
 * ingest writer thread commits continuously under load, an administration command may hold it for seconds) sleeps in
 * SQLite's busy handler on the event loop: 1, 2, 5, 10, ... 50, 100 ms steps, 228 ms by the eleventh, up to the whole
 * timeout, while no request is read or answered (test/integration/sqlite-busy-wait.test.ts: 5.4 s frozen). The
 * connection gets `busy_timeout = 0` instead: a statement that cannot take the lock fails at once having done
 * nothing, and is run again after a timer, for as long as the busy timeout allowed before.
 */

/** As long as SQLite's busy handler waited before (sqlite-settings.ts): then the statement fails as it did. */
export const BUSY_WAIT_MS = 5_000;
/** The first wait, doubled up to the longest: short enough to follow a group commit of a few milliseconds. */
const FIRST_WAIT_MS = 1;
const LONGEST_WAIT_MS = 16;

/** SQLITE_BUSY and SQLITE_BUSY_RECOVERY clear by themselves; SQLITE_BUSY_SNAPSHOT needs the transaction to start again. */
const isBusy = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY';
};

/** Runs `work` until it does not fail busy, waiting on timers in between, for at most {@link BUSY_WAIT_MS}. */
export async function retryWhileBusy<T>(work: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await work();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      await sleep(wait);
    }
  }
}

/** Whether the connection is inside a transaction (better-sqlite3's `Database`). */
interface TransactionState {
  readonly inTransaction: boolean;
}

/**
 * A connection whose statements wait for the write lock on timers (reads never wait for it in WAL mode), and, outside
 * a transaction, let the event loop turn when a chain of them has held it long (event-loop-turn.ts). Inside one they
 * run on: it holds the write lock, which the ingest writer thread waits for.
 */
class BusyWaitConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly state: TransactionState,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.state.inTransaction) await yieldIfLongTurn();
    return retryWhileBusy(() => this.inner.executeQuery<R>(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** The driver's own transaction statements go through the wrapped connection, so `begin`/`commit` wait the same way. */
class BusyWaitDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, BusyWaitConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly state: TransactionState,
  ) {}

  init = () => this.inner.init();
  destroy = () => this.inner.destroy();

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let busyWait = this.wrapped.get(connection);
    if (!busyWait) this.wrapped.set(connection, (busyWait = new BusyWaitConnection(connection, this.state)));
    return busyWait;
  }

  beginTransaction = (c: DatabaseConnection, settings: TransactionSettings) => this.inner.beginTransaction(c, settings);
  commitTransaction = (c: DatabaseConnection) => this.inner.commitTransaction(c);
  rollbackTransaction = (c: DatabaseConnection) => this.inner.rollbackTransaction(c);
  releaseConnection = (c: DatabaseConnection) => this.inner.releaseConnection((c as BusyWaitConnection).inner);
}

/**
 * `dialect` (SQLite, on the connection `sqlite` with `busy_timeout = 0`) with statements that wait for the write lock
 * on timers and let the event loop turn between long chains of them.
 */
export function withTimerBusyWait(dialect: Dialect, sqlite: TransactionState): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new BusyWaitDriver(dialect.createDriver(), sqlite),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
