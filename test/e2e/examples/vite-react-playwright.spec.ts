import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { resolveBrowser } from '../../support/browser';
import { childEnv } from '../../support/child-env';
import { EXAMPLES, copyExample, formatTimings, prepareExample, viteReactIn, type RunningApp, type Timed } from '../../support/examples';
import { controlGet, type TestServer } from '../../support/svc-server';
import { signIn } from '../console/support';
import { COUPON_ERROR } from './readable-errors';
import { startIngest } from './scenario';

/**
 * Issue 28's proof on the Vite example: its own Playwright suite (examples/vite-react/e2e, `@svc/playwright` and
 * `@svc/browser` installed from their packed tarballs) runs with `npx playwright test` against the production build
 * (`vite preview`) and `svc-server start`: a passing test, one failing on the shop's coupon bug, one flaky (fails on its
 * first try, `retries: 1`). The build names no environment, so the SDK's is `test` once the fixture hands it the test.
 * Then, through the API and the console: the run's counts; the failed test's session, replay and error at the original
 * source; `toHaveNoErrors`' message; no incident and no production issue; a re-sent result stored once; and, the
 * server stopped, the suite's same statuses with one warning. One build and two nested runs, for CI's time;
 * test/integration/playwright-package.test.ts keeps what is not proven here (the inject project, each attempt's
 * session with its test and retry, the failure annotation). The build is of a copy of the example (copyExample):
 * vite-react.spec.ts builds the example itself, with other settings, maybe at the same time.
 */

const COUPONS_SOURCE = 'src/coupons.ts';
const TITLES = { passed: 'the API answers with the trace headers', failed: 'coupons apply to the total', flaky: 'the about page opens' };
const OUTCOMES = { [TITLES.passed]: 'expected', [TITLES.failed]: 'unexpected', [TITLES.flaky]: 'flaky' };

/** Variables of CI services (this machine's own CI among them): the nested run is a local one. */
const CI_VARIABLE = /^(CI_|GITHUB_|GITLAB_|CIRCLE|BUILDKITE|JENKINS_|BUILD_|GIT_COMMIT$|GIT_BRANCH$|BRANCH_NAME$)/;

interface JsonReport {
  suites: Array<{ specs: Array<{ title: string; tests: Array<{ status: string; results: Array<{ status: string; errors: Array<{ message?: string }> }> }> }> }>;
}

interface SuiteRun {
  code: number | null;
  output: string;
  /** Test title → Playwright's outcome (expected, unexpected, flaky). */
  outcomes: Record<string, string>;
  report: JsonReport;
  ms: number;
}

