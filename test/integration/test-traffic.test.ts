import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDetector, type Detector } from '../../server/src/incidents/detect/detector';
import { issuePageUrl } from '../../server/src/incidents/links';
import { createSymbolicator } from '../../server/src/sourcemaps/symbolicate';
import { databaseKinds } from '../support/databases';
import { CART_ERROR, errorLog } from '../support/error-logs';
import type { IssueDetail, IssuePage } from '../support/issues';
import { str } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';
import { controlCall, expectBadRequests, startTestServer, type TestServer } from '../support/server';

/**
 * Test traffic (env `test`, what `@svc/playwright` runs send) kept out of production, on the real server over HTTP, on
 * SQLite and PostgreSQL: the errors of test runs open no incident and notify nobody (neither `incident.created` nor
 * `issue.regressed`) while the same errors in production do; issues count them apart and say where they were seen;
 * Web Vitals leave them out; and the runs of an issue's reproduction test (results annotated `svc-issue`) are listed
 * on the issue and its signed page.
 */
const kinds = await databaseKinds();

const MINUTE = 60_000;
const T0 = Date.UTC(2027, 2, 1, 9, 0, 0);
const ONLY_IN_TESTS = 'checkout button is not a function';
const ONLY_IN_PRODUCTION = 'points is not iterable';

interface Sighting {
  message?: string;
  sessionId: string;
  /** Test run and test of a test-traffic error; production without. */
  run?: string;
  test?: { id: string; title: string };
  /** The env the app named; a test's records are test traffic whatever it is. Default `test` with a run, else `production`. */
  env?: string;
}

