import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../../server/src/db/schema';
import type * as ServerModule from '../../server/src/index';
import { foldAttempts, RUN_COUNT_OF, type AttemptFacts } from '../../server/src/test-runs/outcome';
import type { Outcome, TestStatus } from '../../server/src/test-runs/schemas';
import { testKey } from '../../server/src/test-runs/store';
import { createTempDatabase, type DatabaseKind, type TempDatabase } from '../../test/support/databases';
import { prng } from '../harness';
import { quantile } from './stats';

const MINUTE = 60_000;
/** The newest run's start; runs are 10 minutes apart before it. */
const NOW = Date.UTC(2027, 5, 1);
/** Rows per INSERT: 18 columns at most, under SQLite's and PostgreSQL's bound-parameter limits. */
const INSERT_BATCH = 1000;
const FEATURE_BRANCHES = 40;

export interface Scale {
  runs: number;
  tests: number;
}

interface TestPlan {
  key: string;
  file: string;
  line: number;
  titlePath: string[];
  /** Chance per run of failing then passing on retry. */
  flakyRate: number;
  /** Chance per run of failing both tries (whatever the commit): pass and fail at one commit. */
  failRate: number;
  skipped: boolean;
}

/** The suite: 2 % of its tests flaky at 2 to 30 %, 1 % failing now and then without passing on retry, 2 % skipped. */
export function suite(tests: number): TestPlan[] {
  const random = prng(2028);
  return Array.from({ length: tests }, (_, i) => {
    const file = `e2e/area-${i % 10}/feature-${i % 40}.spec.ts`;
    const titlePath = [`feature ${i % 40}`, `does thing ${i}`];
    return {
      key: testKey(file, titlePath, 'chromium'),
      file,
      line: 10 + i,
      titlePath,
      flakyRate: i % 50 === 7 ? 0.02 + random() * 0.28 : 0,
      failRate: i % 100 === 23 ? 0.03 : 0,
      skipped: i % 50 === 13,
    };
  });
}

const sha = (text: string) => createHash('sha1').update(text).digest('hex');

const ERROR = (t: TestPlan) =>
  JSON.stringify({
    message:
      'expect(locator).toHaveText(expected)\n\nLocator: locator(\'#total\')\nExpected string: "42.00"\nReceived string: "41.99"',
    stack:
      `Error: expect(locator).toHaveText(expected)\n    at ${t.file}:${t.line + 4}:21\n` +
      Array.from({ length: 8 }, (_, i) => `    at node_modules/playwright/lib/worker/workerMain.js:${300 + i}:7`).join(
        '\n',
      ),
    location: { file: t.file, line: t.line + 4, column: 21 },
  });

interface Rows {
  run: Insertable<Database['test_runs']>;
  shard: Insertable<Database['test_run_shards']>;
  attempts: Insertable<Database['test_attempts']>[];
  results: Insertable<Database['test_results']>[];
}

/**
 * Run `i` (0 = oldest) as the store would have written it: its attempts (insertAttempts' rows), its results (folded
 * by the store's own foldAttempts), its counts and its finished shard. Runs of main build each commit about three
 * times (re-runs, merges), so a test failing at random passes and fails at one commit; 1 run in 200 is a broken build
 * in which a fifth of the tests fail.
 */
