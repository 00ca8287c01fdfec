import { createHash } from 'node:crypto';
import { sql, type Kysely, type Selectable, type ExpressionBuilder, type Transaction, type UpdateObject } from 'kysely';
import type { Clock } from '../clock';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { notFound } from '../shared/domain-errors';
import { afterPosition, type KeysetSort, type Position } from '../shared/keyset';
import { appendTo } from './json';
import { foldAttempts, RUN_COUNT_OF, type AttemptFacts, type ResultRow } from './outcome';
import type { Finish, FinishedRunStatus, Outcome, PutRun, ResultIn, RunsFilter } from './schemas';

const noRun = (runId: string) => notFound(`no test run ${runId} in this project`);

/**
 * Storage of test runs (tables in test-runs/tables.ts, migration 0018-test-runs). Every write runs in one transaction
 * that first locks the run's row, so concurrent requests of one run (shards, a reporter's retries) apply one after the
 * other, and a run's counts move exactly once per newly stored attempt.
 */

export interface TestRunDb {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
}

export type RunRow = Selectable<Database['test_runs']>;

/** The stable key of a test across runs: first 16 hex digits of sha256(file, title path and project, one per line). */
export function testKey(file: string, titlePath: readonly string[], project: string): string {
  return createHash('sha256')
    .update(`${file}\n${titlePath.join('\n')}\n${project}`)
    .digest('hex')
    .slice(0, 16);
}

/** Newest first by (started_ms, run_id); a history by (run_started_ms, run_id). */
export const RUNS_SORT: KeysetSort = { sort: 'started', order: 'desc', value: 'integer', defaultSort: 'started' };

