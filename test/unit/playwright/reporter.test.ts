import type { FullConfig, FullResult, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import SvcReporter, { takeBatch } from '../../../playwright/src/reporter/reporter';
import { serveLocally, type LocalServer } from '../../support/local-server';

const ROOT = '/repo';
const config = {
  rootDir: ROOT,
  projects: [{ name: 'chromium', use: {} }],
  shard: { current: 2, total: 3 },
} as unknown as FullConfig;

function testCase(i: number): TestCase {
  return {
    id: `id-${i}`,
    title: `test ${i}`,
    titlePath: () => ['', 'chromium', 'e2e/cart.spec.ts', 'cart', `test ${i}`],
    location: { file: `${ROOT}/e2e/cart.spec.ts`, line: 10 + i, column: 3 },
    parent: { project: () => ({ name: 'chromium' }) },
    expectedStatus: 'passed',
    annotations: [],
    tags: ['@smoke'],
  } as unknown as TestCase;
}

function result(retry: number, status: TestResult['status'] = 'passed'): TestResult {
  return {
    retry,
    status,
    duration: 120,
    startTime: new Date('2026-01-01T00:00:00.000Z'),
    errors: [],
    error:
      status === 'failed'
        ? {
            message: '\u001b[31mexpected 1\u001b[39m',
            stack: 'Error: expected 1\n    at cart.spec.ts:12:3',
            location: { file: `${ROOT}/e2e/cart.spec.ts`, line: 12, column: 3 },
          }
        : undefined,
    attachments: [{ name: 'trace', contentType: 'application/zip' }],
    annotations: status === 'failed' ? [{ type: 'svc', description: 'http://svc/session/s1?t=800' }] : [],
  } as unknown as TestResult;
}

interface Received {
  method: string;
  path: string;
  body: any;
  auth: string | undefined;
}

/**
 * A stand-in for the server's test-run routes: records every request, answers `plan(request)` (200 by default), and
 * stores results once per (test_id, retry) as the real server does, so re-sends can be counted.
 */
async function fakeSvc(plan: (r: Received, n: number) => number = () => 200) {
  const requests: Received[] = [];
  const stored = new Map<string, any>();
  const server = await serveLocally((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        body: JSON.parse(raw || 'null'),
        auth: req.headers.authorization,
      };
      requests.push(r);
      if (r.path.endsWith('/results')) for (const x of r.body.results) stored.set(`${x.test_id}#${x.retry}`, x);
      const status = plan(r, requests.length);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status < 300 ? '{}' : '{"error":{"code":"unavailable","message":"try later"}}');
    });
  });
  return { server, requests, stored };
}

