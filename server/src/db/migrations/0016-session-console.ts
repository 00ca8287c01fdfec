import { sql, type Kysely, type Migration } from 'kysely';

/**
 * What the console's sessions page shows and filters by (docs/api.md, "Sessions for the console"): the app's
 * environment and release, the browser, system and device from the user agent, the error count, the pages visited and
 * the entry page, and the duration, kept as a column so the listing can sort by it.
 *
 * Sessions stored before have no environment, release, browser or pages (null; no pages); their duration and error
 * count are computed here from what is stored. The listing reads newest first by (project, last_ms, session_id), and
 * each other sort has an index of the same shape, so a first page, and every page after it, is an index range scan:
 * `sessions_project_last` grows the session id, which the keyset needs. Figures: docs/benchmarks.md, bench:sessions.
 */
export function sessionConsoleMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const nullable: [string, 'text' | 'bigint'][] = [
        ['env', 'text'],
        ['release', 'text'],
        ['browser', 'text'],
        ['browser_version', 'text'],
        ['os', 'text'],
        ['device', 'text'],
        ['urls', 'text'],
        ['entry_url', 'text'],
        ['entry_ms', 'bigint'],
      ];
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      for (const [name, type] of nullable) await db.schema.alterTable('sessions').addColumn(name, type).execute();
      for (const [name, type] of [
        ['duration_ms', 'bigint'],
        ['error_count', 'integer'],
        ['page_count', 'integer'],
      ] as const) {
        await db.schema
          .alterTable('sessions')
          .addColumn(name, type, (c) => c.notNull().defaultTo(0))
          .execute();
      }
      await sql`update sessions set duration_ms = last_ms - first_ms`.execute(db);
      // The same rule as ingest's isErrorLog: severity ERROR and above, or an exception.type attribute.
      await sql`
        update sessions set error_count = (
          select count(*) from logs l
          where l.project_id = sessions.project_id and l.session_id = sessions.session_id
            and (l.severity_number >= 17 or l.attributes like '%"exception.type":%'))
        where log_count > 0`.execute(db);

      await db.schema.dropIndex('sessions_project_last').execute();
      const sortIndexes: [string, string][] = [
        ['sessions_project_last', 'last_ms'],
        ['sessions_project_first', 'first_ms'],
        ['sessions_project_duration', 'duration_ms'],
        ['sessions_project_errors', 'error_count'],
      ];
      for (const [name, column] of sortIndexes) {
        await db.schema.createIndex(name).on('sessions').columns(['project_id', column, 'session_id']).execute();
      }
      // A user's sessions newest first without a sort: `?user_id=` is a handful of rows among a hundred thousand, which
      // SQLite, without statistics, would otherwise find by walking the whole last_ms index.
      await db.schema.dropIndex('sessions_project_user').execute();
      await db.schema
        .createIndex('sessions_project_user')
        .on('sessions')
        .columns(['project_id', 'user_id', 'last_ms', 'session_id'])
        .execute();
      // The facets' distinct values, each read by skipping from one value to the next (query/session-facets.ts). These
      // columns rarely change once a session has them, so ingest's upserts seldom touch these indexes.
      for (const column of ['app_id', 'env', 'release', 'browser']) {
        await db.schema
          .createIndex(`sessions_project_${column}`)
          .on('sessions')
          .columns(['project_id', column])
          .execute();
      }
    },
  };
}