describe.each(kinds)('test traffic on %s', (kind) => {
  let t: TestServer;
  let receiver: Receiver;
  let detector: Detector;
  let now = T0;
  const clock = { now: () => now };

  const call = async <T>(method: string, path: string, body?: unknown) => {
    const answer = await controlCall<T>(t, method, path, body);
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body;
  };
  const ingest = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  /** One error log per sighting, at the clock's time: in env `test` with the fixture's `test.*` attributes when it names a run. */
  const sendErrors = async (sightings: Sighting[]) => {
    for (const s of sightings) {
      const body = errorLog({
        message: s.message,
        sessionId: s.sessionId,
        env: s.env ?? (s.run ? 'test' : 'production'),
        atMs: now,
      });
      if (s.run)
        body.resourceLogs[0]!.resource.attributes.push(
          str('test.run.id', s.run),
          str('test.id', s.test!.id),
          str('test.title', s.test!.title),
        );
      await ingest('/otlp/v1/logs', body);
    }
  };
  /** Webhook notices delivered since the last call, by event. */
  const notices = async () => {
    await t.server.notify.outbox.drain();
    const events = receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event);
    receiver.received.length = 0;
    return events;
  };
  const issues = async (query = '') => (await call<IssuePage>('GET', `/issues?${query}`)).data;
  const issueOf = async (message: string, query = 'seen_in=any') =>
    (await issues(query)).find((i) => i.message === message)!;
  const detail = (id: string) => call<IssueDetail>('GET', `/issues/${id}`);

  const CART = { id: 'cart-1', title: 'cart > shows the total' };

  beforeAll(async () => {
    t = await startTestServer(kind, {
      clock,
      detection: false,
      allowPrivateTargets: true,
      secretKey: 'k'.repeat(40),
      outbox: { pollMs: 60_000 },
    });
    receiver = await startReceiver();
    const db = t.server.database.db;
    // The server's own incident store: incidents it opens notify through the project's rules.
    detector = createDetector({
      db,
      clock,
      commands: t.server.notify.incidents,
      publicUrl: t.server.publicUrl,
      box: t.server.notify.box,
      symbolicator: createSymbolicator({ db }),
      options: { threshold: 3 },
    });
    const channel = await call<{ id: string }>('POST', '/notifications/channels', {
      type: 'webhook',
      name: 'all',
      config: { url: `${receiver.url}/hook`, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    });
    await call('POST', '/notifications/rules', {
      name: 'everything',
      conditions: {},
      channels: [channel.id],
      delay_seconds: 0,
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('errors of test runs open no incident and notify nobody, however many; the same errors in production do', async () => {
    await sendErrors([
      { sessionId: 's-t1', run: 'run-1', test: CART },
      { sessionId: 's-t1', run: 'run-1', test: CART },
      { sessionId: 's-t2', run: 'run-1', test: CART },
      { sessionId: 's-t2', run: 'run-1', test: CART },
      { message: ONLY_IN_TESTS, sessionId: 's-t2', run: 'run-1', test: { id: 'pay-1', title: 'checkout > pays' } },
      // An app that names its env keeps it under the fixture: its test's records are test traffic all the same.
      {
        message: ONLY_IN_TESTS,
        sessionId: 's-t2',
        run: 'run-1',
        test: { id: 'pay-1', title: 'checkout > pays' },
        env: 'production',
      },
      // A run id no reporter sends, as big as ingest takes: counted, without its run (an index key cannot hold it).
      {
        message: ONLY_IN_TESTS,
        sessionId: 's-t2',
        run: randomBytes(30_000).toString('hex'),
        test: { id: 'pay-1', title: 'checkout > pays' },
      },
    ]);
    const tests = await detector.runOnce();
    expect(tests).toMatchObject({ errors: 7, opened: [] });
    expect(await notices()).toEqual([]);
    expect((await call<{ data: unknown[] }>('GET', '/incidents')).data).toEqual([]);

    now += MINUTE;
    await sendErrors([
      { sessionId: 's-p1' },
      { sessionId: 's-p2' },
      { sessionId: 's-p1' },
      { message: ONLY_IN_PRODUCTION, sessionId: 's-p2' },
    ]);
    const production = await detector.runOnce();
    expect(production.opened).toHaveLength(1);
    expect(await notices()).toEqual(['incident.created']);
  });

  it('a resolved issue stays resolved when a test run hits it again, and regresses (notifying) on a production error', async () => {
    const cart = await issueOf(CART_ERROR);
    await call('PATCH', `/issues/${cart.id}`, { status: 'resolved' });
    now += MINUTE;
    // A session and a run already counted, then a new one of each.
    await sendErrors([{ sessionId: 's-t1', run: 'run-1', test: CART }]);
    now += 1000;
    await sendErrors([{ sessionId: 's-t3', run: 'run-2', test: CART }]);
    await detector.runOnce();
    expect((await detail(cart.id)).status).toBe('resolved');
    expect(await notices()).toEqual([]);

    now += MINUTE;
    await sendErrors([{ sessionId: 's-p3' }]);
    await detector.runOnce();
    expect((await detail(cart.id)).status).toBe('regressed');
    expect(await notices()).toContain('issue.regressed');
  });

  it('counts production and tests apart: production figures by default, seen_in and caught_in_tests say where it was seen', async () => {
    const listed = await issues();
    expect(listed.map((i) => i.message).sort()).toEqual([ONLY_IN_PRODUCTION, CART_ERROR].sort());
    const cart = listed.find((i) => i.message === CART_ERROR)!;
    expect(cart).toMatchObject({
      env: 'production',
      events: 4,
      sessions: 3,
      seen_in: { production: { events: 4, sessions: 3 }, tests: { events: 6, sessions: 3, run_count: 2 } },
      caught_in_tests: true,
    });
    expect(listed.find((i) => i.message === ONLY_IN_PRODUCTION)).toMatchObject({
      caught_in_tests: false,
      seen_in: { tests: { events: 0, sessions: 0, run_count: 0 } },
    });

    const full = await detail(cart.id);
    expect(full.seen_in.tests).toEqual({
      events: 6,
      sessions: 3,
      run_count: 2,
      runs: ['run-2', 'run-1'],
      tests: [CART].map((c) => ({ test_id: c.id, title: c.title })),
    });
    expect(full.sessions_sample.map((s) => s.session_id).sort()).toEqual(['s-p1', 's-p2', 's-p3']);
    expect(full.counts.reduce((n, c) => n + c.count, 0)).toBe(4);

    // Seen only in tests: listed on request, never in production figures.
    const inTests = await issues('seen_in=tests');
    expect(inTests.map((i) => i.message).sort()).toEqual([ONLY_IN_TESTS, CART_ERROR].sort());
    expect((await issues('env=test')).map((i) => i.id).sort()).toEqual(inTests.map((i) => i.id).sort());
    expect(await issueOf(ONLY_IN_TESTS, 'seen_in=tests')).toMatchObject({
      events: 0,
      sessions: 0,
      caught_in_tests: true,
      seen_in: { production: { events: 0, sessions: 0 }, tests: { events: 3, sessions: 1, run_count: 1 } },
    });
    expect(await issues('seen_in=any')).toHaveLength(3);
    await expectBadRequests(t, [['/issues?seen_in=ci', 'seen_in']]);
  });

  it('Web Vitals leave test runs out unless env asks for them', async () => {
    const point = (value: number, env: string) => ({
      resource: { attributes: [str('service.name', 'web-app'), str('deployment.environment.name', env)] },
      scopeMetrics: [
        {
          scope: { name: '@svc/browser' },
          metrics: [
            {
              name: 'web_vital_lcp_ms',
              unit: 'ms',
              gauge: {
                dataPoints: [{ timeUnixNano: `${now}000000`, asDouble: value, attributes: [str('url.path', '/cart')] }],
              },
            },
          ],
        },
      ],
    });
    const underTest = point(9100, 'production');
    underTest.resource.attributes.push(str('test.run.id', 'run-1'));
    await ingest('/otlp/v1/metrics', { resourceMetrics: [point(1200, 'production'), point(9000, 'test'), underTest] });
    type Vitals = { overall: { samples: number; p75: { LCP: number | null } } };
    const window = `from=${now - MINUTE}&to=${now + MINUTE}`;
    expect((await call<Vitals>('GET', `/vitals?${window}`)).overall).toMatchObject({ samples: 1, p75: { LCP: 1200 } });
    expect((await call<Vitals>('GET', `/vitals?${window}&env=test`)).overall).toMatchObject({
      samples: 2,
      p75: { LCP: 9100 },
    });
  });

  it("lists the runs of the issue's reproduction test (results annotated svc-issue), newest first, on the issue and its page", async () => {
    const cart = await issueOf(CART_ERROR);
    const report = async (runId: string, branch: string, commit: string, status: 'failed' | 'passed', atMs: number) => {
      await call('PUT', `/test-runs/${runId}`, { started_at: new Date(atMs).toISOString(), branch, commit });
      const result = {
        test_id: 'repro-1',
        file: `tests/svc/repro-${cart.id}.spec.ts`,
        line: 40,
        title_path: [`issue ${cart.id}`],
        project: 'chromium',
        retry: 0,
        status,
        expected_status: 'passed',
        duration_ms: 900,
      };
      await call('POST', `/test-runs/${runId}/results`, {
        results: [
          {
            ...result,
            started_at: new Date(atMs).toISOString(),
            annotations: [{ type: 'svc-issue', description: cart.id }],
          },
        ],
      });
    };
    await report('repro-before', 'main', 'a'.repeat(40), 'failed', now);
    await report('repro-after', `svc/fix-${cart.id}`, 'b'.repeat(40), 'passed', now + MINUTE);
    expect((await detail(cart.id)).reproductions).toEqual([
      {
        run_id: 'repro-after',
        branch: `svc/fix-${cart.id}`,
        commit: 'b'.repeat(40),
        status: 'passed',
        at: new Date(now + MINUTE).toISOString(),
      },
      {
        run_id: 'repro-before',
        branch: 'main',
        commit: 'a'.repeat(40),
        status: 'failed',
        at: new Date(now).toISOString(),
      },
    ]);
    expect((await detail((await issueOf(ONLY_IN_PRODUCTION)).id)).reproductions).toEqual([]);

    const page = await (
      await fetch(issuePageUrl(t.server.notify.box, t.server.publicUrl, now, t.projectId, cart.id))
    ).text();
    expect(page).toContain('<dt>Seen in</dt><dd>production / tests (2 runs) — caught in tests</dd>');
    expect(page).toContain(
      `<a href="/test-run/repro-after" rel="noopener">reproduction test passed on branch svc/fix-${cart.id} at bbbbbbb</a>`,
    );
    expect(page).toContain('<a href="/test-run/repro-before" rel="noopener">reproduction test failed on aaaaaaa</a>');
  });
});
