import type { DatabaseHandle } from '../db/connect';
import type { TelemetryTable } from '../db/schema';
import type { SessionFacts } from '../otlp/session-facts';
import { postgresWriter } from './postgres-writer';
import { sqliteThreadWriter, writerThreadAvailable } from './sqlite-thread-writer';
import { sqliteWriter } from './sqlite-writer';

/**
 * A telemetry row as stored: a normalizer's row (`PendingRow`) resolved to its app and stamped with its project and
 * time of receipt. The columns the writers read are typed; the rest go to the table as the normalizer built them.
 */
export interface StoredRow {
  project_id: string;
  app_id: string;
  received_ms: number;
  session_id: string | null;
  time_ms: number;
  end_ms?: number;
  [column: string]: unknown;
}

/** One request's validated rows, all for one table. */
export interface TelemetryWrite {
  projectId: string;
  table: TelemetryTable;
  rows: StoredRow[];
  receivedMs: number;
  /** Users, attributes and sampling of the sessions the rows belong to (OTLP only), one entry per session. */
  sessions?: SessionFacts[];
}

export interface StoreResult {
  stored: number;
  /** Replay chunks already stored under the same (session, replay, seq): an SDK retry, acknowledged and ignored. */
  duplicates: number;
}

/**
 * Stores validated rows and updates the session summaries they touch. `write` resolves only once the rows are
 * committed, and a write is stored whole or not at all.
 */
export interface TelemetryWriter {
  /** How rows are written, for the start-up banner: e.g. `sqlite, writer thread`. */
  readonly kind: string;
  write(write: TelemetryWrite): Promise<StoreResult>;
  /** Resolves once every write already accepted has been committed or has failed. */
  close(): Promise<void>;
}

/**
 * PostgreSQL: a transaction per request. SQLite: group commit, on a thread of its own for a file database when the
 * server runs from its build, else on the main thread (`:memory:` cannot be shared with a thread).
 */
export function openTelemetryWriter(handle: DatabaseHandle, log: (line: string) => void): TelemetryWriter {
  const { sqlite } = handle;
  if (!sqlite) return postgresWriter(handle.db);
  const inThread = () => sqliteWriter(handle.db, sqlite);
  if (sqlite.memory || !writerThreadAvailable()) return inThread();
  return sqliteThreadWriter(sqlite.name, inThread, log);
}
