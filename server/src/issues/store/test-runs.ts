import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { iso } from '../../shared/time';
import { seenIn } from '../json';
import type { IssueRow } from './issues';

/** Runs, tests and reproductions an issue detail lists, newest first. */
const LISTED = 20;

/**
 * Where the issue was seen, with the newest runs and tests that saw it (docs/issues.md, "Test traffic"): each read
 * newest first through its `(project_id, fingerprint, last_ms)` index, however many runs there were.
 */
export async function seenInDetail(db: Kysely<Database>, row: IssueRow) {
  const counts = seenIn(row);
  if (Number(row.test_count) === 0) return { ...counts, tests: { ...counts.tests, runs: [], tests: [] } };
  const runs = await db
    .selectFrom('issue_test_runs')
    .select('run_id')
    .where('project_id', '=', row.project_id)
    .where('fingerprint', '=', row.fingerprint)
    .orderBy('last_ms', 'desc')
    .limit(LISTED)
    .execute();
  const tests = await db
    .selectFrom('issue_tests')
    .select(['test_id', 'title'])
    .where('project_id', '=', row.project_id)
    .where('fingerprint', '=', row.fingerprint)
    .orderBy('last_ms', 'desc')
    .limit(LISTED)
    .execute();
  return { ...counts, tests: { ...counts.tests, runs: runs.map((r) => r.run_id), tests } };
}

/**
 * The test attempts annotated `svc-issue` with this issue's id (the AI fix's reproduction test, run by the pull
 * request's CI through the reporter), newest first, with their run's branch and commit; read through the partial
 * index on `(project_id, issue_id, started_ms)` of migration 0018.
 */
export async function reproductionsOf(db: Kysely<Database>, row: IssueRow) {
  const rows = await db
    .selectFrom('test_attempts as a')
    .leftJoin('test_runs as r', (join) =>
      join.onRef('r.project_id', '=', 'a.project_id').onRef('r.run_id', '=', 'a.run_id'),
    )
    .select(['a.run_id', 'a.status', 'a.started_ms', 'r.branch', 'r.commit_sha'])
    .where('a.project_id', '=', row.project_id)
    .where('a.issue_id', '=', row.fingerprint)
    .orderBy('a.started_ms', 'desc')
    .limit(LISTED)
    .execute();
  return rows.map((r) => ({
    run_id: r.run_id,
    branch: r.branch ?? null,
    commit: r.commit_sha ?? null,
    status: r.status,
    at: iso(Number(r.started_ms)),
  }));
}
