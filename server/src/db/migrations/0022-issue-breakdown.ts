import { sql, type Kysely, type Migration } from 'kysely';

/**
 * An issue's breakdown (docs/issues.md, "Breakdown"): its production errors counted per browser, operating system,
 * release, route and user, kept by the detector in its counting transaction like the hourly counts. The second index
 * reads each facet's largest values first, so the issue page reads a handful of index entries however many errors the
 * issue had. Releases are seeded from `issue_releases`; errors counted before this migration have no browser, system,
 * route or user.
 */
export function issueBreakdownMigration(): Migration {
  const bigint = 'bigint' as const;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('issue_facets')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('facet', 'text', (c) => c.notNull())
        // '' when the error did not say (no user agent, no release, no page, no user).
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('count', bigint, (c) => c.notNull())
        .addColumn('last_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_facets_pk', ['project_id', 'fingerprint', 'facet', 'value'])
        .execute();
      await db.schema
        .createIndex('issue_facets_largest')
        .on('issue_facets')
        .columns(['project_id', 'fingerprint', 'facet', 'count', 'value'])
        .execute();
      await sql`insert into issue_facets (project_id, fingerprint, facet, value, count, last_ms)
        select project_id, fingerprint, 'release', release, count, last_seen_ms from issue_releases`.execute(db);
    },
  };
}
