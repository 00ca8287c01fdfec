import type { Kysely, Migration } from 'kysely';

/**
 * Who a session belongs to and how it was sampled (docs/query-api.md, "Users, attributes and sampling"): the latest
 * user the SDK named (`user.id`, `user.email`, `user.name`), its custom attributes as a JSON object, each with the time
 * of the record that carried it, and the session's `svc.replay.mode` and `svc.sample_rate`. Sessions stored before
 * have none of these. `sessions_project_user` serves `?user_id=` in each project, and `issue_sessions_session` leads
 * from a user's sessions to the issues that affected them.
 */
export function sessionIdentityMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const columns: [string, 'text' | 'bigint' | 'double precision'][] = [
        ['user_id', 'text'],
        ['user_email', 'text'],
        ['user_name', 'text'],
        ['user_ms', 'bigint'],
        ['attributes', 'text'],
        ['attributes_ms', 'bigint'],
        ['replay_mode', 'text'],
        ['sample_rate', 'double precision'],
      ];
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      for (const [name, type] of columns) await db.schema.alterTable('sessions').addColumn(name, type).execute();
      await db.schema.createIndex('sessions_project_user').on('sessions').columns(['project_id', 'user_id']).execute();
      await db.schema
        .createIndex('issue_sessions_session')
        .on('issue_sessions')
        .columns(['project_id', 'session_id'])
        .execute();
    },
  };
}
