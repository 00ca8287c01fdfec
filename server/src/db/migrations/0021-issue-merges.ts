import type { Kysely, Migration } from 'kysely';

/**
 * Issues merged into another (docs/issues.md, "Maps that arrive late"): the errors of a build whose maps were not
 * uploaded form an issue of their own, grouped on the minified frame; once a map places that frame, the issue's errors
 * move into the issue of the original frame, and its id answers as that issue from then on (links already sent, the
 * console's pages). One row per merged id; the index finds the ids merged into an issue, for its detail.
 */
export function issueMergesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('issue_merges')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('from_fingerprint', 'text', (c) => c.notNull())
        .addColumn('into_fingerprint', 'text', (c) => c.notNull())
        .addColumn('merged_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_merges_pk', ['project_id', 'from_fingerprint'])
        .execute();
      await db.schema
        .createIndex('issue_merges_into')
        .on('issue_merges')
        .columns(['project_id', 'into_fingerprint'])
        .execute();
    },
  };
}
