import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** Table of migration 0029-erasures (a type, not an interface: `withTables` wants an index signature). */
export type ErasureTables = {
  /** Deletion requests (docs/governance.md, "Deletion on request"): one row per job, kept after it is done. */
  erasures: {
    id: string;
    tenant_id: string;
    project_id: string;
    /** `user_id`, `session_id` or `attribute` ({@link TargetKind}). */
    target_kind: string;
    /** The attribute's key for `attribute` (a key names no one); null otherwise. */
    target_key: string | null;
    /** What answers, logs and the audit log show of the value: a salted SHA-256 prefix (target.ts). */
    target_digest: string;
    /**
     * The value itself, which the job needs to find the person, and the sessions and identifiers it resolved to (JSON
     * {@link Subjects}, kept so a job resumed after a crash deletes the same sessions): both null once the deletions are
     * done, before the vacuum that removes their old bytes.
     */
    target_value: string | null;
    subjects: string | null;
    /** `queued`, `running`, `done` or `failed`. */
    status: string;
    /** JSON object: rows deleted or scrubbed per table. */
    counts: string;
    error: string | null;
    /** `key:<name>`, the person's e-mail, or `cli`. */
    requested_by: string;
    /** The process working the job and until when (renewed while it works): another takes over once it runs out. */
    lease_owner: string | null;
    lease_until_ms: number | null;
    created_ms: number;
    started_ms: number | null;
    finished_ms: number | null;
  };
};

/** The database with this module's table, which only erasure reads. */
export const erasureDb = (db: Kysely<Database>): Kysely<Database & ErasureTables> => db.withTables<ErasureTables>();
