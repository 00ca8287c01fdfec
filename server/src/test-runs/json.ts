import type { Selectable } from 'kysely';
import type { Database } from '../db/schema';
import { iso } from '../shared/time';
import type { Outcome, TestStatus } from './schemas';
import type { RunRow } from './store';

/** The API's shapes of stored test runs (test-runs/schemas.ts). JSON columns are written by the store, so parsed as is. */

type StoredError = { message: string; stack?: string; location?: { file: string; line: number; column: number } };

export const errorOf = (json: string | null): StoredError | null =>
  json === null ? null : (JSON.parse(json) as StoredError);

export const runJson = (r: RunRow) => ({
  run_id: r.run_id,
  status: r.status as 'running' | 'passed' | 'failed' | 'interrupted' | 'timedout',
  title: r.title,
  started_at: iso(r.started_ms),
  finished_at: r.finished_ms === null ? null : iso(r.finished_ms),
  duration_ms: r.duration_ms,
  commit: r.commit_sha,
  branch: r.branch,
  ci: { provider: r.ci_provider, job_url: r.ci_job_url, build_id: r.ci_build_id },
  shard_total: r.shard_total,
  counts: { passed: r.passed, failed: r.failed, flaky: r.flaky, skipped: r.skipped, total: r.total },
});

type CaseRow = Pick<
  Selectable<Database['test_cases']>,
  'test_key' | 'test_id' | 'title' | 'title_path' | 'file' | 'line' | 'project'
>;

export const caseJson = (c: CaseRow) => ({
  test_key: c.test_key,
  test_id: c.test_id,
  title: c.title,
  title_path: JSON.parse(c.title_path) as string[],
  file: c.file,
  line: c.line,
  project: c.project,
});

type ResultFields = Pick<
  Selectable<Database['test_results']>,
  'outcome' | 'status' | 'retries' | 'duration_ms' | 'error'
>;

export const resultJson = (r: ResultFields) => ({
  outcome: r.outcome as Outcome,
  status: r.status as TestStatus,
  retries: r.retries,
  duration_ms: r.duration_ms,
  error: errorOf(r.error),
});

export const attemptJson = (a: Selectable<Database['test_attempts']>, sessions: string[]) => ({
  retry: a.retry,
  status: a.status as TestStatus,
  duration_ms: a.duration_ms,
  started_at: iso(a.started_ms),
  error: errorOf(a.error),
  annotations: JSON.parse(a.annotations) as { type: string; description?: string }[],
  tags: JSON.parse(a.tags) as string[],
  attachments: JSON.parse(a.attachments) as string[],
  sessions,
});

/** Adds `value` to the list under `key`. */
export function appendTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
