import type { Insertable } from 'kysely';
import type { Database, TelemetryTable } from '../db/schema';
import type { SessionFacts } from './session-facts';

/** A row ready to store, before its app (resolved from its `service.name`), project and time of receipt are added. */
export type PendingRow<T extends TelemetryTable> = Omit<
  Insertable<Database[T]>,
  'project_id' | 'app_id' | 'received_ms'
> & {
  session_id: string | null;
  time_ms: number;
};

/** What one ingest request turned into. Only one table is filled per endpoint. */
export interface PendingBatch<T extends TelemetryTable = TelemetryTable> {
  table: T;
  rows: PendingRow<T>[];
  /**
   * The `service.name` of each row, by index. Apart from the rows, so that storing stamps each row with its app, project
   * and receipt in place instead of copying it without the name (issue 33: the copy was 6 % of a request's main thread).
   */
  services: string[];
  /** What the records say about their sessions' users, attributes and sampling, one entry per session. */
  sessions?: SessionFacts[];
}