/** Where the throw of `discountFor` is in the example's coupons module (1-based). */
function throwLine(dir: string): number {
  const index = readFileSync(join(dir, COUPONS_SOURCE), 'utf8')
    .split('\n')
    .findIndex((line) => line.includes('throw new Error(`Coupon'));
  expect(index, `the throw in ${COUPONS_SOURCE}`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

/**
 * `npx playwright test` in the example as a developer runs it, with the list and svc reporters of its config plus
 * Playwright's JSON report (for the statuses), its output under a directory of its own.
 */
async function runSuite(dir: string, env: Record<string, string>): Promise<SuiteRun> {
  const work = mkdtempSync(join(tmpdir(), 'svc-vite-pw-'));
  const reportFile = join(work, 'report.json');
  const base = childEnv({ CI: '', PLAYWRIGHT_JSON_OUTPUT_FILE: reportFile, ...env });
  for (const key of Object.keys(base)) if (CI_VARIABLE.test(key)) delete base[key];
  const started = Date.now();
  try {
    const child = spawn('npx', ['playwright', 'test', '--reporter', 'list,@svc/playwright/reporter,json', '--output', join(work, 'results')], {
      cwd: dir,
      env: base,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const ms = Date.now() - started;
    await test.info().attach(`nested run (${env.SVC_URL})`, { body: output, contentType: 'text/plain' });
    let report: JsonReport;
    try {
      report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport;
    } catch (error) {
      throw new Error(`no JSON report from the nested run (exit ${code}): ${String(error)}\n${output.slice(-4000)}`);
    }
    const outcomes: Record<string, string> = {};
    for (const suite of report.suites) for (const spec of suite.specs) for (const t of spec.tests) outcomes[spec.title] = t.status;
    return { code, output, outcomes, report, ms };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

async function controlPost<T>(ingest: TestServer, path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${ingest.url}/control-plane${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ingest.controlKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

let ingest: TestServer;
let copy: { dir: string; remove(): void } | undefined;
let app: RunningApp | undefined;
/** The last step stops the server itself. */
let stopped = false;
/** Printed after the test, passed or not, like the other example specs' timings. */
const timings: Timed[] = [];

test.afterAll(async () => {
  console.log(formatTimings('vite-react playwright suite', timings));
  await app?.stop();
  copy?.remove();
  if (!stopped) await ingest?.close();
});

test('the Vite example’s Playwright suite, observed by svc: run, sessions, symbolicated failure, test traffic kept apart, svc down', async ({ page }) => {
  // A cold install of the example, one build, two nested runs of the suite.
  test.setTimeout(600_000);
  const runId = `vite-pw-${randomBytes(4).toString('hex')}`;
  const browser = resolveBrowser();
  const chromium: Record<string, string> = browser.launchOptions.executablePath ? { CHROMIUM_PATH: browser.launchOptions.executablePath } : {};
  let example = EXAMPLES['vite-react'];
  let run: SuiteRun;

  await test.step('install, build without an environment, serve', async () => {
    ingest = await startIngest();
    timings.push(...(await prepareExample(example)));
    copy = copyExample(example);
    example = viteReactIn(copy.dir);
    // No `env`: the SDK's environment is `test` under the fixture (it would be `production` otherwise).
    const settings = { ingestUrl: ingest.url, apiKey: ingest.ingestKey };
    timings.push(await example.build(settings, { serverUrl: ingest.url, controlKey: ingest.controlKey }));
    const started = Date.now();
    app = await example.start('production', settings);
    timings.push({ step: 'start', ms: Date.now() - started });
  });

  await test.step('the suite runs: 1 passed, 1 failed on the coupon bug, 1 flaky', async () => {
    run = await runSuite(example.dir, { SVC_URL: ingest.url, SVC_CONTROL_KEY: ingest.controlKey, SVC_RUN_ID: runId, BASE_URL: app!.origin, ...chromium });
    timings.push({ step: 'suite', ms: run.ms });
    expect(run.outcomes, run.output).toEqual(OUTCOMES);
    expect(run.code, 'a failed test fails the run').toBe(1);
    // The reporter's one line: the run in the console, no warning.
    expect(run.output.match(/^svc: .*$/gm), run.output).toEqual([`svc: ${ingest.url}/test-run/${runId}`]);
  });

  let sessionId = '';
  await test.step('the API: the run’s counts, the failed test’s session and replay, its error at the original source', async () => {
    const detail = await controlGet<any>(ingest, `/test-runs/${runId}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ run_id: runId, status: 'failed', counts: { passed: 1, failed: 1, flaky: 1, skipped: 0, total: 3 } });
    const failed = detail.body.tests.find((t: any) => t.title_path.at(-1) === TITLES.failed);
    expect(failed).toMatchObject({ outcome: 'unexpected', status: 'failed', file: 'shop.spec.ts', project: 'chromium', retries: 1 });
    sessionId = failed.attempts[0].sessions[0];
    expect(sessionId, JSON.stringify(failed.attempts[0])).toMatch(/\S/);

    const session = await controlGet<any>(ingest, `/sessions/${sessionId}`);
    expect(session.status).toBe(200);
    expect(session.body.replays.length, 'the failed attempt’s session has a replay').toBeGreaterThan(0);
    const logs = await controlGet<any>(ingest, `/logs?session_id=${sessionId}&limit=1000`);
    const error = logs.body.data.find((l: any) => l.attributes['exception.message'] === COUPON_ERROR);
    expect(error, `the coupon error in session ${sessionId}`).toBeDefined();
    expect(error.resource.attributes).toMatchObject({ 'deployment.environment': 'test', 'test.run.id': runId });
    const frames = await controlGet<any>(ingest, `/logs/${error.id}/frames`);
    expect(frames.status).toBe(200);
    expect(frames.body.frames[0].original, JSON.stringify(frames.body.frames[0])).toMatchObject({ file: COUPONS_SOURCE, function: 'discountFor', line: throwLine(example.dir) });

    // toHaveNoErrors' message: the error, its original frame and the console link to the replay at that moment.
    const result = run.report.suites.flatMap((s) => s.specs).find((s) => s.title === TITLES.failed)!.tests[0]!.results[0]!;
    const message = plain(result.errors.map((e) => e.message ?? '').join('\n'));
    expect(message).toContain('1 error captured by svc in this test');
    expect(message).toContain(`Error: ${COUPON_ERROR}`);
    expect(message).toMatch(new RegExp(`at discountFor \\(src/coupons\\.ts:${throwLine(example.dir)}:\\d+\\)`));
    expect(message).toMatch(new RegExp(`replay: ${ingest.url}/session/${sessionId}\\?t=\\d+`));
  });

  await test.step('test traffic kept apart: the issue is seen in tests only, no incident', async () => {
    // The detector runs on its own schedule: once the issue shows both attempts' errors, the pass that counted them
    // (and would have opened an incident) is over.
    let issues: any[] = [];
    await expect
      .poll(
        async () => {
          issues = (await controlGet<any>(ingest, '/issues?seen_in=tests')).body.data.filter((i: any) => i.message === COUPON_ERROR);
          return issues[0]?.seen_in.tests.events ?? 0;
        },
        { message: 'the coupon issue counted both failed attempts as test traffic', timeout: 30_000, intervals: [500, 1000] },
      )
      .toBe(2);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ caught_in_tests: true, seen_in: { production: { events: 0, sessions: 0 }, tests: { sessions: 2, run_count: 1 } } });
    expect((await controlGet<any>(ingest, '/issues')).body.data, 'production issues').toEqual([]);
    expect((await controlGet<any>(ingest, '/incidents')).body.data, 'incidents').toEqual([]);
  });

  await test.step('a re-sent result is stored once', async () => {
    const detail = (await controlGet<any>(ingest, `/test-runs/${runId}`)).body;
    const results = detail.tests.flatMap((t: any) =>
      t.attempts.map((a: any) => ({
        test_id: t.test_id,
        file: t.file,
        line: t.line,
        title_path: t.title_path,
        project: t.project,
        retry: a.retry,
        status: a.status,
        expected_status: 'passed',
        duration_ms: a.duration_ms,
        started_at: a.started_at,
      })),
    );
    expect(results).toHaveLength(5);
    const resent = await controlPost<any>(ingest, `/test-runs/${runId}/results`, { results });
    expect(resent).toEqual({ status: 200, body: { stored: 0, duplicates: 5 } });
    const after = (await controlGet<any>(ingest, `/test-runs/${runId}`)).body;
    expect(after.counts).toEqual(detail.counts);
    expect(after.tests.map((t: any) => t.attempts.length)).toEqual(detail.tests.map((t: any) => t.attempts.length));
  });

  await test.step('the console: the run page’s counts, and the failed test opens its replay at the failure', async () => {
    await signIn(page, ingest, { path: `/test-run/${runId}` });
    const totals = page.locator('dl.run-totals');
    await expect(totals).toContainText('Passed1');
    await expect(totals).toContainText('Failed1');
    await expect(totals).toContainText('Flaky1');
    const row = page.getByRole('table', { name: /Tests of the run/ }).getByRole('row').filter({ hasText: TITLES.failed });
    await row.getByRole('link').click();
    const first = page.getByRole('region', { name: 'Attempt 1' });
    await expect(first.locator('.browser-error')).toContainText(COUPON_ERROR);
    await expect(first.locator('.frame').first()).toContainText('discountFor');
    await expect(first.locator('.frame').first()).toContainText(`${COUPONS_SOURCE}:${throwLine(example.dir)}`);
    const replay = first.getByRole('link', { name: 'Replay at the failure' });
    await expect(replay).toHaveAttribute('href', new RegExp(`^/session/${sessionId}\\?t=\\d+$`));
    await replay.click();
    await expect(page).toHaveURL(new RegExp(`/session/${sessionId}\\?t=\\d+$`));
    await expect(page.frameLocator('iframe').first().getByRole('heading', { name: /^Shop/ }), 'the replay plays the shop').toBeVisible({ timeout: 15_000 });
  });

  await test.step('svc stopped: the same statuses, exactly one svc warning', async () => {
    // Ingest, API and console all gone: the pages' SDK, the fixture's flushes and reads and the reporter find nothing.
    const url = ingest.url;
    await ingest.close();
    stopped = true;
    const down = await runSuite(example.dir, { SVC_URL: url, SVC_CONTROL_KEY: ingest.controlKey, BASE_URL: app!.origin, ...chromium });
    timings.push({ step: 'suite with svc stopped', ms: down.ms });
    expect(down.outcomes, down.output).toEqual(OUTCOMES);
    expect(down.code).toBe(1);
    expect(down.output.match(/^svc: .*$/gm), down.output).toEqual([expect.stringMatching(/is unreachable .*ECONNREFUSED/)]);
  });
});
