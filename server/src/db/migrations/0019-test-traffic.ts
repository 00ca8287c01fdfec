import type { Kysely, Migration } from 'kysely';

/**
 * Test traffic kept apart in issues (docs/issues.md, "Test traffic"): each detection group counts the errors, sessions
 * and runs of env `test` beside its production counts, and says whether a test run saw it first; the runs and tests an
 * issue was seen in are read newest first through an index, however many runs there were.
 */
export function testTrafficMigration(): Migration {
  const bigint = 'bigint' as const;
  return {
    async up(db: Kysely<unknown>) {
      // One statement per column: SQLite's ALTER TABLE adds one at a time.
      for (const column of ['test_count', 'test_session_count', 'test_run_count']) {
        await db.schema
          .alterTable('detection_groups')
          .addColumn(column, bigint, (c) => c.notNull().defaultTo(0))
          .execute();
      }
      await db.schema
        .alterTable('detection_groups')
        .addColumn('caught_in_tests', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();

      const perIssue = (table: string) =>
        db.schema
          .createTable(table)
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
          .addColumn('fingerprint', 'text', (c) => c.notNull());
      await perIssue('issue_test_sessions')
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('seen_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_test_sessions_pk', ['project_id', 'fingerprint', 'session_id'])
        .execute();
      await perIssue('issue_test_runs')
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('last_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_test_runs_pk', ['project_id', 'fingerprint', 'run_id'])
        .execute();
      await perIssue('issue_tests')
        .addColumn('test_id', 'text', (c) => c.notNull())
        .addColumn('title', 'text')
        .addColumn('last_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_tests_pk', ['project_id', 'fingerprint', 'test_id'])
        .execute();
      for (const table of ['issue_test_runs', 'issue_tests']) {
        await db.schema
          .createIndex(`${table}_newest`)
          .on(table)
          .columns(['project_id', 'fingerprint', 'last_ms'])
          .execute();
      }
    },
  };
}