function runRows(random: () => number, projectId: string, tests: readonly TestPlan[], i: number, runs: number): Rows {
  const started = NOW - (runs - 1 - i) * 10 * MINUTE;
  const feature = random() < 0.3 ? Math.floor(random() * FEATURE_BRANCHES) : -1;
  const branch = feature < 0 ? 'main' : `feature-${feature}`;
  const commit = sha(feature < 0 ? `main-${Math.floor(i / 3)}` : `${branch}-${Math.floor(i / 20)}`);
  const runId = `${9_000_000_000 + i}-1`;
  const broken = random() < 0.005;
  const identity = { project_id: projectId, run_id: runId, run_started_ms: started, commit_sha: commit, branch };
  const counts = { passed: 0, failed: 0, flaky: 0, skipped: 0, total: 0 };
  const attempts: Rows['attempts'] = [];
  const results: Rows['results'] = [];
  let clock = started;
  for (const [n, t] of tests.entries()) {
    const testId = `${sha(t.key).slice(0, 8)}-${sha(`${t.key}x`).slice(0, 12)}`;
    const fails = (broken && random() < 0.2) || random() < t.failRate;
    const flaky = !fails && random() < t.flakyRate;
    const statuses: TestStatus[] = t.skipped
      ? ['skipped']
      : fails
        ? ['failed', 'failed']
        : flaky
          ? ['failed', 'passed']
          : ['passed'];
    const facts: AttemptFacts[] = statuses.map((status, retry) => {
      const durationMs = status === 'skipped' ? 0 : 300 + Math.floor(random() * 4000);
      const error = status === 'failed' ? ERROR(t) : null;
      attempts.push({
        project_id: projectId,
        run_id: runId,
        test_key: t.key,
        retry,
        test_id: testId,
        status,
        expected_status: t.skipped ? 'skipped' : 'passed',
        duration_ms: durationMs,
        started_ms: clock,
        error,
        annotations: t.skipped ? JSON.stringify([{ type: 'skip', description: 'not on this platform' }]) : '[]',
        tags: n % 7 === 0 ? '["@smoke"]' : '[]',
        attachments: status === 'failed' ? '["screenshot","trace"]' : '[]',
        issue_id: null,
        stored_ms: started + 60_000,
      });
      clock += durationMs;
      return { testId, retry, status, expectedStatus: t.skipped ? 'skipped' : 'passed', durationMs, error };
    });
    const row = foldAttempts(undefined, facts, { ...identity, test_key: t.key });
    counts[RUN_COUNT_OF[row.outcome as Outcome]] += 1;
    counts.total += 1;
    results.push(row);
  }
  const duration = clock - started;
  const status = counts.failed > 0 ? 'failed' : 'passed';
  return {
    run: {
      project_id: projectId,
      run_id: runId,
      status,
      started_ms: started,
      finished_ms: started + duration,
      duration_ms: duration,
      commit_sha: commit,
      branch,
      title: `CI run ${i}`,
      ci_provider: 'github',
      ci_job_url: `https://github.com/acme/shop/actions/runs/${9_000_000_000 + i}`,
      ci_build_id: runId,
      shard_total: null,
      ...counts,
      created_ms: started,
      updated_ms: started + duration,
    },
    shard: {
      project_id: projectId,
      run_id: runId,
      shard: 0,
      status,
      duration_ms: duration,
      finished_ms: started + duration,
    },
    attempts,
    results,
  };
}

async function insertAll<T extends keyof Database>(
  db: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + INSERT_BATCH) as never)
      .execute();
}

/** Fills the database through the server's connection, one transaction, a few runs per round. */
export async function fill(
  db: Kysely<Database>,
  projectId: string,
  scale: Scale,
  tests: readonly TestPlan[],
): Promise<void> {
  const random = prng(18);
  const perRound = Math.max(1, Math.floor((2 * INSERT_BATCH) / scale.tests));
  await db.transaction().execute(async (tx) => {
    await insertAll(
      tx,
      'test_cases',
      tests.map((t) => ({
        project_id: projectId,
        test_key: t.key,
        test_id: `${sha(t.key).slice(0, 8)}-${sha(`${t.key}x`).slice(0, 12)}`,
        file: t.file,
        line: t.line,
        title: t.titlePath.join(' > '),
        title_path: JSON.stringify(t.titlePath),
        project: 'chromium',
        first_seen_ms: NOW - scale.runs * 10 * MINUTE,
        last_seen_ms: NOW,
      })),
    );
    for (let i = 0; i < scale.runs; i += perRound) {
      const batch = Array.from({ length: Math.min(perRound, scale.runs - i) }, (_, j) =>
        runRows(random, projectId, tests, i + j, scale.runs),
      );
      await insertAll(
        tx,
        'test_runs',
        batch.map((b) => b.run),
      );
      await insertAll(
        tx,
        'test_run_shards',
        batch.map((b) => b.shard),
      );
      await insertAll(
        tx,
        'test_attempts',
        batch.flatMap((b) => b.attempts),
      );
      await insertAll(
        tx,
        'test_results',
        batch.flatMap((b) => b.results),
      );
      if ((i / perRound) % 500 === 0) console.error(`  ${i.toLocaleString('en')} runs`);
    }
  });
}

