import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { retryWhileBusy } from '../db/sqlite-busy';
import { groupCommit } from './group-commit';
import { sqliteGroupWrite } from './sqlite-group-write';
import type { StoreResult, TelemetryWrite, TelemetryWriter } from './writer';

/**
 * SQLite on the server's own connection, with group commit (see sqliteGroupWrite). Used for `:memory:` databases,
 * which no other thread can open, and when the server runs from source rather than from its build.
 */
export function sqliteWriter(db: Kysely<Database>, sqlite: SQLite.Database): TelemetryWriter {
  const writeGroup = sqliteGroupWrite(sqlite);
  // Take the connection from Kysely, so the group never runs inside a transaction Kysely has open.
  const queue = groupCommit<TelemetryWrite, StoreResult>((group) =>
    db.connection().execute(() => retryWhileBusy(() => writeGroup(group))),
  );
  return {
    kind: 'sqlite, main thread',
    write: (write) => (write.rows.length === 0 ? Promise.resolve({ stored: 0, duplicates: 0 }) : queue.submit(write)),
    close: queue.drain,
  };
}