/** Makes the run when it is not stored (status running); reports whether it did. */
async function ensureRun(
  tx: Transaction<Database>,
  projectId: string,
  runId: string,
  startedMs: number,
  now: number,
): Promise<boolean> {
  const inserted = await tx
    .insertInto('test_runs')
    .values({
      project_id: projectId,
      run_id: runId,
      status: 'running',
      started_ms: startedMs,
      created_ms: now,
      updated_ms: now,
    })
    .onConflict((oc) => oc.columns(['project_id', 'run_id']).doNothing())
    .returning('run_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The run's row, locked until the transaction ends on PostgreSQL (SQLite has one writer at a time already). */
async function lockRun(
  tx: Transaction<Database>,
  dialect: DialectName,
  projectId: string,
  runId: string,
): Promise<RunRow | undefined> {
  const q = tx.selectFrom('test_runs').selectAll().where('project_id', '=', projectId).where('run_id', '=', runId);
  return (dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
}

type RunUpdate =
  | UpdateObject<Database, 'test_runs'>
  | ((eb: ExpressionBuilder<Database, 'test_runs'>) => UpdateObject<Database, 'test_runs'>);

/** Updates the run's row; answers it as it is now. */
function updateRun(tx: Transaction<Database>, projectId: string, runId: string, values: RunUpdate): Promise<RunRow> {
  return tx
    .updateTable('test_runs')
    .set(values)
    .where('project_id', '=', projectId)
    .where('run_id', '=', runId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Copies a run's start, commit and branch onto its results when they changed: a results request may have made the run
 * before its PUT said when it started and what it built.
 */
async function syncResults(tx: Transaction<Database>, before: RunRow, after: RunRow): Promise<void> {
  if (
    before.started_ms === after.started_ms &&
    before.commit_sha === after.commit_sha &&
    before.branch === after.branch
  )
    return;
  await tx
    .updateTable('test_results')
    .set({ run_started_ms: after.started_ms, commit_sha: after.commit_sha, branch: after.branch })
    .where('project_id', '=', after.project_id)
    .where('run_id', '=', after.run_id)
    .execute();
}

/**
 * PUT: creates the run or merges what the request says into it (every shard PUTs the same run): the earliest start,
 * and each given field over the stored one. Answers the run and whether it was created.
 */
export function putRun(
  s: TestRunDb,
  projectId: string,
  runId: string,
  body: PutRun,
): Promise<{ run: RunRow; created: boolean }> {
  return s.db.transaction().execute(async (tx) => {
    const now = s.clock.now();
    const created = await ensureRun(tx, projectId, runId, body.started_at, now);
    const before = (await lockRun(tx, s.dialect, projectId, runId))!;
    const run = await updateRun(tx, projectId, runId, {
      started_ms: Math.min(before.started_ms, body.started_at),
      commit_sha: body.commit ?? before.commit_sha,
      branch: body.branch ?? before.branch,
      title: body.title ?? before.title,
      ci_provider: body.ci?.provider ?? before.ci_provider,
      ci_job_url: body.ci?.job_url ?? before.ci_job_url,
      ci_build_id: body.ci?.build_id ?? before.ci_build_id,
      shard_total: body.shard?.total ?? before.shard_total,
      updated_ms: now,
    });
    await syncResults(tx, before, run);
    return { run, created };
  });
}

/** Worst first: a run is as bad as its worst shard. */
const SEVERITY: Record<FinishedRunStatus, number> = { passed: 0, failed: 1, timedout: 2, interrupted: 3 };

/**
 * Finishes the run, or one shard of it: a sharded run is finished when every shard has, with the worst shard's status
 * and the longest duration. A re-sent finish replaces its shard's. not_found when the run is unknown.
 */
export function finishRun(s: TestRunDb, projectId: string, runId: string, body: Finish): Promise<RunRow> {
  return s.db.transaction().execute(async (tx) => {
    const before = await lockRun(tx, s.dialect, projectId, runId);
    if (!before) throw noRun(runId);
    const now = s.clock.now();
    const shard = {
      project_id: projectId,
      run_id: runId,
      shard: body.shard?.current ?? 0,
      status: body.status,
      duration_ms: body.duration_ms,
      finished_ms: now,
    };
    await tx
      .insertInto('test_run_shards')
      .values(shard)
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'run_id', 'shard'])
          .doUpdateSet({ status: shard.status, duration_ms: shard.duration_ms, finished_ms: now }),
      )
      .execute();
    const shards = await tx
      .selectFrom('test_run_shards')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('run_id', '=', runId)
      .execute();
    const total = body.shard?.total ?? before.shard_total ?? 1;
    const done = !body.shard || shards.length >= total;
    const worst = shards
      .map((r) => r.status as FinishedRunStatus)
      .reduce((a, b) => (SEVERITY[b] > SEVERITY[a] ? b : a));
    return updateRun(tx, projectId, runId, {
      status: done ? worst : 'running',
      finished_ms: done ? now : null,
      duration_ms: done ? Math.max(...shards.map((r) => r.duration_ms)) : null,
      shard_total: body.shard?.total ?? before.shard_total,
      updated_ms: now,
    });
  });
}

/** The first of each (test key, retry) in the request: a result twice in one request is one attempt. */
function distinctAttempts(results: readonly ResultIn[]): { key: string; result: ResultIn }[] {
  const seen = new Map<string, { key: string; result: ResultIn }>();
  for (const result of results) {
    const key = testKey(result.file, result.title_path, result.project);
    if (!seen.has(`${key}\n${result.retry}`)) seen.set(`${key}\n${result.retry}`, { key, result });
  }
  return [...seen.values()];
}

/** The `svc-issue` annotation's description: the issue this attempt reproduces. */
const issueOf = (r: ResultIn): string | null =>
  r.annotations.find((a) => a.type === 'svc-issue' && a.description?.trim())?.description?.trim() ?? null;

const errorJson = (r: ResultIn): string | null => (r.error ? JSON.stringify(r.error) : null);

/** Inserts the attempts not stored yet; answers those it stored. */
async function insertAttempts(
  tx: Transaction<Database>,
  projectId: string,
  runId: string,
  items: { key: string; result: ResultIn }[],
  now: number,
) {
  const rows = items.map(({ key, result: r }) => ({
    project_id: projectId,
    run_id: runId,
    test_key: key,
    retry: r.retry,
    test_id: r.test_id,
    status: r.status,
    expected_status: r.expected_status,
    duration_ms: r.duration_ms,
    started_ms: r.started_at,
    error: errorJson(r),
    annotations: JSON.stringify(r.annotations),
    tags: JSON.stringify(r.tags),
    attachments: JSON.stringify(r.attachments),
    issue_id: issueOf(r),
    stored_ms: now,
  }));
  const stored = await tx
    .insertInto('test_attempts')
    .values(rows)
    .onConflict((oc) => oc.columns(['project_id', 'run_id', 'test_key', 'retry']).doNothing())
    .returning(['test_key', 'retry'])
    .execute();
  const keys = new Set(stored.map((r) => `${r.test_key}\n${r.retry}`));
  return items.filter(({ key, result }) => keys.has(`${key}\n${result.retry}`));
}

/** Describes each test as its newest stored attempt does. */
async function upsertCases(
  tx: Transaction<Database>,
  projectId: string,
  items: { key: string; result: ResultIn }[],
  now: number,
): Promise<void> {
  const byKey = new Map(items.map(({ key, result: r }) => [key, r]));
  const rows = [...byKey].map(([key, r]) => ({
    project_id: projectId,
    test_key: key,
    test_id: r.test_id,
    file: r.file,
    line: r.line,
    title: r.title_path.join(' > '),
    title_path: JSON.stringify(r.title_path),
    project: r.project,
    first_seen_ms: now,
    last_seen_ms: now,
  }));
  await tx
    .insertInto('test_cases')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['project_id', 'test_key']).doUpdateSet((eb) => ({
        test_id: eb.ref('excluded.test_id'),
        line: eb.ref('excluded.line'),
        last_seen_ms: eb.ref('excluded.last_seen_ms'),
      })),
    )
    .execute();
}

/**
 * Folds newly stored attempts into their tests' results and the run's counts: each test's outcome before and after
 * (Playwright's rule over its attempts, any order), and the run's counts moved from the one to the other.
 */
