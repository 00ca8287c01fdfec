import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** Table of migration 0026-project-retention (a type, not an interface: `withTables` wants an index signature). */
export type RetentionTables = {
  /** A project's own retention of a signal; a signal without a row follows the server's default. */
  project_retention: {
    project_id: string;
    /** A {@link ProjectSignal}. */
    signal: string;
    /** 0 keeps the signal forever. */
    days: number;
    updated_ms: number;
    /** `key:<name>`, the person's e-mail, or `cli`. */
    updated_by: string;
  };
};

/** The database with this module's table, which only retention reads. */
export const retentionDb = (db: Kysely<Database>): Kysely<Database & RetentionTables> =>
  db.withTables<RetentionTables>();
