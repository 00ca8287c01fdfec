import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * One change request, one transaction (docs/architecture.md, "One change, one transaction"): while `inOneTransaction`
 * runs, every write of its async context, and every read after the first write, goes through one connection in one
 * transaction, begun at the first write (so a request that is refused, or that reads and then waits on another
 * service, holds no lock), and the stores' own transactions become savepoints inside it. The control plane uses it so
 * that a change and its audit entry commit together or not at all.
 */
interface Scope {
  open: boolean;
  /** The scope's connection in its transaction, once a write asked for it. */
  connection?: Promise<DatabaseConnection>;
  /** Ends the transaction (commit or rollback) and gives the connection back; set when it began. */
  end?: (commit: boolean) => Promise<void>;
  /** Work to start once the change has committed (outside the scope). */
  afterCommit: (() => void)[];
}

const scopes = new AsyncLocalStorage<Scope>();

const openScope = (): Scope | undefined => {
  const scope = scopes.getStore();
  return scope?.open ? scope : undefined;
};

/**
 * Runs `work` in one transaction, committed when it resolves `true` and rolled back when it resolves `false` or
 * throws; a failed commit rejects. Work queued with `afterCommit` starts once the commit has succeeded.
 */
export async function inOneTransaction(work: () => Promise<boolean>): Promise<void> {
  const scope: Scope = { open: true, afterCommit: [] };
  let commit = false;
  try {
    commit = await scopes.run(scope, work);
  } finally {
    scope.open = false;
    await scope.end?.(commit);
  }
  if (commit) for (const start of scope.afterCommit) scopes.exit(start);
}

/**
 * Starts `start` once the current change has committed (work that must see it, like a background job reading the row
 * the request wrote), or now outside any change.
 */
export function afterCommit(start: () => void): void {
  const scope = openScope();
  if (scope) scope.afterCommit.push(start);
  else start();
}

/**
 * Runs `work` outside the current change, on connections of its own, each write committed at once: for a row another
 * part of the server must see while the request still runs (a test notification's delivery, which the request then
 * waits on). It is not part of the change: the change's rollback does not undo it. Call it before the change's first
 * write: on SQLite a transaction already begun holds the one connection `work` would wait for.
 */
export function outsideTheChange<T>(work: () => Promise<T>): Promise<T> {
  return scopes.exit(work);
}

const savepointName = (depth: number) => `svc_change_${depth}`;

/**
 * What a scope's queries run on: reads go to a connection of their own until the scope's first write (or store
 * transaction) begins its transaction, then everything runs in it. A change that reads, waits on another service
 * (GitHub, a model) and then writes holds no lock while it waits.
 */
class ChangeConnection implements DatabaseConnection {
  /** Savepoints open inside the transaction: a store's `db.transaction()` in the scope nests as one. */
  depth = 0;

  constructor(
    private readonly driver: Driver,
    private readonly scope: Scope,
    private readonly beginSql: string,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.scope.connection === undefined && query.query.kind === 'SelectQueryNode') return this.readAlone(query);
    return (await this.transaction()).executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.transaction()).streamQuery<R>(query, chunkSize);
  }

  /** The connection in the scope's transaction, begun by the first caller. */
  transaction(): Promise<DatabaseConnection> {
    this.scope.connection ??= this.begin();
    return this.scope.connection;
  }

  private async readAlone<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const connection = await this.driver.acquireConnection();
    try {
      return await connection.executeQuery<R>(query);
    } finally {
      await this.driver.releaseConnection(connection);
    }
  }

  private async begin(): Promise<DatabaseConnection> {
    const { driver } = this;
    const connection = await driver.acquireConnection();
    try {
      await connection.executeQuery(CompiledQuery.raw(this.beginSql));
    } catch (err) {
      await driver.releaseConnection(connection);
      throw err;
    }
    this.scope.end = async (commit) => {
      try {
        if (commit) await driver.commitTransaction(connection);
        else await driver.rollbackTransaction(connection);
      } finally {
        await driver.releaseConnection(connection);
      }
    };
    return connection;
  }

  async savepoint(step: 'begin' | 'commit' | 'rollback'): Promise<void> {
    const connection = await this.transaction();
    if (step === 'begin') this.depth += 1;
    const name = savepointName(this.depth);
    const statements = {
      begin: [`savepoint ${name}`],
      commit: [`release savepoint ${name}`],
      rollback: [`rollback to savepoint ${name}`, `release savepoint ${name}`],
    }[step];
    if (step !== 'begin') this.depth -= 1;
    for (const statement of statements) await connection.executeQuery(CompiledQuery.raw(statement));
  }
}

const scopedConnections = new WeakMap<Scope, ChangeConnection>();

class ScopedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly beginSql: string,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const scope = openScope();
    if (!scope) return this.inner.acquireConnection();
    let connection = scopedConnections.get(scope);
    if (!connection)
      scopedConnections.set(scope, (connection = new ChangeConnection(this.inner, scope, this.beginSql)));
    return connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (connection instanceof ChangeConnection) return connection.savepoint('begin');
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof ChangeConnection) return connection.savepoint('commit');
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof ChangeConnection) return connection.savepoint('rollback');
    return this.inner.rollbackTransaction(connection);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    // The scope's transaction gives its connection back when it ends, not after each query.
    return connection instanceof ChangeConnection ? Promise.resolve() : this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * `dialect` with request transactions. `beginSql` starts the scope's transaction: SQLite's `begin immediate` takes
 * the write lock at once, so a change that reads first cannot meet a snapshot another connection wrote past.
 */
export function withRequestTransactions(dialect: Dialect, beginSql: string): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new ScopedDriver(dialect.createDriver(), beginSql),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
