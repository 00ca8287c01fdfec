import type { Kysely, Migration } from 'kysely';

/**
 * Playwright test runs (docs/api.md, "Test runs"; server/src/test-runs/tables.ts): runs, their shards' finishes, test
 * cases, every attempt (stored once per project, run, test key and retry), and one result per test per run. Sessions
 * get the test they were recorded in (`test.run.id`, `test.id`, `test.retry`, `test.title`, `test.file` resource
 * attributes).
 *
 * Every read is an index walk: runs newest first (all, of a branch, of a commit); a run's tests by the results' primary
 * key; a test's history by (project, test_key, run_started_ms, run_id), which also holds the outcome, commit and
 * branch so that the flaky list reads a test's results in the window from the index alone; the flaky list's
 * candidates, the results that failed or were flaky in the last N runs, by (project, outcome, run_started_ms); attempts of an issue by (project,
 * issue_id), only the annotated ones; a run's sessions by (project, test_run_id, test_id, test_retry).
 */
export function testRunsMigration(): Migration {
  const bigint = 'bigint' as const;
  return {
    async up(db: Kysely<unknown>) {
      for (const [name, type] of [
        ['test_run_id', 'text'],
        ['test_id', 'text'],
        ['test_retry', 'integer'],
        ['test_title', 'text'],
        ['test_file', 'text'],
      ] as const) {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        await db.schema.alterTable('sessions').addColumn(name, type).execute();
      }
      await db.schema
        .createIndex('sessions_project_test')
        .on('sessions')
        .columns(['project_id', 'test_run_id', 'test_id', 'test_retry'])
        .execute();

      let runs = db.schema
        .createTable('test_runs')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('started_ms', bigint, (c) => c.notNull())
        .addColumn('finished_ms', bigint)
        .addColumn('duration_ms', bigint);
      for (const column of ['commit_sha', 'branch', 'title', 'ci_provider', 'ci_job_url', 'ci_build_id'])
        runs = runs.addColumn(column, 'text');
      runs = runs.addColumn('shard_total', 'integer');
      for (const column of ['passed', 'failed', 'flaky', 'skipped', 'total'])
        runs = runs.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
      await runs
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addColumn('updated_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('test_runs_pk', ['project_id', 'run_id'])
        .execute();
      await db.schema
        .createIndex('test_runs_started')
        .on('test_runs')
        .columns(['project_id', 'started_ms', 'run_id'])
        .execute();
      await db.schema
        .createIndex('test_runs_branch')
        .on('test_runs')
        .columns(['project_id', 'branch', 'started_ms', 'run_id'])
        .execute();
      await db.schema
        .createIndex('test_runs_commit')
        .on('test_runs')
        .columns(['project_id', 'commit_sha', 'started_ms', 'run_id'])
        .execute();

      await db.schema
        .createTable('test_run_shards')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('shard', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('duration_ms', bigint, (c) => c.notNull())
        .addColumn('finished_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('test_run_shards_pk', ['project_id', 'run_id', 'shard'])
        .execute();

      await db.schema
        .createTable('test_cases')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('test_key', 'text', (c) => c.notNull())
        .addColumn('test_id', 'text', (c) => c.notNull())
        .addColumn('file', 'text', (c) => c.notNull())
        .addColumn('line', 'integer', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('title_path', 'text', (c) => c.notNull())
        .addColumn('project', 'text', (c) => c.notNull())
        .addColumn('first_seen_ms', bigint, (c) => c.notNull())
        .addColumn('last_seen_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('test_cases_pk', ['project_id', 'test_key'])
        .execute();

      await db.schema
        .createTable('test_attempts')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('test_key', 'text', (c) => c.notNull())
        .addColumn('retry', 'integer', (c) => c.notNull())
        .addColumn('test_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('expected_status', 'text', (c) => c.notNull())
        .addColumn('duration_ms', bigint, (c) => c.notNull())
        .addColumn('started_ms', bigint, (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('annotations', 'text', (c) => c.notNull())
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('attachments', 'text', (c) => c.notNull())
        .addColumn('issue_id', 'text')
        .addColumn('stored_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('test_attempts_pk', ['project_id', 'run_id', 'test_key', 'retry'])
        .execute();
      await db.schema
        .createIndex('test_attempts_issue')
        .on('test_attempts')
        .columns(['project_id', 'issue_id', 'started_ms'])
        .where('issue_id', 'is not', null)
        .execute();

      let results = db.schema
        .createTable('test_results')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('test_key', 'text', (c) => c.notNull())
        .addColumn('test_id', 'text', (c) => c.notNull())
        .addColumn('run_started_ms', bigint, (c) => c.notNull())
        .addColumn('commit_sha', 'text')
        .addColumn('branch', 'text')
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull());
      for (const column of ['retries', 'attempt_count', 'counted', 'skipped_count', 'failed_count'])
        results = results.addColumn(column, 'integer', (c) => c.notNull());
      await results
        .addColumn('duration_ms', bigint, (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('error_retry', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('test_results_pk', ['project_id', 'run_id', 'test_key'])
        .execute();
      // Covering for the flaky list, which reads only these columns of a test's results in the window.
      await db.schema
        .createIndex('test_results_history')
        .on('test_results')
        .columns(['project_id', 'test_key', 'run_started_ms', 'run_id', 'outcome', 'commit_sha', 'branch'])
        .execute();
      // Covering too: SQLite, without statistics, prefers a covering index over a narrower one that is not.
      await db.schema
        .createIndex('test_results_outcome')
        .on('test_results')
        .columns(['project_id', 'outcome', 'run_started_ms', 'run_id', 'test_key', 'commit_sha', 'branch'])
        .execute();
    },
  };
}
