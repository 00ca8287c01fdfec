import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';

/** What the sampling figures read of each session besides its key (sessions/store.ts, samplingSummary). */
const SAMPLING_COLUMNS = ['first_ms', 'app_id', 'replay_mode', 'sample_rate', 'replay_chunk_count'];

/**
 * The sessions page's sampling figures count the sessions active in the window by replay mode and sample rate. Through
 * `sessions_project_last` they read each of those sessions' rows, which are wide (facts, pages, attributes): a week of
 * half a busy month is 116,000 rows and 36,000 heap pages, 100 ms (bench:scale). The index now carries the columns the
 * figures read, so they are an index-only scan (PostgreSQL, `include`) or a covering-index walk (SQLite, as trailing
 * key columns, after the session id the listing's keyset needs). Ingest already rewrites this index entry whenever a
 * session's last activity moves, which is nearly every update, so carrying more columns adds little to it.
 */
export function samplingCoveringIndexMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('sessions_project_last').execute();
      if (dialect === 'postgres') {
        await sql`create index sessions_project_last on sessions (project_id, last_ms, session_id)
          include (${sql.join(SAMPLING_COLUMNS.map((c) => sql.ref(c)))})`.execute(db);
        return;
      }
      await db.schema
        .createIndex('sessions_project_last')
        .on('sessions')
        .columns(['project_id', 'last_ms', 'session_id', ...SAMPLING_COLUMNS])
        .execute();
    },
  };
}