interface View {
  name: string;
  /** Counts against the 50 ms p95 target. */
  target: boolean;
  path: string;
}

export interface ViewFigures {
  view: string;
  target: boolean;
  median: number;
  p95: number;
  rows: number;
}

export interface DatabaseFigures {
  kind: DatabaseKind;
  fillSeconds: number;
  sizeMiB: number;
  results: number;
  attempts: number;
  figures: ViewFigures[];
}

/** The views, with cursors of later pages read from the server first. */
async function views(
  get: (path: string) => Promise<{ body: { next_cursor?: string | null; data?: unknown } }>,
  runs: number,
  flakyKey: string,
  stableKey: string,
  failedRun: string,
): Promise<View[]> {
  /** A later page: page `wanted`, or the last but one of a smaller store. */
  const page = (wanted: number, perPage: number) => Math.max(2, Math.min(wanted, Math.floor(runs / perPage) - 1));
  const [h, h200, r] = [page(50, 50), page(20, 200), page(100, 50)];
  const later = async (path: string, pages: number) => {
    let cursor: string | null | undefined;
    for (let p = 0; p < pages; p++) {
      cursor = (
        await get(`${path}${cursor ? `${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).body.next_cursor;
      if (!cursor) throw new Error(`${path} has fewer than ${pages + 1} pages`);
    }
    return `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor!)}`;
  };
  return [
    { name: 'test history, first page (flaky test)', target: true, path: `/tests/${flakyKey}` },
    { name: 'test history, first page (stable test)', target: true, path: `/tests/${stableKey}` },
    { name: `test history, page ${h} (cursor)`, target: true, path: await later(`/tests/${flakyKey}`, h - 1) },
    {
      name: `test history, limit=200, page ${h200}`,
      target: true,
      path: await later(`/tests/${stableKey}?limit=200`, h200 - 1),
    },
    { name: 'flaky list (runs=50, default)', target: true, path: '/tests/flaky' },
    { name: 'flaky list runs=200', target: true, path: '/tests/flaky?runs=200' },
    { name: 'flaky list runs=500 (the maximum)', target: false, path: '/tests/flaky?runs=500' },
    { name: 'flaky list branch=main', target: true, path: '/tests/flaky?branch=main' },
    { name: 'flaky list branch=main, runs=200', target: true, path: '/tests/flaky?branch=main&runs=200' },
    { name: 'flaky list branch=feature-7', target: true, path: '/tests/flaky?branch=feature-7' },
    { name: 'runs, first page', target: false, path: '/test-runs' },
    { name: `runs, page ${r} (cursor)`, target: false, path: await later('/test-runs', r - 1) },
    { name: 'runs, branch=feature-7', target: false, path: '/test-runs?branch=feature-7' },
    { name: 'runs, status=failed', target: false, path: '/test-runs?status=failed' },
    { name: `run detail (newest failed run, ${failedRun})`, target: false, path: `/test-runs/${failedRun}` },
  ];
}

function serverTiming(res: Response): number | undefined {
  const dur = /dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1];
  return dur === undefined ? undefined : Number(dur);
}

async function measure(
  url: string,
  controlKey: string,
  runs: number,
  requests: number,
  keys: { flaky: string; stable: string },
  failedRun: string,
): Promise<ViewFigures[]> {
  const headers = { authorization: `Bearer ${controlKey}` };
  const get = async (path: string) => {
    const started = performance.now();
    const res = await fetch(`${url}/control-plane${path}`, { headers });
    const body = (await res.json()) as { data?: unknown[]; tests?: unknown[]; next_cursor?: string | null };
    const ms = serverTiming(res) ?? performance.now() - started;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return { ms, body };
  };
  const list = await views(get, runs, keys.flaky, keys.stable, failedRun);
  for (const v of list) await get(v.path);
  const times = list.map(() => [] as number[]);
  const rows = list.map(() => 0);
  // Views in turn, so that a slow moment of the machine spreads over all of them.
  for (let r = 0; r < requests; r++) {
    for (const [i, v] of list.entries()) {
      const { ms, body } = await get(v.path);
      times[i]!.push(ms);
      rows[i] = Array.isArray(body.data) ? body.data.length : (body.tests?.length ?? 0);
    }
  }
  return list.map((v, i) => ({
    view: v.name,
    target: v.target,
    median: quantile(times[i]!, 0.5),
    p95: quantile(times[i]!, 0.95),
    rows: rows[i]!,
  }));
}

type StartServer = typeof ServerModule.startServer;

/** One database: the built server in this process on an empty database, filled, measured, dropped. */
export async function measureHistory(
  kind: DatabaseKind,
  startServer: StartServer,
  scale: Scale,
  requests: number,
  work: string,
  databases: Set<TempDatabase>,
): Promise<DatabaseFigures> {
  const database: TempDatabase =
    kind === 'sqlite'
      ? { url: join(work, 'svc.db'), drop: async () => undefined }
      : await createTempDatabase('postgres');
  databases.add(database);
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: database.url,
    secretKey: 'bench-playwright-secret-key-0123456789abcdef',
    log: () => undefined,
    detection: false,
  });
  try {
    const boot = server.bootstrap!;
    const { db } = server.database;
    const tests = suite(scale.tests);
    console.error(`${kind}: inserting ${scale.runs.toLocaleString('en')} runs × ${scale.tests} tests...`);
    const started = performance.now();
    await fill(db, boot.projectId, scale, tests);
    if (kind === 'postgres')
      await sql`analyze test_runs, test_results, test_attempts, test_cases, test_run_shards`.execute(db);
    const fillSeconds = (performance.now() - started) / 1000;
    const [{ results }] = (await sql<{ results: number }>`select count(*) as results from test_results`.execute(db))
      .rows as [{ results: number }];
    const [{ attempts }] = (await sql<{ attempts: number }>`select count(*) as attempts from test_attempts`.execute(db))
      .rows as [{ attempts: number }];
    let sizeMiB: number;
    if (kind === 'postgres') {
      const [{ n }] = (await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(db)).rows as [
        { n: string },
      ];
      sizeMiB = Number(n) / 2 ** 20;
    } else {
      await sql`pragma wal_checkpoint(truncate)`.execute(db);
      sizeMiB = statSync(database.url).size / 2 ** 20;
    }
    console.error(`${kind}: ${fillSeconds.toFixed(1)} s, ${sizeMiB.toFixed(0)} MiB; measuring...`);
    const flaky = tests.find((t) => t.flakyRate > 0.1) ?? tests.find((t) => t.flakyRate > 0)!;
    const stable = tests.find((t) => t.flakyRate === 0 && t.failRate === 0 && !t.skipped)!;
    const failedRun = await db
      .selectFrom('test_runs')
      .select('run_id')
      .where('project_id', '=', boot.projectId)
      .where('failed', '>', 0)
      .orderBy('started_ms', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const figures = await measure(
      server.url,
      boot.controlKey.key,
      scale.runs,
      requests,
      { flaky: flaky.key, stable: stable.key },
      failedRun.run_id,
    );
    for (const f of figures)
      console.error(`${kind}: ${f.view}: median ${f.median.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, ${f.rows} rows`);
    return { kind, fillSeconds, sizeMiB, results: Number(results), attempts: Number(attempts), figures };
  } finally {
    await server.close();
    await database.drop();
    databases.delete(database);
  }
}