async function foldResults(
  tx: Transaction<Database>,
  run: RunRow,
  stored: { key: string; result: ResultIn }[],
): Promise<void> {
  const { project_id: projectId, run_id: runId } = run;
  const keys = [...new Set(stored.map((s) => s.key))].sort();
  const existing = await tx
    .selectFrom('test_results')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('run_id', '=', runId)
    .where('test_key', 'in', keys)
    .execute();
  const before = new Map<string, ResultRow>(existing.map((r) => [r.test_key, r]));
  const attempts = new Map<string, AttemptFacts[]>();
  for (const { key, result: r } of stored) {
    const facts = {
      testId: r.test_id,
      retry: r.retry,
      status: r.status,
      expectedStatus: r.expected_status,
      durationMs: r.duration_ms,
      error: errorJson(r),
    };
    appendTo(attempts, key, facts);
  }
  const counts = { passed: 0, failed: 0, flaky: 0, skipped: 0, total: 0 };
  const rows = keys.map((key) => {
    const old = before.get(key);
    const identity = {
      project_id: projectId,
      run_id: runId,
      test_key: key,
      run_started_ms: run.started_ms,
      commit_sha: run.commit_sha,
      branch: run.branch,
    };
    const row = foldAttempts(old, attempts.get(key)!, identity);
    if (old) counts[RUN_COUNT_OF[old.outcome as Outcome]] -= 1;
    else counts.total += 1;
    counts[RUN_COUNT_OF[row.outcome as Outcome]] += 1;
    return row;
  });
  await tx
    .insertInto('test_results')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['project_id', 'run_id', 'test_key']).doUpdateSet((eb) => ({
        test_id: eb.ref('excluded.test_id'),
        outcome: eb.ref('excluded.outcome'),
        status: eb.ref('excluded.status'),
        retries: eb.ref('excluded.retries'),
        attempt_count: eb.ref('excluded.attempt_count'),
        counted: eb.ref('excluded.counted'),
        skipped_count: eb.ref('excluded.skipped_count'),
        failed_count: eb.ref('excluded.failed_count'),
        duration_ms: eb.ref('excluded.duration_ms'),
        error: eb.ref('excluded.error'),
        error_retry: eb.ref('excluded.error_retry'),
      })),
    )
    .execute();
  await updateRun(tx, projectId, runId, (eb) => ({
    passed: eb('passed', '+', counts.passed),
    failed: eb('failed', '+', counts.failed),
    flaky: eb('flaky', '+', counts.flaky),
    skipped: eb('skipped', '+', counts.skipped),
    total: eb('total', '+', counts.total),
  }));
}

/**
 * POST results: stores each attempt once (a re-sent one is a duplicate and changes nothing), makes the run when it is
 * unknown, and folds the new attempts into their tests' results and the run's counts, all in one transaction.
 */
export function storeResults(
  s: TestRunDb,
  projectId: string,
  runId: string,
  results: readonly ResultIn[],
): Promise<{ stored: number; duplicates: number }> {
  return s.db.transaction().execute(async (tx) => {
    const now = s.clock.now();
    await ensureRun(tx, projectId, runId, Math.min(...results.map((r) => r.started_at)), now);
    const run = (await lockRun(tx, s.dialect, projectId, runId))!;
    const stored = await insertAttempts(tx, projectId, runId, distinctAttempts(results), now);
    if (stored.length > 0) {
      await upsertCases(tx, projectId, stored, now);
      await foldResults(tx, run, stored);
    }
    return { stored: stored.length, duplicates: results.length - stored.length };
  });
}

/** A page of runs, newest first, `limit` + 1 rows (the extra one says there is a next page). */
export function listRuns(
  db: Kysely<Database>,
  projectId: string,
  f: RunsFilter,
  after: Position | undefined,
  limit: number,
): Promise<RunRow[]> {
  let q = db.selectFrom('test_runs as r').selectAll('r').where('r.project_id', '=', projectId);
  if (f.branch !== undefined) q = q.where('r.branch', '=', f.branch);
  if (f.commit !== undefined) q = q.where('r.commit_sha', '=', f.commit);
  if (f.status !== undefined) q = q.where('r.status', '=', f.status);
  if (f.from !== undefined) q = q.where('r.started_ms', '>=', f.from);
  if (f.to !== undefined) q = q.where('r.started_ms', '<', f.to);
  if (after) q = q.where(afterPosition(RUNS_SORT, sql.ref('r.started_ms'), sql.ref('r.run_id'), after));
  return q.orderBy('r.started_ms', 'desc').orderBy('r.run_id', 'desc').limit(limit).execute();
}

/** The run; not_found when the project has no run `runId`. */
export async function getRun(db: Kysely<Database>, projectId: string, runId: string): Promise<RunRow> {
  const run = await db
    .selectFrom('test_runs')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('run_id', '=', runId)
    .executeTakeFirst();
  if (!run) throw noRun(runId);
  return run;
}
