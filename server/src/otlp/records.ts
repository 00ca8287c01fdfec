import type { Insertable } from 'kysely';
import type { Database, TelemetryTable } from '../db/schema';
import type { SessionFacts } from './session-facts';

/** A row ready to store, before the app is resolved from `serviceName` and the project and time of receipt added. */
export type PendingRow<T extends TelemetryTable> = Omit<
  Insertable<Database[T]>,
  'project_id' | 'app_id' | 'received_ms'
> & {
  serviceName: string;
  session_id: string | null;
  time_ms: number;
};

/** What one ingest request turned into. Only one table is filled per endpoint. */
export interface PendingBatch<T extends TelemetryTable = TelemetryTable> {
  table: T;
  rows: PendingRow<T>[];
  /** What the records say about their sessions' users, attributes and sampling, one entry per session. */
  sessions?: SessionFacts[];
}
