import type { Kysely, Migration } from 'kysely';

/**
 * Retention per signal and per project (docs/server.md, "Retention"): a project's own number of days for a signal,
 * where it differs from the server's default. The retention job now deletes one project at a time in batches, so the
 * telemetry tables' index on time of receipt alone (read only by that job) becomes one by project and time of receipt:
 * a project keeping 90 days no longer lies in the path of the deletions of one keeping 14. Sessions get the same.
 */
export function projectRetentionMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('project_retention')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('signal', 'text', (c) => c.notNull())
        .addColumn('days', 'integer', (c) => c.notNull())
        .addColumn('updated_ms', 'bigint', (c) => c.notNull())
        // `key:<name>` or the person's e-mail, as the audit log names them; the CLI's name for itself.
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('project_retention_pk', ['project_id', 'signal'])
        .execute();
      for (const table of ['spans', 'logs', 'metric_points', 'replay_chunks', 'recipes']) {
        await db.schema.dropIndex(`${table}_received`).execute();
        await db.schema
          .createIndex(`${table}_project_received`)
          .on(table)
          .columns(['project_id', 'received_ms', 'id'])
          .execute();
      }
      await db.schema
        .createIndex('sessions_project_received')
        .on('sessions')
        .columns(['project_id', 'last_received_ms'])
        .execute();
    },
  };
}
