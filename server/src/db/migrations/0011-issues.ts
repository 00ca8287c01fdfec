import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Issues (docs/issues.md): each detection group gets a status, its newest error's raw facts (re-symbolicated when read),
 * its last release and all-time session count, and three tables the detector fills in its counting transaction: counts
 * per hour, releases seen, and every session hit. Existing groups keep their fingerprints; their sessions still known
 * to the detector seed `issue_sessions`.
 */
export function issuesMigration(): Migration {
  const bigint = 'bigint' as const;
  return {
    async up(db: Kysely<unknown>) {
      const nullable = [
        ['top_source', 'text'],
        ['status_changed_ms', bigint],
        ['status_by', 'text'],
        ['resolved_release', 'text'],
        ['last_release', 'text'],
        ['last_event', 'text'],
      ] as const;
      // One statement per column: SQLite's ALTER TABLE adds one at a time.
      for (const [name, type] of nullable)
        await db.schema.alterTable('detection_groups').addColumn(name, type).execute();
      await db.schema
        .alterTable('detection_groups')
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('unresolved'))
        .execute();
      await db.schema
        .alterTable('detection_groups')
        .addColumn('in_next_release', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('detection_groups')
        .addColumn('session_count', bigint, (c) => c.notNull().defaultTo(0))
        .execute();
      // The listing's three orders, each within a project.
      for (const column of ['last_seen_ms', 'total_count', 'session_count']) {
        await db.schema
          .createIndex(`detection_groups_${column}`)
          .on('detection_groups')
          .columns(['project_id', column, 'fingerprint'])
          .execute();
      }

      await db.schema
        .createTable('issue_hours')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('hour_ms', bigint, (c) => c.notNull())
        .addColumn('count', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_hours_pk', ['project_id', 'fingerprint', 'hour_ms'])
        .execute();
      await db.schema
        .createTable('issue_releases')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('release', 'text', (c) => c.notNull())
        .addColumn('first_seen_ms', bigint, (c) => c.notNull())
        .addColumn('last_seen_ms', bigint, (c) => c.notNull())
        .addColumn('count', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_releases_pk', ['project_id', 'fingerprint', 'release'])
        .execute();
      // The release filter: issues seen in one release.
      await db.schema
        .createIndex('issue_releases_release')
        .on('issue_releases')
        .columns(['project_id', 'release'])
        .execute();
      await db.schema
        .createTable('issue_sessions')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('first_ms', bigint, (c) => c.notNull())
        .addColumn('last_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_sessions_pk', ['project_id', 'fingerprint', 'session_id'])
        .execute();

      await sql`insert into issue_sessions (project_id, fingerprint, session_id, first_ms, last_ms)
        select project_id, fingerprint, session_id, last_ms, last_ms from detection_sessions`.execute(db);
      await sql`update detection_groups set last_release = first_release, session_count = (
        select count(*) from issue_sessions s where s.project_id = detection_groups.project_id and s.fingerprint = detection_groups.fingerprint)`.execute(
        db,
      );
    },
  };
}
