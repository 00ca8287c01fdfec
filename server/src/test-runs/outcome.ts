import type { Selectable } from 'kysely';
import type { Database } from '../db/schema';
import type { Outcome, TestStatus } from './schemas';

export type ResultRow = Selectable<Database['test_results']>;

/** What folding needs of one stored attempt. */
export interface AttemptFacts {
  testId: string;
  retry: number;
  status: TestStatus;
  expectedStatus: TestStatus;
  durationMs: number;
  /** JSON, or null. */
  error: string | null;
}

/** The run count each outcome feeds. */
export const RUN_COUNT_OF = {
  expected: 'passed',
  unexpected: 'failed',
  flaky: 'flaky',
  skipped: 'skipped',
} as const satisfies Record<Outcome, string>;

type Counts = Pick<ResultRow, 'counted' | 'skipped_count' | 'failed_count'>;

/**
 * Playwright's TestCase.outcome() over counts, so attempts may arrive in any order: interrupted attempts do not count;
 * all skipped is skipped; no failure (a status other than skipped and the expected one) is expected; only failures is
 * unexpected; both is flaky.
 */
export function outcomeOf(c: Counts): Outcome {
  if (c.skipped_count === c.counted) return 'skipped';
  if (c.failed_count === 0) return 'expected';
  return c.failed_count === c.counted ? 'unexpected' : 'flaky';
}

type Identity = Pick<ResultRow, 'project_id' | 'run_id' | 'test_key' | 'run_started_ms' | 'commit_sha' | 'branch'>;

/** A test's result in a run with newly stored attempts added to what was stored (`old`, none for a new test). */
export function foldAttempts(
  old: ResultRow | undefined,
  attempts: readonly AttemptFacts[],
  identity: Identity,
): ResultRow {
  const row: ResultRow = old
    ? { ...old }
    : {
        ...identity,
        test_id: attempts[0]!.testId,
        outcome: 'skipped',
        status: attempts[0]!.status,
        retries: -1,
        attempt_count: 0,
        counted: 0,
        skipped_count: 0,
        failed_count: 0,
        duration_ms: 0,
        error: null,
        error_retry: -1,
      };
  for (const a of attempts) {
    row.attempt_count += 1;
    row.duration_ms += a.durationMs;
    if (a.status !== 'interrupted') {
      row.counted += 1;
      if (a.status === 'skipped') row.skipped_count += 1;
      else if (a.status !== a.expectedStatus) row.failed_count += 1;
    }
    if (a.retry >= row.retries) Object.assign(row, { retries: a.retry, status: a.status, test_id: a.testId });
    if (a.error !== null && a.retry >= row.error_retry) Object.assign(row, { error: a.error, error_retry: a.retry });
  }
  row.outcome = outcomeOf(row);
  return row;
}
