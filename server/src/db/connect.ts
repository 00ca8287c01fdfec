import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { withRequestTransactions } from './request-transaction';
import type { Database } from './schema';
import { withTimerBusyWait } from './sqlite-busy';
import { configureSqlite } from './sqlite-settings';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /**
   * The better-sqlite3 connection behind `db` (SQLite only), for the ingest writer's cached prepared statements.
   * Kysely serializes its own use of it; raw users must go through `db.connection()` to take their turn.
   */
  sqlite?: SQLite.Database;
  /** The pool behind `db` (PostgreSQL only), for libraries that speak to PostgreSQL themselves (the rate limiter). */
  pool?: pg.Pool;
  /** The URL with any password removed, for logs. */
  displayUrl: string;
  close(): Promise<void>;
}

/** Default embedded database file, relative to the working directory. */
export const DEFAULT_DATABASE_URL = './.svc-data/svc.db';

const INT8_OID = 20;

/** The SQLite file (or `:memory:`) a database URL names; null for a PostgreSQL URL. */
export function sqlitePathOf(url: string): string | null {
  return /^postgres(ql)?:\/\//i.test(url) ? null : url.replace(/^(sqlite|file):(\/\/)?/i, '');
}

export interface OpenOptions {
  /** Makes a missing SQLite file (and its folder). Default true; false opens only an existing one. */
  create?: boolean;
}

/**
 * Opens the database a URL names: `postgres://` or `postgresql://` selects PostgreSQL; anything else is a SQLite file
 * path (optionally `sqlite:` or `file:` prefixed) or `:memory:`.
 */
export function openDatabase(url: string = DEFAULT_DATABASE_URL, options: OpenOptions = {}): DatabaseHandle {
  const path = sqlitePathOf(url);
  return path === null ? openPostgres(url) : openSqlite(path, options.create ?? true);
}

function openSqlite(path: string, create: boolean): DatabaseHandle {
  if (path !== ':memory:' && create) mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = configureSqlite(new SQLite(path, { fileMustExist: !create }));
  // The lock is waited for on timers, not in SQLite's busy handler on the event loop (sqlite-busy.ts).
  sqlite.pragma('busy_timeout = 0');
  const db = new Kysely<Database>({
    dialect: withRequestTransactions(
      withTimerBusyWait(new SqliteDialect({ database: sqlite }), sqlite),
      'begin immediate',
    ),
  });
  return { db, dialect: 'sqlite', sqlite, displayUrl: path, close: () => db.destroy() };
}

function openPostgres(url: string): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // Millisecond times and bigserial ids are stored as int8; they stay far below 2^53, so read them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? (v: string) => Number(v)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client dropped by the server (restart, failover, admin terminate) emits 'error' on the pool; unhandled, that
  // would crash the process. The pool discards the client and the next query opens a new connection.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: withRequestTransactions(new PostgresDialect({ pool }), 'begin') });
  return {
    db,
    dialect: 'postgres',
    pool,
    displayUrl: url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@'),
    close: () => db.destroy(),
  };
}
