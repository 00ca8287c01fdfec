import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Incident detection state: read cursors over logs and spans, error groups, and the sessions each group affected.
 * The cursors start at the newest rows, so upgrading a server does not turn old errors into incidents.
 */
export function detectionMigration(_dialect: DialectName): Migration {
  const bigint = 'bigint';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('detection_cursors')
        .addColumn('source', 'text', (c) => c.primaryKey())
        .addColumn('last_id', bigint, (c) => c.notNull())
        .addColumn('hole_id', bigint)
        .addColumn('hole_since_ms', bigint)
        .execute();
      for (const source of ['logs', 'spans']) {
        await sql`insert into detection_cursors (source, last_id) select ${source}, coalesce(max(id), 0) from ${sql.table(source)}`.execute(
          db,
        );
      }
      await db.schema
        .createTable('detection_groups')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('error_type', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('sample_message', 'text', (c) => c.notNull())
        .addColumn('top_frame', 'text')
        .addColumn('top_file', 'text')
        .addColumn('first_seen_ms', bigint, (c) => c.notNull())
        .addColumn('last_seen_ms', bigint, (c) => c.notNull())
        .addColumn('last_received_ms', bigint, (c) => c.notNull())
        .addColumn('first_release', 'text')
        .addColumn('total_count', bigint, (c) => c.notNull())
        .addColumn('buckets', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text')
        .addColumn('incident_base_total', bigint, (c) => c.notNull())
        .addColumn('incident_open_count', bigint, (c) => c.notNull())
        .addColumn('reset_total', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('detection_groups_pk', ['project_id', 'fingerprint'])
        .execute();
      // Groups with an open incident are looked at on every run (quiet period).
      await db.schema.createIndex('detection_groups_incident').on('detection_groups').column('incident_id').execute();
      await db.schema
        .createTable('detection_sessions')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('last_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('detection_sessions_pk', ['project_id', 'fingerprint', 'session_id'])
        .execute();
    },
  };
}
