import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';

/** Table of migration 0020-ingest-setup-health (a type, not an interface: `withTables` wants an index signature). */
export type RefusalTables = {
  /** Ingest requests refused, per project, hour and reason, with the newest example of the hour. */
  ingest_refusals: {
    /** '' when the request's key named no project (missing or unknown key): shown to admin keys. */
    project_id: string;
    hour_ms: number;
    reason: string;
    status: number;
    count: number;
    last_ms: number;
    /** JSON {@link RefusalExample}. */
    example: string;
  };
};

/** The project id refusals of a missing or unknown key are counted under. */
export const NO_PROJECT = '';

/** The database with this module's table, which the rest of the server never reads. */
export const refusalDb = (db: Kysely<Database>): Kysely<Database & RefusalTables> => db.withTables<RefusalTables>();

/**
 * One refused request as kept: what the client sent and what it was told, bounded, never the key itself (only its id,
 * name and scope when it exists, or the scope marker an unknown key starts with).
 */
export interface RefusalExample {
  at: string;
  status: number;
  code: string;
  message: string;
  method: string;
  path: string;
  origin: string | null;
  user_agent: string | null;
  content_type: string | null;
  content_encoding: string | null;
  content_length: number | null;
  key: RefusalKey;
}

/** The key of a refused request, as far as it can be told without keeping it. */
export type RefusalKey =
  | { state: 'missing' }
  /** `marker`: the scope prefix the unknown key starts with (`svc_control_`), if any. */
  | { state: 'unknown'; marker: string | null }
  /** `unchecked`: the request was refused before its key was checked (a disallowed origin, a mistyped path). */
  | { state: 'valid' | 'unchecked' | 'revoked' | 'expired' | 'wrong_scope'; id: string; name: string; scope: string };