let server: LocalServer | undefined;
beforeEach(() => {
  vi.stubEnv('SVC_RUN_ID', 'run-1');
  vi.stubEnv('SVC_URL', '');
  vi.stubEnv('SVC_CONTROL_KEY', '');
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function run(
  reporter: SvcReporter,
  results: Array<[TestCase, TestResult]>,
  status: FullResult['status'] = 'failed',
) {
  reporter.onBegin(config, {} as Suite);
  for (const [t, r] of results) reporter.onTestEnd(t, r);
  await reporter.onEnd({ status, duration: 1234.4, startTime: new Date() } as FullResult);
}

describe('@svc/playwright reporter', () => {
  it('creates the run, sends results in batches, retries a failing server with backoff and closes the run', async () => {
    // The first two result requests meet a 503: their batch is sent again (and stored once).
    let resultsSeen = 0;
    const fake = await fakeSvc((r) => (r.path.endsWith('/results') && ++resultsSeen <= 2 ? 503 : 200));
    server = fake.server;
    const warn = vi.fn();
    const reporter = new SvcReporter({
      url: `${fake.server.origin}/`,
      apiKey: 'svc_ctl_x',
      batchSize: 2,
      backoffMs: 5,
      warn,
    });
    const tests = [0, 1, 2, 3, 4].map((i) => [testCase(i), result(0)] as [TestCase, TestResult]);
    tests.push([testCase(5), result(0, 'failed')], [testCase(5), result(1)]);
    await run(reporter, tests);

    expect(warn).not.toHaveBeenCalled();
    const { requests, stored } = fake;
    expect(requests[0]).toMatchObject({
      method: 'PUT',
      path: '/control-plane/test-runs/run-1',
      auth: 'Bearer svc_ctl_x',
    });
    expect(requests[0]!.body).toMatchObject({ started_at: expect.any(String), shard: { current: 2, total: 3 } });
    expect(requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/control-plane/test-runs/run-1/finish',
      body: { status: 'failed', duration_ms: 1234, shard: { current: 2, total: 3 } },
    });
    const batches = requests.filter((r) => r.path.endsWith('/results'));
    expect(batches.every((b) => b.body.results.length >= 1 && b.body.results.length <= 2)).toBe(true);
    expect(batches.length).toBeGreaterThanOrEqual(4 + 2);
    expect(stored.size).toBe(7);
    expect(stored.get('id-5#0')).toEqual({
      test_id: 'id-5',
      file: 'e2e/cart.spec.ts',
      line: 15,
      title_path: ['cart', 'test 5'],
      project: 'chromium',
      retry: 0,
      status: 'failed',
      expected_status: 'passed',
      duration_ms: 120,
      started_at: '2026-01-01T00:00:00.000Z',
      error: {
        message: 'expected 1',
        stack: 'Error: expected 1\n    at cart.spec.ts:12:3',
        location: { file: 'e2e/cart.spec.ts', line: 12, column: 3 },
      },
      annotations: [{ type: 'svc', description: 'http://svc/session/s1?t=800' }],
      tags: ['@smoke'],
      attachments: ['trace'],
    });
  });

  it('with svc unreachable: onEnd returns, nothing throws, and exactly one warning is printed', async () => {
    // A port that was just listened on and closed: connections are refused.
    const closed = await serveLocally(() => undefined);
    await closed.close();
    const warn = vi.fn();
    const reporter = new SvcReporter({ url: closed.origin, apiKey: 'k', backoffMs: 5, retries: 2, warn });
    // onEnd returning at all is the check (a reporter that kept retrying would hold the run until the test's timeout).
    await run(
      reporter,
      [0, 1, 2].map((i) => [testCase(i), result(0)]),
    );
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(
      /^svc: http:\/\/127\.0\.0\.1:\d+ is unreachable \(fetch failed: ECONNREFUSED\)/,
    );
  });

  it('a refused batch (4xx) is not retried: one warning, and the other batches still go', async () => {
    const fake = await fakeSvc((r) =>
      r.path.endsWith('/results') && r.body.results[0].test_id === 'id-0' ? 400 : 200,
    );
    server = fake.server;
    const warn = vi.fn();
    const reporter = new SvcReporter({ url: fake.server.origin, apiKey: 'k', batchSize: 1, backoffMs: 5, warn });
    await run(
      reporter,
      [0, 1, 2].map((i) => [testCase(i), result(0)]),
      'passed',
    );
    expect(warn).toHaveBeenCalledTimes(1);
    expect(fake.requests.filter((r) => r.body?.results?.[0]?.test_id === 'id-0')).toHaveLength(1);
    expect(fake.requests.at(-1)?.path).toBe('/control-plane/test-runs/run-1/finish');
  });

  it('gives up after maxWaitMs with one warning when the server does not answer', async () => {
    const hanging = await serveLocally(() => undefined);
    server = hanging;
    const warn = vi.fn();
    const reporter = new SvcReporter({ url: hanging.origin, apiKey: 'k', maxWaitMs: 300, warn });
    await run(reporter, [[testCase(0), result(0)]]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/gave up .* after 300 ms/);
  });

  it('without a URL and key it sends nothing and says so once; SVC_RUN_ID is set for the workers', async () => {
    vi.stubEnv('SVC_RUN_ID', '');
    const warn = vi.fn();
    const reporter = new SvcReporter({ warn });
    expect(process.env.SVC_RUN_ID).toMatch(/^[0-9a-f-]{36}$/);
    await run(reporter, [[testCase(0), result(0)]]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/needs SVC_URL and SVC_CONTROL_KEY/);
  });

  it('cuts a batch by size as well as by count, so results with long stacks stay under the server body limit', () => {
    const stack = 'x'.repeat(16_000);
    const queue = Array.from({ length: 500 }, (_, i) => ({ test_id: `t${i}`, error: { message: 'boom', stack } }));
    const batches: (typeof queue)[] = [];
    while (queue.length > 0) batches.push(takeBatch(queue, 500));
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches)
      expect(Buffer.byteLength(JSON.stringify({ results: batch }))).toBeLessThan(1024 * 1024);
    expect(batches.flat().map((r) => r.test_id)).toEqual(Array.from({ length: 500 }, (_, i) => `t${i}`));
    expect(takeBatch([{ huge: 'y'.repeat(2_000_000) }], 500)).toHaveLength(1);
  });
});
