import type { InsertResult } from 'kysely';
import type { ErrorOccurrence, TestSighting } from './error-records';
import type { DetectionTrx, GroupRef } from './groups';
import { chunks, higher } from './issue-facts';

type TestError = ErrorOccurrence & { test: TestSighting };

/** The newest time per key, with the last value `extra` gave for it. */
function newestBy<E>(
  errors: TestError[],
  keyOf: (o: TestError) => string | null,
  extra: (o: TestError) => E,
): Map<string, { lastMs: number; extra: E }> {
  const out = new Map<string, { lastMs: number; extra: E }>();
  for (const o of errors) {
    const key = keyOf(o);
    if (key === null) continue;
    const seen = out.get(key);
    if (!seen || o.timeMs >= seen.lastMs) out.set(key, { lastMs: o.timeMs, extra: extra(o) });
  }
  return out;
}

/** Runs `insert` (an insert that changes nothing on a conflict) over `rows` in chunks; answers how many rows were new. */
async function insertNew<R>(rows: R[], insert: (chunk: R[]) => Promise<InsertResult>): Promise<number> {
  let inserted = 0;
  for (const chunk of chunks(rows)) inserted += Number((await insert(chunk)).numInsertedOrUpdatedRows ?? 0);
  return inserted;
}

/**
 * The test side of counting (docs/issues.md, "Test traffic"): an issue's errors from test runs, the test sessions, runs
 * and tests they came from. Counters kept here, in the counting transaction that counts each error once, rather than
 * queries over sessions when an issue is read: the listing shows them for every issue of a page, and the runs and tests
 * of an issue are read newest first through their own index, whatever the number of runs.
 */
export async function recordTestSightings(trx: DetectionTrx, ref: GroupRef, errors: ErrorOccurrence[]): Promise<void> {
  const tests = errors.filter((o): o is TestError => o.test !== null);
  const key = { project_id: ref.projectId, fingerprint: ref.fingerprint };
  // Counted by the rows new to each table, so that retention pruning old rows never lowers a count.
  const sessions = [
    ...newestBy(
      tests,
      (o) => o.sessionId,
      () => null,
    ),
  ].map(([session_id, r]) => ({ ...key, session_id, seen_ms: r.lastMs }));
  const newSessions = await insertNew(sessions, (rows) =>
    trx
      .insertInto('issue_test_sessions')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst(),
  );
  const runs = [
    ...newestBy(
      tests,
      (o) => o.test.runId,
      () => null,
    ),
  ].map(([run_id, r]) => ({ ...key, run_id, last_ms: r.lastMs }));
  const newRuns = await insertNew(runs, (rows) =>
    trx
      .insertInto('issue_test_runs')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst(),
  );
  // Runs seen before: their last error moves on.
  for (const rows of chunks(runs)) {
    await trx
      .insertInto('issue_test_runs')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'fingerprint', 'run_id'])
          .doUpdateSet({ last_ms: higher('issue_test_runs', 'last_ms') }),
      )
      .execute();
  }
  const byTest = newestBy(
    tests,
    (o) => o.test.testId,
    (o) => o.test.title,
  );
  for (const rows of chunks(
    [...byTest].map(([test_id, r]) => ({ ...key, test_id, title: r.extra, last_ms: r.lastMs })),
  )) {
    await trx
      .insertInto('issue_tests')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'fingerprint', 'test_id'])
          .doUpdateSet({ last_ms: higher('issue_tests', 'last_ms'), title: (eb) => eb.ref('excluded.title') }),
      )
      .execute();
  }
  await trx
    .updateTable('detection_groups')
    .set((eb) => ({
      test_count: eb('test_count', '+', tests.length),
      test_session_count: eb('test_session_count', '+', newSessions),
      test_run_count: eb('test_run_count', '+', newRuns),
    }))
    .where('project_id', '=', ref.projectId)
    .where('fingerprint', '=', ref.fingerprint)
    .execute();
}
