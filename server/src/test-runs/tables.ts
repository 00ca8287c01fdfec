import type { Generated } from 'kysely';

/**
 * Table types of Playwright test runs (migration 0018-test-runs), merged into db/schema.ts's `Database`. Times are
 * epoch ms. `test_key` is {@link testKey} of a test's file, title path and Playwright project: the same test across runs.
 */
export interface TestRunTables {
  /** One run of a suite (all its shards), as the reporter describes it. */
  test_runs: {
    project_id: string;
    run_id: string;
    /** running until finished; then passed, failed, interrupted or timedout (the worst of its shards). */
    status: string;
    started_ms: number;
    finished_ms: number | null;
    duration_ms: number | null;
    commit_sha: string | null;
    branch: string | null;
    title: string | null;
    ci_provider: string | null;
    ci_job_url: string | null;
    ci_build_id: string | null;
    shard_total: number | null;
    /** Tests per outcome, kept by each results write in its transaction: only newly stored attempts change them. */
    passed: Generated<number>;
    failed: Generated<number>;
    flaky: Generated<number>;
    skipped: Generated<number>;
    total: Generated<number>;
    created_ms: number;
    updated_ms: number;
  };
  /** The finish of each shard of a sharded run (shard 0 for an unsharded one). */
  test_run_shards: {
    project_id: string;
    run_id: string;
    shard: number;
    status: string;
    duration_ms: number;
    finished_ms: number;
  };
  /** A test as last described: what its key stands for. */
  test_cases: {
    project_id: string;
    test_key: string;
    test_id: string;
    file: string;
    line: number;
    /** Title path joined with ' > '. */
    title: string;
    /** JSON array of the describe titles and the test title. */
    title_path: string;
    /** Playwright project name. */
    project: string;
    first_seen_ms: number;
    last_seen_ms: number;
  };
  /** One try of one test in one run: stored once per (project, run, test key, retry). */
  test_attempts: {
    project_id: string;
    run_id: string;
    test_key: string;
    retry: number;
    test_id: string;
    status: string;
    expected_status: string;
    duration_ms: number;
    started_ms: number;
    /** JSON { message, stack?, location? } or null. */
    error: string | null;
    /** JSON arrays. */
    annotations: string;
    tags: string;
    attachments: string;
    /** The description of an `svc-issue` annotation: the issue this attempt reproduces. */
    issue_id: string | null;
    stored_ms: number;
  };
  /**
   * One test in one run: its attempts folded (Playwright's outcome rule over their counts), with the run's start, commit
   * and branch copied so that a test's history and the flaky list read one index each.
   */
  test_results: {
    project_id: string;
    run_id: string;
    test_key: string;
    test_id: string;
    run_started_ms: number;
    commit_sha: string | null;
    branch: string | null;
    /** expected, unexpected, flaky or skipped. */
    outcome: string;
    /** Status of the highest retry stored, and that retry. */
    status: string;
    retries: number;
    /** Attempts stored; those not interrupted; those skipped; those failed (neither skipped nor the expected status). */
    attempt_count: number;
    counted: number;
    skipped_count: number;
    failed_count: number;
    /** Sum of the attempts' durations. */
    duration_ms: number;
    /** JSON error of the highest retry that had one, and that retry (-1 when none). */
    error: string | null;
    error_retry: number;
  };
}
