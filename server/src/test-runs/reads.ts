import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { notFound } from '../shared/domain-errors';
import { afterPosition, type Position } from '../shared/keyset';
import { iso } from '../shared/time';
import { appendTo, attemptJson, caseJson, resultJson } from './json';
import { RUNS_SORT } from './store';

/** Most tests a run's detail lists, and most attempts and sessions it reads: a request's work stays bounded. */
export const MAX_RUN_TESTS = 5000;
const MAX_RUN_ATTEMPTS = 4 * MAX_RUN_TESTS;

/** Failed first, then flaky, passed and skipped. */
const OUTCOME_RANK = sql<number>`case r.outcome when 'unexpected' then 0 when 'flaky' then 1 when 'expected' then 2 else 3 end`;

/** The sessions recorded in a run, by Playwright testId and retry. */
async function runSessions(db: Kysely<Database>, projectId: string, runId: string): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('sessions')
    .select(['session_id', 'test_id', 'test_retry'])
    .where('project_id', '=', projectId)
    .where('test_run_id', '=', runId)
    .orderBy('test_id')
    .orderBy('test_retry')
    .orderBy('session_id')
    .limit(MAX_RUN_ATTEMPTS)
    .execute();
  const byAttempt = new Map<string, string[]>();
  for (const s of rows) {
    appendTo(byAttempt, `${s.test_id}\n${s.test_retry ?? 0}`, s.session_id);
  }
  return byAttempt;
}

/** A run's tests, failed first, each with its attempts and their sessions (at most {@link MAX_RUN_TESTS}). */
export async function runTests(db: Kysely<Database>, projectId: string, runId: string) {
  const [results, attempts, sessions] = await Promise.all([
    db
      .selectFrom('test_results as r')
      .innerJoin('test_cases as c', (j) =>
        j.onRef('c.project_id', '=', 'r.project_id').onRef('c.test_key', '=', 'r.test_key'),
      )
      .select([
        'r.test_key',
        'r.outcome',
        'r.status',
        'r.retries',
        'r.duration_ms',
        'r.error',
        'c.test_id',
        'c.title',
        'c.title_path',
        'c.file',
        'c.line',
        'c.project',
      ])
      .where('r.project_id', '=', projectId)
      .where('r.run_id', '=', runId)
      .orderBy(OUTCOME_RANK)
      .orderBy('c.title')
      .orderBy('r.test_key')
      .limit(MAX_RUN_TESTS)
      .execute(),
    db
      .selectFrom('test_attempts')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('run_id', '=', runId)
      .orderBy('test_key')
      .orderBy('retry')
      .limit(MAX_RUN_ATTEMPTS)
      .execute(),
    runSessions(db, projectId, runId),
  ]);
  const byTest = new Map<string, ReturnType<typeof attemptJson>[]>();
  for (const a of attempts) {
    appendTo(byTest, a.test_key, attemptJson(a, sessions.get(`${a.test_id}\n${a.retry}`) ?? []));
  }
  return results.map((r) => ({ ...caseJson(r), ...resultJson(r), attempts: byTest.get(r.test_key) ?? [] }));
}

/** A test as last described, with when it was first and last seen; not_found when the project never ran it. */
export async function testCase(db: Kysely<Database>, projectId: string, key: string) {
  const c = await db
    .selectFrom('test_cases')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('test_key', '=', key)
    .executeTakeFirst();
  if (!c) throw notFound(`no test ${key} in this project`);
  return { ...caseJson(c), first_seen: iso(c.first_seen_ms), last_seen: iso(c.last_seen_ms) };
}

/** A page of a test's results over runs, newest run first (test_results_history), `limit` + 1 rows. */
export function testHistory(
  db: Kysely<Database>,
  projectId: string,
  key: string,
  after: Position | undefined,
  limit: number,
) {
  let q = db
    .selectFrom('test_results as r')
    .select([
      'r.run_id',
      'r.run_started_ms',
      'r.commit_sha',
      'r.branch',
      'r.outcome',
      'r.status',
      'r.retries',
      'r.duration_ms',
      'r.error',
    ])
    .where('r.project_id', '=', projectId)
    .where('r.test_key', '=', key);
  if (after) q = q.where(afterPosition(RUNS_SORT, sql.ref('r.run_started_ms'), sql.ref('r.run_id'), after));
  return q.orderBy('r.run_started_ms', 'desc').orderBy('r.run_id', 'desc').limit(limit).execute();
}

export type HistoryRow = Awaited<ReturnType<typeof testHistory>>[number];

export const historyJson = (r: HistoryRow) => ({
  run_id: r.run_id,
  started_at: iso(r.run_started_ms),
  commit: r.commit_sha,
  branch: r.branch,
  ...resultJson(r),
});
