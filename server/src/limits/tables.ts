import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** Tables of migration 0027-ingest-limits (a type, not an interface: `withTables` wants an index signature). */
export type LimitTables = {
  /** A project's own limits of a signal; null columns (and signals without a row) follow the server's defaults. */
  project_limits: {
    project_id: string;
    /** A {@link LimitSignal}. */
    signal: string;
    rate: number | null;
    burst: number | null;
    daily: number | null;
    updated_ms: number;
    /** `key:<name>`, the person's e-mail, or `cli`. */
    updated_by: string;
  };
  /**
   * Units accepted and throttled (refused by a limit), and requests refused for anything else, per project, signal
   * and five minutes of receipt: the usage page, the quotas and spike protection read them.
   */
  ingest_usage: {
    project_id: string;
    signal: string;
    bucket_ms: number;
    accepted: number;
    throttled: number;
    refused: number;
  };
  /** A spike being throttled: one row per project and signal while it lasts (docs/governance.md, "Spikes"). */
  ingest_spikes: {
    project_id: string;
    signal: string;
    started_ms: number;
    until_ms: number;
    /** Units a minute the project sent over the baseline's day, and in the minutes that set it off. */
    baseline_per_minute: number;
    observed_per_minute: number;
  };
};

/** The database with this module's tables, which only the limits read. */
export const limitsDb = (db: Kysely<Database>): Kysely<Database & LimitTables> => db.withTables<LimitTables>();
