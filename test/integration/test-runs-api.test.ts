import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { createKey } from '../../server/src/index';
import { testKey } from '../../server/src/test-runs/store';
import { databaseKinds } from '../support/databases';
import { resourceAttrs, str, TRACE_ID } from '../support/otlp';
import { controlCall, startTestServer, type TestServer } from '../support/server';

/**
 * Test runs as @svc/playwright's reporter sends them (docs/api.md, "Test runs"), on the real server over HTTP, on
 * SQLite and PostgreSQL: runs made and merged, results with retries folded into outcomes and counts exactly once under
 * re-sent batches, shards finished, the listing's filters and keyset pages, a run's tests failed first with their
 * attempts and sessions, a test's history, the flaky list, sessions found by run and test, the 400s (nothing stored),
 * and a read key that views but cannot write.
 */
const kinds = await databaseKinds();

const T0 = Date.UTC(2027, 5, 1, 9, 0, 0);
const MIN = 60_000;
const at = (ms: number) => new Date(ms).toISOString();

type Status = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';

interface TestDef {
  file: string;
  title_path: string[];
  project: string;
  test_id: string;
}

const SPEC = 'tests/shop.spec.ts';
const tests = {
  pass: { file: SPEC, title_path: ['shop', 'lists items'], project: 'chromium', test_id: 'id-pass' },
  flaky: { file: SPEC, title_path: ['shop', 'adds to cart'], project: 'chromium', test_id: 'id-flaky' },
  fail: { file: SPEC, title_path: ['shop', 'pays'], project: 'chromium', test_id: 'id-fail' },
  skip: { file: 'tests/admin.spec.ts', title_path: ['admin'], project: 'chromium', test_id: 'id-skip' },
} satisfies Record<string, TestDef>;

const result = (t: TestDef, retry: number, status: Status, startMs: number, extra: Record<string, unknown> = {}) => ({
  ...t,
  line: 10,
  retry,
  status,
  expected_status: 'passed',
  duration_ms: 1000 + retry,
  started_at: at(startMs),
  ...(status === 'failed' && {
    error: {
      message: `failed on try ${retry}`,
      stack: 'Error: boom\n    at tests/shop.spec.ts:12:5',
      location: { file: SPEC, line: 12, column: 5 },
    },
  }),
  ...extra,
});

interface Run {
  run_id: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  commit: string | null;
  branch: string | null;
  ci: Record<string, string | null>;
  shard_total: number | null;
  counts: { passed: number; failed: number; flaky: number; skipped: number; total: number };
}
interface Attempt {
  retry: number;
  status: string;
  error: { message: string } | null;
  annotations: unknown[];
  tags: string[];
  attachments: string[];
  sessions: string[];
}
interface RunDetail extends Run {
  tests: {
    test_key: string;
    title: string;
    outcome: string;
    status: string;
    retries: number;
    duration_ms: number;
    error: { message: string } | null;
    attempts: Attempt[];
  }[];
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; details?: { field?: string } };
}

