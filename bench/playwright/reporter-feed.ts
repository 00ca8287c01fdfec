import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { FullConfig, FullResult, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import SvcReporter from '../../playwright/src/reporter/reporter';
import type { TestServer } from '../../test/support/svc-server';
import { prng } from '../harness';

const ROOT_DIR = '/ci/app';
const FILES = Array.from({ length: 60 }, (_, i) => join(ROOT_DIR, 'e2e', `area-${i % 12}`, `feature-${i}.spec.ts`));

/** A stack as Playwright prints a failed expect: the assertion's message, then frames in the spec and Playwright. */
function stackOf(file: string, line: number, message: string): string {
  const frames = [`    at ${file}:${line}:21`, `    at ${file}:${line - 6}:5`];
  for (let i = 0; i < 8; i++)
    frames.push(`    at /ci/app/node_modules/playwright/lib/worker/workerMain.js:${300 + i * 17}:${7 + i}`);
  return `Error: ${message}\n${frames.join('\n')}`;
}

interface Planned {
  test: TestCase;
  results: TestResult[];
}

const expected = { passed: 0, failed: 0, flaky: 0, skipped: 0, total: 0 };

/**
 * `count` results of about count / 1.03 tests: most pass on their first try, 2 % fail then pass on retry (flaky),
 * 0.5 % fail both tries, 2 % are skipped; failures carry Playwright's error (message, stack, location, ANSI colours).
 */
function plan(count: number): { planned: Planned[]; expected: typeof expected } {
  const random = prng(28);
  const planned: Planned[] = [];
  const counts = { ...expected };
  const started = Date.now();
  let results = 0;
  for (let i = 0; results < count; i++) {
    const file = FILES[i % FILES.length]!;
    const line = 10 + ((Math.floor(i / FILES.length) * 9) % 900);
    const describe = `area ${i % 12} › feature ${i % FILES.length}`;
    const title = `does thing ${i} with a realistic, moderately long title`;
    const roll = random();
    const kind = roll < 0.02 ? 'flaky' : roll < 0.025 ? 'failed' : roll < 0.045 ? 'skipped' : 'passed';
    const tries = kind === 'flaky' || kind === 'failed' ? Math.min(2, count - results) : 1;
    const test = {
      id: `${i.toString(16).padStart(8, '0')}-${'a'.repeat(12)}`,
      title,
      location: { file, line, column: 5 },
      titlePath: () => ['', 'chromium', file.slice(ROOT_DIR.length + 1), describe, title],
      parent: { project: () => ({ name: 'chromium' }) },
      expectedStatus: kind === 'skipped' ? 'skipped' : 'passed',
      annotations: kind === 'skipped' ? [{ type: 'skip', description: 'not on this platform' }] : [],
      tags: i % 7 === 0 ? ['@smoke'] : [],
      retries: 1,
    } as unknown as TestCase;
    const attempts: TestResult[] = [];
    for (let retry = 0; retry < tries; retry++) {
      const fails = kind === 'failed' || (kind === 'flaky' && retry === 0);
      const message = `\u001b[31mexpect(locator).toHaveText(expected)\u001b[39m\n\nLocator: locator('#total')\nExpected string: "42.00"\nReceived string: "41.99"\nTimeout: 5000ms`;
      const error = fails
        ? { message, stack: stackOf(file, line + 4, message), location: { file, line: line + 4, column: 21 } }
        : undefined;
      attempts.push({
        retry,
        status: kind === 'skipped' ? 'skipped' : fails ? (random() < 0.2 ? 'timedOut' : 'failed') : 'passed',
        duration: kind === 'skipped' ? 0 : 200 + Math.floor(random() * 3000),
        startTime: new Date(started + results * 1000),
        error,
        errors: error ? [error] : [],
        attachments: fails
          ? [
              { name: 'screenshot', contentType: 'image/png', path: '/ci/app/test-results/x.png' },
              { name: 'trace', contentType: 'application/zip' },
            ]
          : [],
        annotations: [],
        steps: [],
        stdout: [],
        stderr: [],
        parallelIndex: 0,
        workerIndex: 0,
      } as unknown as TestResult);
      results++;
    }
    planned.push({ test, results: attempts });
    counts.total++;
    counts[kind === 'failed' ? 'failed' : kind]++;
  }
  return { planned, expected: counts };
}

export interface ReporterFigures {
  results: number;
  tests: number;
  seconds: number;
  expected: typeof expected;
  counts: typeof expected;
  status: string;
  countsMatch: boolean;
}

/** The reporter class fed `count` results, all ended as fast as the loop can; the run's counts read back over the API. */
export async function measureReporter(
  svc: Pick<TestServer, 'url' | 'controlKey'>,
  count: number,
): Promise<ReporterFigures> {
  const { planned, expected: want } = plan(count);
  const runId = `bench-reporter-${randomUUID()}`;
  const previous = process.env.SVC_RUN_ID;
  process.env.SVC_RUN_ID = runId;
  const warnings: string[] = [];
  const reporter = new SvcReporter({
    url: svc.url,
    apiKey: svc.controlKey,
    maxWaitMs: 120_000,
    warn: (m) => warnings.push(m),
  });
  if (previous === undefined) delete process.env.SVC_RUN_ID;
  else process.env.SVC_RUN_ID = previous;
  const config = {
    rootDir: ROOT_DIR,
    projects: [{ name: 'chromium', use: {} }],
    shard: null,
    workers: 2,
  } as unknown as FullConfig;
  reporter.onBegin(config, {} as Suite);
  // The reporter prints its run's link to stdout at the end: keep stdout for the Markdown.
  const log = console.log;
  console.log = (...a: unknown[]) => console.error(...a);
  let started = 0;
  try {
    started = performance.now();
    let n = 0;
    for (const { test, results } of planned) {
      for (const result of results) {
        reporter.onTestEnd(test, result);
        // Let the event loop run now and then, as it does between tests of a real run.
        if (++n % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await reporter.onEnd({
      status: want.failed > 0 ? 'failed' : 'passed',
      duration: 600_000,
      startTime: new Date(),
    } as FullResult);
  } finally {
    console.log = log;
  }
  const seconds = (performance.now() - started) / 1000;
  if (warnings.length > 0) throw new Error(`the reporter warned: ${warnings.join('; ')}`);
  const res = await fetch(`${svc.url}/control-plane/test-runs/${encodeURIComponent(runId)}`, {
    headers: { authorization: `Bearer ${svc.controlKey}` },
  });
  const run = (await res.json()) as { status: string; counts: typeof expected };
  if (res.status !== 200) throw new Error(`GET the run: ${res.status} ${JSON.stringify(run)}`);
  const countsMatch = (Object.keys(want) as Array<keyof typeof want>).every((k) => run.counts[k] === want[k]);
  return {
    results: count,
    tests: planned.length,
    seconds,
    expected: want,
    counts: run.counts,
    status: run.status,
    countsMatch,
  };
}
