import type SQLite from 'better-sqlite3';

/** Settings of every connection to a SQLite database: the server's and the ingest writer thread's. */
export function configureSqlite(sqlite: SQLite.Database): SQLite.Database {
  // WAL lets the query API read while ingest writes; NORMAL sync is durable against process crashes in WAL mode.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // 32 MiB of page cache instead of 2 MiB: the indexes of a busy ingest outgrow the default within minutes.
  sqlite.pragma('cache_size = -32768');
  sqlite.pragma('foreign_keys = ON');
  return sqlite;
}