describe.each(kinds)('test runs API on %s', (kind) => {
  let t: TestServer;
  let readKey: string;

  beforeAll(async () => {
    t = await startTestServer(kind, { detection: false });
    readKey = (
      await createKey(t.server.database.db, systemClock, { projectId: t.projectId, scope: 'read', name: 'viewer' })
    ).key;
  });
  afterAll(() => t?.close());

  const call = <T>(method: string, path: string, body?: unknown, key = t.controlKey) =>
    controlCall<T>(t, method, path, body, key);
  const ok = async <T>(method: string, path: string, body?: unknown, status = 200) => {
    const res = await call<T>(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    return res.body;
  };
  const post = (runId: string, results: unknown[]) =>
    ok<{ stored: number; duplicates: number }>('POST', `/test-runs/${runId}/results`, { results });
  const run = (runId: string) => ok<RunDetail>('GET', `/test-runs/${runId}`);
  const rowCount = async () => {
    const db = t.server.database.db;
    const tables = ['test_runs', 'test_attempts', 'test_results', 'test_cases'] as const;
    const counts = await Promise.all(
      tables.map((table) => db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()),
    );
    return counts.map((c) => Number(c.n));
  };

  it('makes a run, merges a second PUT into it, and folds results with retries into outcomes and counts exactly once', async () => {
    const created = await call<Run>('PUT', '/test-runs/gh-100-1', {
      started_at: at(T0),
      commit: 'c1',
      branch: 'main',
      ci: { provider: 'github', job_url: 'https://github.com/o/r/actions/runs/100' },
      shard: { current: 1, total: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      run_id: 'gh-100-1',
      status: 'running',
      started_at: at(T0),
      commit: 'c1',
      branch: 'main',
      shard_total: 1,
      finished_at: null,
    });
    expect(created.body.ci).toEqual({
      provider: 'github',
      job_url: 'https://github.com/o/r/actions/runs/100',
      build_id: null,
    });
    const again = await call<Run>('PUT', '/test-runs/gh-100-1', { started_at: at(T0 + 5), title: 'nightly' });
    expect([again.status, again.body.started_at, again.body.commit]).toEqual([200, at(T0), 'c1']);

    const first = [
      result(tests.pass, 0, 'passed', T0 + 1000, { tags: ['@smoke'], attachments: ['trace.zip'] }),
      result(tests.flaky, 0, 'failed', T0 + 2000),
      result(tests.fail, 0, 'failed', T0 + 3000, {
        annotations: [{ type: 'svc-issue', description: 'issue-abc' }, { type: 'note' }],
      }),
      result(tests.skip, 0, 'skipped', T0 + 4000),
    ];
    expect(await post('gh-100-1', first)).toEqual({ stored: 4, duplicates: 0 });
    expect((await run('gh-100-1')).counts).toEqual({ passed: 1, failed: 2, flaky: 0, skipped: 1, total: 4 });

    // The retries, with one attempt of the first batch re-sent among them.
    const retries = [result(tests.flaky, 1, 'passed', T0 + 5000), result(tests.fail, 1, 'failed', T0 + 6000), first[0]];
    expect(await post('gh-100-1', retries)).toEqual({ stored: 2, duplicates: 1 });
    const counts = { passed: 1, failed: 1, flaky: 1, skipped: 1, total: 4 };
    expect((await run('gh-100-1')).counts).toEqual(counts);

    // A reporter retrying both batches stores nothing and moves no count.
    const before = await rowCount();
    expect(await post('gh-100-1', first)).toEqual({ stored: 0, duplicates: 4 });
    expect(await post('gh-100-1', retries)).toEqual({ stored: 0, duplicates: 3 });
    expect((await run('gh-100-1')).counts).toEqual(counts);
    expect(await rowCount()).toEqual(before);

    // A reporter's retries racing each other: one of them stores each attempt.
    const raced = [
      result(tests.pass, 0, 'passed', T0 - 30_000),
      result(tests.flaky, 0, 'failed', T0 - 29_000),
      result(tests.flaky, 1, 'passed', T0 - 28_000),
    ];
    const answers = await Promise.all([1, 2, 3].map(() => post('raced', raced)));
    expect(answers.reduce((sum, a) => sum + a.stored, 0)).toBe(3);
    expect((await run('raced')).counts).toEqual({ passed: 1, failed: 0, flaky: 1, skipped: 0, total: 2 });

    const issueAttempts = await t.server.database.db
      .selectFrom('test_attempts')
      .select(['test_key', 'retry'])
      .where('issue_id', '=', 'issue-abc')
      .execute();
    expect(issueAttempts).toEqual([{ test_key: testKey(SPEC, tests.fail.title_path, 'chromium'), retry: 0 }]);
  });

  it('finishes a run; a sharded run once every shard has, with the worst status', async () => {
    const finished = await ok<Run>('POST', '/test-runs/gh-100-1/finish', { status: 'failed', duration_ms: 61_000 });
    expect(finished).toMatchObject({ status: 'failed', duration_ms: 61_000 });
    expect(finished.finished_at).not.toBeNull();

    await ok(
      'PUT',
      '/test-runs/sharded',
      { started_at: at(T0 - MIN), branch: 'feature', commit: 'c0', shard: { current: 1, total: 2 } },
      201,
    );
    await ok('PUT', '/test-runs/sharded', { started_at: at(T0 - MIN + 10), shard: { current: 2, total: 2 } });
    const finish = (status: string, duration: number, current: number) =>
      ok<Run>('POST', '/test-runs/sharded/finish', { status, duration_ms: duration, shard: { current, total: 2 } });
    expect(await finish('passed', 30_000, 2)).toMatchObject({ status: 'running', finished_at: null });
    expect(await finish('timedout', 40_000, 1)).toMatchObject({ status: 'timedout', duration_ms: 40_000 });
    // Re-sent: the same answer.
    expect(await finish('timedout', 40_000, 1)).toMatchObject({ status: 'timedout', duration_ms: 40_000 });

    const unknown = await call<ErrorBody>('POST', '/test-runs/nope/finish', { status: 'passed', duration_ms: 1 });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });

  it("lists a run's tests failed first, each with its attempts, error and the sessions each attempt recorded", async () => {
    // The page of the flaky test's retry, as the SDK sends it with the fixture's test.* resource attributes.
    const sessionId = 'pw-session-flaky-1';
    const resource = {
      attributes: [
        ...resourceAttrs('web-app', sessionId),
        str('deployment.environment.name', 'test'),
        str('test.run.id', 'gh-100-1'),
        str('test.id', tests.flaky.test_id),
        { key: 'test.retry', value: { intValue: '1' } },
        str('test.title', 'shop > adds to cart'),
        str('test.file', SPEC),
      ],
    };
    const span = {
      traceId: TRACE_ID,
      spanId: 'aaaaaaaaaaaaaaa1',
      name: 'documentLoad',
      kind: 1,
      startTimeUnixNano: `${T0 + 5000}000000`,
      endTimeUnixNano: `${T0 + 5100}000000`,
      attributes: [str('session.id', sessionId)],
    };
    const res = await fetch(`${t.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify({
        resourceSpans: [{ resource, scopeSpans: [{ scope: { name: '@svc/browser' }, spans: [span] }] }],
      }),
    });
    expect(res.status).toBe(200);

    const detail = await run('gh-100-1');
    expect(detail.tests.map((x) => [x.title, x.outcome, x.status, x.retries])).toEqual([
      ['shop > pays', 'unexpected', 'failed', 1],
      ['shop > adds to cart', 'flaky', 'passed', 1],
      ['shop > lists items', 'expected', 'passed', 0],
      ['admin', 'skipped', 'skipped', 0],
    ]);
    const [fail, flaky, pass] = detail.tests;
    expect(fail!.error?.message).toBe('failed on try 1');
    // A flaky test keeps the error it recovered from.
    expect(flaky!.error?.message).toBe('failed on try 0');
    expect(flaky!.duration_ms).toBe(1000 + 1001);
    expect(flaky!.test_key).toBe(testKey(SPEC, tests.flaky.title_path, 'chromium'));
    expect(flaky!.attempts.map((a) => [a.retry, a.status, a.sessions])).toEqual([
      [0, 'failed', []],
      [1, 'passed', [sessionId]],
    ]);
    expect(pass!.attempts[0]).toMatchObject({ tags: ['@smoke'], attachments: ['trace.zip'], error: null });
    expect(fail!.attempts[0]!.annotations).toEqual([{ type: 'svc-issue', description: 'issue-abc' }, { type: 'note' }]);

    const sessions = async (query: string) =>
      (await ok<{ data: { session_id: string; test: unknown }[] }>('GET', `/sessions?${query}`)).data;
    const found = await sessions('test_run=gh-100-1');
    expect(found.map((s) => [s.session_id, s.test])).toEqual([
      [
        sessionId,
        { run_id: 'gh-100-1', test_id: tests.flaky.test_id, retry: 1, title: 'shop > adds to cart', file: SPEC },
      ],
    ]);
    expect((await sessions(`test_run=gh-100-1&test_id=${tests.flaky.test_id}`)).map((s) => s.session_id)).toEqual([
      sessionId,
    ]);
    expect(await sessions('test_run=gh-100-1&test_id=id-pass')).toEqual([]);
    expect(await sessions('test_run=other')).toEqual([]);
  });

  it("pages runs newest first under every filter, and a test's history newest first", async () => {
    // Two more runs on main: the failing test passes at the same commit c1 in one, fails again at c2 in the other.
    for (const [id, startMs, commit, status] of [
      ['gh-101-1', T0 + 10 * MIN, 'c1', 'passed'],
      ['gh-102-1', T0 + 20 * MIN, 'c2', 'failed'],
    ] as const) {
      await ok('PUT', `/test-runs/${id}`, { started_at: at(startMs), commit, branch: 'main' }, 201);
      await post(id, [result(tests.pass, 0, 'passed', startMs + 1), result(tests.fail, 0, status, startMs + 2)]);
      await ok('POST', `/test-runs/${id}/finish`, { status, duration_ms: 1000 });
    }
    const ids = async (query: string) => (await ok<Page<Run>>('GET', `/test-runs?${query}`)).data.map((r) => r.run_id);
    expect(await ids('')).toEqual(['gh-102-1', 'gh-101-1', 'gh-100-1', 'raced', 'sharded']);
    expect(await ids('branch=main')).toEqual(['gh-102-1', 'gh-101-1', 'gh-100-1']);
    expect(await ids('commit=c1')).toEqual(['gh-101-1', 'gh-100-1']);
    expect(await ids('status=failed')).toEqual(['gh-102-1', 'gh-100-1']);
    expect(await ids(`from=${at(T0)}&to=${at(T0 + 20 * MIN)}`)).toEqual(['gh-101-1', 'gh-100-1']);

    const pages: string[][] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: Page<Run> = await ok('GET', `/test-runs?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(page.data.map((r) => r.run_id));
      cursor = page.next_cursor;
    }
    expect(pages).toEqual([['gh-102-1'], ['gh-101-1'], ['gh-100-1'], ['raced'], ['sharded']]);

    const key = testKey(SPEC, tests.fail.title_path, 'chromium');
    type Item = { run_id: string; outcome: string; commit: string; retries: number; error: unknown };
    type History = Page<Item> & { test: { title: string; title_path: string[]; file: string } };
    const first: History = await ok('GET', `/tests/${key}?limit=2`);
    expect(first.test).toMatchObject({
      title: 'shop > pays',
      title_path: ['shop', 'pays'],
      file: SPEC,
      project: 'chromium',
      test_id: 'id-fail',
    });
    expect(first.data.map((i) => [i.run_id, i.outcome, i.commit])).toEqual([
      ['gh-102-1', 'unexpected', 'c2'],
      ['gh-101-1', 'expected', 'c1'],
    ]);
    const second: History = await ok('GET', `/tests/${key}?limit=2&cursor=${first.next_cursor}`);
    expect([second.data.map((i) => [i.run_id, i.outcome, i.retries]), second.next_cursor]).toEqual([
      [['gh-100-1', 'unexpected', 1]],
      null,
    ]);
  });

  it('lists flaky tests: passed on retry, or passed and failed at the same commit, over the newest N runs', async () => {
    type Flip = { run_id: string; commit: string; outcome: string };
    type Flaky = {
      data: { title: string; runs: number; flaky_runs: number; flips: number; flip_rate: number; last_flips: Flip[] }[];
    };
    const { data: items } = await ok<Flaky>('GET', '/tests/flaky');
    expect(items.map((i) => [i.title, i.runs, i.flaky_runs, i.flips, i.flip_rate])).toEqual([
      ['shop > adds to cart', 2, 2, 2, 1],
      // Failed at c1, passed at c1, failed at c2: two flips in three runs.
      ['shop > pays', 3, 0, 2, 0.6667],
    ]);
    expect(items[1]!.last_flips.map((f) => [f.run_id, f.commit, f.outcome])).toEqual([
      ['gh-102-1', 'c2', 'unexpected'],
      ['gh-101-1', 'c1', 'expected'],
    ]);
    // The newest two runs only: c1 failed nowhere in them, and the flaky run is older.
    expect((await ok<Flaky>('GET', '/tests/flaky?runs=2')).data).toEqual([]);
    expect((await ok<Flaky>('GET', '/tests/flaky?branch=feature')).data).toEqual([]);
  });

  it('refuses a request over a limit with a 400 naming the field, and stores nothing of it', async () => {
    const good = result(tests.pass, 3, 'passed', T0);
    const bad = (extra: Record<string, unknown>) => ({
      results: [good, { ...result(tests.pass, 4, 'failed', T0), ...extra }],
    });
    const failed = result(tests.fail, 5, 'failed', T0);
    const cases: [method: string, path: string, body: unknown, field: string][] = [
      [
        'POST',
        '/test-runs/gh-100-1/results',
        { results: Array.from({ length: 501 }, (_, i) => result(tests.pass, i % 100, 'passed', T0)) },
        'results',
      ],
      ['POST', '/test-runs/gh-100-1/results', { results: [] }, 'results'],
      ['POST', '/test-runs/gh-100-1/results', bad({ title_path: ['x'.repeat(1025)] }), 'results[1].title_path[0]'],
      [
        'POST',
        '/test-runs/gh-100-1/results',
        bad({ title_path: Array.from({ length: 33 }, () => 'describe') }),
        'results[1].title_path',
      ],
      [
        'POST',
        '/test-runs/gh-100-1/results',
        bad({ error: { ...failed.error, stack: 's'.repeat(16 * 1024 + 1) } }),
        'results[1].error.stack',
      ],
      [
        'POST',
        '/test-runs/gh-100-1/results',
        bad({ error: { message: 'm'.repeat(4 * 1024 + 1) } }),
        'results[1].error.message',
      ],
      [
        'POST',
        '/test-runs/gh-100-1/results',
        bad({ annotations: Array.from({ length: 51 }, () => ({ type: 'a' })) }),
        'results[1].annotations',
      ],
      [
        'POST',
        '/test-runs/gh-100-1/results',
        bad({ tags: Array.from({ length: 51 }, (_, i) => `@t${i}`) }),
        'results[1].tags',
      ],
      [
        'POST',
        '/test-runs/gh-100-1/results',
        bad({ attachments: Array.from({ length: 101 }, (_, i) => `a${i}`) }),
        'results[1].attachments',
      ],
      ['POST', '/test-runs/gh-100-1/results', bad({ status: 'crashed' }), 'results[1].status'],
      ['POST', '/test-runs/gh-100-1/results', bad({ retry: -1 }), 'results[1].retry'],
      ['POST', '/test-runs/gh-100-1/results', bad({ started_at: 'yesterday' }), 'results[1].started_at'],
      ['POST', '/test-runs/gh-100-1/results', bad({ extra: 1 }), 'results[1].extra'],
      ['POST', '/test-runs/bad%20id/results', { results: [good] }, 'run_id'],
      ['PUT', `/test-runs/${'r'.repeat(129)}`, { started_at: at(T0) }, 'run_id'],
      ['PUT', '/test-runs/new-run', { started_at: 'soon' }, 'started_at'],
      ['PUT', '/test-runs/new-run', { started_at: at(T0), shard: { current: 3, total: 2 } }, 'shard.current'],
      ['POST', '/test-runs/gh-100-1/finish', { status: 'ok', duration_ms: 1 }, 'status'],
      ['GET', '/test-runs?limit=0', undefined, 'limit'],
      ['GET', '/test-runs?cursor=bogus', undefined, 'cursor'],
      ['GET', '/test-runs?status=green', undefined, 'status'],
      ['GET', '/tests/XYZ', undefined, 'test_key'],
      ['GET', '/tests/flaky?runs=501', undefined, 'runs'],
      ['GET', '/sessions?test_run=', undefined, 'test_run'],
    ];
    const before = await rowCount();
    const counts = (await run('gh-100-1')).counts;
    for (const [method, path, body, field] of cases) {
      const res = await call<ErrorBody>(method, path, body);
      expect([path, field, res.status, res.body.error.code, res.body.error.details?.field]).toEqual([
        path,
        field,
        400,
        'invalid_request',
        field,
      ]);
      expect(res.body.error.message).toContain(field.split(/[.[]/)[0]);
    }
    expect(await rowCount()).toEqual(before);
    expect((await run('gh-100-1')).counts).toEqual(counts);
    expect((await call('GET', '/test-runs/new-run')).status).toBe(404);
  });

  it('lets a read key view runs and tests but not write them', async () => {
    for (const path of [
      '/test-runs',
      '/test-runs/gh-100-1',
      `/tests/${testKey(SPEC, tests.fail.title_path, 'chromium')}`,
      '/tests/flaky',
    ]) {
      expect((await call('GET', path, undefined, readKey)).status, path).toBe(200);
    }
    const writes: [string, string, unknown][] = [
      ['PUT', '/test-runs/by-reader', { started_at: at(T0) }],
      ['POST', '/test-runs/gh-100-1/results', { results: [result(tests.pass, 9, 'passed', T0)] }],
      ['POST', '/test-runs/gh-100-1/finish', { status: 'passed', duration_ms: 1 }],
    ];
    const before = await rowCount();
    for (const [method, path, body] of writes)
      expect((await call<ErrorBody>(method, path, body, readKey)).status, path).toBe(403);
    expect(await rowCount()).toEqual(before);
  });
});
