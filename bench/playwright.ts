/**
 * @svc/playwright's figures (issue 28), side by side in one run:
 *
 *   npm run bench:playwright [-- --repetitions 5 --results 5000 --runs 10000 --tests 200 --requests 30 --databases sqlite,postgres --parts fixture,reporter,history]
 *
 * 1. Fixture overhead (`fixture`): one suite of 40 trivial tests (bench/playwright/suite: load a static page with the
 *    SDK's script tag, dist/cdn/svc.min.js, check one text), run as a nested Playwright with `@playwright/test`'s plain
 *    `test` and with `@svc/playwright`'s (its fixture, and its reporter), against the built `svc-server start`
 *    (test/support/svc-server.ts), one worker, Chromium as test/support/browser.ts finds it. One warm-up run of each,
 *    then `--repetitions` of each, alternating. A test's duration is Playwright's JSON reporter's (the test with its
 *    fixtures); the added time is, per test, its median with the fixture minus its median without; printed is the
 *    median over the tests. Target ≤ 30 ms.
 * 2. Reporter upload (`reporter`): the reporter class (playwright/src/reporter/reporter.ts) fed `--results` results
 *    (onBegin, onTestEnd for each, onEnd), realistic TestCase/TestResult objects, some failed with Playwright's
 *    error (message, stack, location), retried, skipped, against the same server (a project of its own). Timed from
 *    the first onTestEnd to onEnd resolved; the run's counts are then read back (GET /control-plane/test-runs/{id})
 *    and must be those fed. Target ≤ 10 s.
 * 3. History and flaky list at scale (`history`): per database, the built server (server/dist) in this process on an
 *    empty database; `--runs` runs × `--tests` tests inserted directly through its own connection in one transaction,
 *    rows as server/src/test-runs/store.ts writes them (runs with their counts, shards, cases, attempts, results
 *    folded by the store's own foldAttempts): 2 % of the tests flaky at 2-30 %, 1 % failing 3 % of runs without
 *    passing on retry (main builds each commit about three times, so it passes and fails at one commit), 2 % skipped,
 *    1 run in 200 a broken build; 30 % of runs on 40 feature branches. PostgreSQL (a throwaway database on
 *    SVC_TEST_POSTGRES_URL's server) is then ANALYZEd. Each view is requested `--requests` times in turn after one
 *    warm-up, one at a time over loopback; time to the whole response. Target ≤ 50 ms p95 for a test's history and
 *    the flaky list; the runs' listing and a run's detail are printed without a target.
 *
 * Printed: the Markdown of docs/benchmarks.md. Exits non-zero when a target is missed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as ServerModule from '../server/src/index';
import { resolveBrowser } from '../test/support/browser';
import type { DatabaseKind, TempDatabase } from '../test/support/databases';
import { startCliServer, type CliServer } from '../test/support/svc-server';
import { runBench } from './harness';
import { measureFixture, type FixtureFigures } from './playwright/fixture';
import { measureHistory, type DatabaseFigures } from './playwright/history';
import { measureReporter, type ReporterFigures } from './playwright/reporter-feed';

const { values: args } = parseArgs({
  options: {
    repetitions: { type: 'string', default: '5' },
    results: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '10000' },
    tests: { type: 'string', default: '200' },
    requests: { type: 'string', default: '30' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    parts: { type: 'string', default: 'fixture,reporter,history' },
    /** Another build of the server, relative to the working directory (part 3 only). */
    'server-dist': { type: 'string', default: join('server', 'dist') },
  },
});
const int = (name: keyof typeof args, min: number) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return n;
};
const REPETITIONS = int('repetitions', 1);
const RESULTS = int('results', 10);
const RUNS = int('runs', 500);
const TESTS = int('tests', 20);
const REQUESTS = int('requests', 5);
const DATABASES = args.databases.split(',').map((name) => name.trim()) as DatabaseKind[];
for (const name of DATABASES)
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown database "${name}" (known: sqlite, postgres)`);
const PARTS = new Set(args.parts.split(',').map((p) => p.trim()));
for (const p of PARTS)
  if (!['fixture', 'reporter', 'history'].includes(p))
    throw new Error(`unknown part "${p}" (known: fixture, reporter, history)`);

const FIXTURE_TARGET_MS = 30;
const REPORTER_TARGET_S = 10;
const READ_TARGET_MS = 50;

const databases = new Set<TempDatabase>();
const log = (m: string) => console.error(m);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

async function main(): Promise<void> {
  const loadBefore = load();
  let fixture: FixtureFigures | undefined;
  let reporter: ReporterFigures | undefined;
  const history: DatabaseFigures[] = [];
  const loads: string[] = [`start ${loadBefore}`];
  if (PARTS.has('fixture') || PARTS.has('reporter')) {
    const svc: CliServer = await startCliServer();
    try {
      if (PARTS.has('fixture')) {
        log(`fixture: Chromium ${resolveBrowser().source}; ${REPETITIONS} repetitions of each`);
        fixture = await measureFixture(svc, REPETITIONS, log);
        loads.push(`after the fixture runs ${load()}`);
      }
      if (PARTS.has('reporter')) {
        log(`reporter: ${RESULTS} results`);
        reporter = await measureReporter(await svc.newProject(), RESULTS);
        log(
          `reporter: ${reporter.seconds.toFixed(2)} s; counts ${JSON.stringify(reporter.counts)} (fed ${JSON.stringify(reporter.expected)})`,
        );
        loads.push(`after the upload ${load()}`);
      }
    } finally {
      await svc.close();
    }
  }
  if (PARTS.has('history')) {
    const dist = pathToFileURL(join(process.cwd(), args['server-dist'], 'index.js')).href;
    const { startServer } = (await import(dist)) as typeof ServerModule;
    const work = mkdtempSync(join(tmpdir(), 'svc-bench-playwright-'));
    try {
      for (const kind of DATABASES) {
        history.push(await measureHistory(kind, startServer, { runs: RUNS, tests: TESTS }, REQUESTS, work, databases));
        loads.push(`after ${kind} ${load()}`);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  const missed: string[] = [];
  const fmt = (ms: number) => ms.toFixed(1);
  console.log(`\n## bench:playwright, ${new Date().toISOString().slice(0, 10)}\n`);
  const flags = process.argv.slice(2).join(' ');
  console.log(`\`npm run bench:playwright${flags ? ` -- ${flags}` : ''}\`\n`);
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}. ` +
      `Load average (1 / 5 / 15 min): ${loads.join('; ')}.\n`,
  );
  if (fixture) {
    const ok = fixture.addedMedian <= FIXTURE_TARGET_MS;
    if (!ok) missed.push(`fixture: ${fmt(fixture.addedMedian)} ms added per test`);
    console.log(
      `### Fixture overhead (${fixture.tests} trivial tests, ${fixture.repetitions} alternating repetitions of each, 1 worker)\n`,
    );
    console.log('| | plain `test` | `@svc/playwright` (+ reporter) | added |');
    console.log('| --- | --- | --- | --- |');
    console.log(
      `| median test duration (ms) | ${fmt(fixture.plainMedian)} | ${fmt(fixture.svcMedian)} | ${fmt(fixture.svcMedian - fixture.plainMedian)} |`,
    );
    console.log(
      `| median over tests of the added time (ms) | | | **${fmt(fixture.addedMedian)}** (without the first test: ${fmt(fixture.addedMedianWarm)}) |`,
    );
    console.log(
      `| whole \`playwright test\` run, median (s) | ${(fixture.plainWall / 1000).toFixed(1)} | ${(fixture.svcWall / 1000).toFixed(1)} | ${((fixture.svcWall - fixture.plainWall) / 1000).toFixed(1)} |`,
    );
    console.log(`\nTarget ≤ ${FIXTURE_TARGET_MS} ms added per test (median): ${ok ? 'met' : 'MISSED'}.\n`);
  }
  if (reporter) {
    const ok = reporter.seconds <= REPORTER_TARGET_S && reporter.countsMatch;
    if (!ok) missed.push(`reporter: ${reporter.seconds.toFixed(2)} s${reporter.countsMatch ? '' : ', counts differ'}`);
    console.log(`### Reporter upload\n`);
    console.log('| results (tests) | first onTestEnd → onEnd resolved (s) | run counts read back | as fed |');
    console.log('| --- | --- | --- | --- |');
    const c = (x: ReporterFigures['counts']) =>
      `${x.passed} passed, ${x.failed} failed, ${x.flaky} flaky, ${x.skipped} skipped, ${x.total} total`;
    console.log(
      `| ${reporter.results.toLocaleString('en')} (${reporter.tests.toLocaleString('en')}) | **${reporter.seconds.toFixed(2)}** | ${c(reporter.counts)} (${reporter.status}) | ${reporter.countsMatch ? 'yes' : 'NO'} |`,
    );
    console.log(`\nTarget ≤ ${REPORTER_TARGET_S} s with the counts right: ${ok ? 'met' : 'MISSED'}.\n`);
  }
  if (history.length > 0) {
    console.log(
      `### History and flaky list (${RUNS.toLocaleString('en')} runs × ${TESTS} tests, ${REQUESTS} requests per view)\n`,
    );
    const name = (k: DatabaseKind) => (k === 'sqlite' ? 'SQLite' : 'PostgreSQL');
    console.log(`| View | ${history.map((h) => `${name(h.kind)} median / p95 (ms)`).join(' | ')} | Rows |`);
    console.log(`|${' --- |'.repeat(history.length + 2)}`);
    history[0]!.figures.forEach((f, i) => {
      const cells = history.map((h) => `${fmt(h.figures[i]!.median)} / ${fmt(h.figures[i]!.p95)}`);
      console.log(`| ${f.view}${f.target ? '' : ' (no target)'} | ${cells.join(' | ')} | ${f.rows} |`);
    });
    console.log(
      `\nLoading: ${history.map((h) => `${name(h.kind)} ${h.fillSeconds.toFixed(0)} s, ${h.results.toLocaleString('en')} results and ${h.attempts.toLocaleString('en')} attempts, database ${h.sizeMiB.toFixed(0)} MiB`).join('; ')}.`,
    );
    const slow = history.flatMap((h) =>
      h.figures
        .filter((f) => f.target && f.p95 > READ_TARGET_MS)
        .map((f) => `${name(h.kind)}: ${f.view} (p95 ${fmt(f.p95)} ms)`),
    );
    missed.push(...slow);
    console.log(
      `\nTarget ≤ ${READ_TARGET_MS} ms p95 for history and the flaky list: ${slow.length === 0 ? 'met' : `MISSED (${slow.join('; ')})`}.`,
    );
  }
  if (missed.length > 0) {
    console.log(`\nMissed: ${missed.join('; ')}`);
    process.exitCode = 1;
  }
}

runBench('bench:playwright', main, databases, 90 * 60_000);
