import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineValue, evaluateRule } from '../../server/src/alerts/query/index';
import type { AlertCondition, AlertQuery, RuleQuery, Signal } from '../../server/src/alerts/rule';
import { claimRule, dueRules, saveRuleState } from '../../server/src/alerts/store';
import { runAlertsCommand } from '../../server/src/cli/alerts';
import { registerApp } from '../../server/src/index';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { str } from '../support/otlp';
import {
  controlCall,
  controlGet,
  postIngest,
  recordsStored,
  startTestServer,
  type TestServer,
} from '../support/server';

/**
 * Alert rules (docs/alerts.md) on the real server over SQLite and PostgreSQL: every signal's aggregates over a window
 * against hand-computed values (percentiles by nearest rank), from OTLP/JSON sent to ingest as the SDK sends it; no
 * data against zero; the baselines of change conditions; the preview over HTTP; the API's CRUD, audit and 400s.
 */
const kinds = await databaseKinds();

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The window every aggregate is checked over: [T0, T0 + 5 min). */
const T0 = Date.UTC(2027, 5, 7, 8, 0, 0);
const W = { fromMs: T0, toMs: T0 + 5 * MINUTE };
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

interface Source {
  app: string;
  session: string;
  release: string;
  env?: string;
  test?: boolean;
}
const S1: Source = { app: 'web-app', session: 's1', release: '2.0' };
const S2: Source = { app: 'web-app', session: 's2', release: '2.0' };
/** The previous release: its one session ended a minute before T0. */
const S3: Source = { app: 'web-app', session: 's3', release: '1.0' };
const S4: Source = { app: 'web-app', session: 's4', release: '2.0', env: 'staging' };
/** An older release, a day before. */
const S0: Source = { app: 'web-app', session: 's0', release: '0.9' };
const A1: Source = { app: 'api', session: 'a1', release: '7' };
const T1: Source = { app: 'web-app', session: 't1', release: '2.0', test: true };

const resource = (s: Source) => ({
  attributes: [
    str('service.name', s.app),
    str('session.id', s.session),
    str('service.version', s.release),
    ...(s.env ? [str('deployment.environment.name', s.env)] : []),
    ...(s.test ? [str('test.run.id', 'run-1'), str('test.id', 'checkout.spec.ts:3')] : []),
  ],
});

type Log = [source: Source, atMs: number, severity: number, body: string];
const LOGS: Log[] = [
  [S1, T0, 9, 'page view'],
  [S1, T0 + MINUTE, 17, 'payment failed: card declined'],
  [S1, T0 + MINUTE + 1000, 17, 'payment failed: card declined'],
  [S2, T0 + 2000, 9, 'page view'],
  [S2, T0 + 3000, 9, 'page view'],
  [S2, T0 + 4000, 13, 'slow'],
  [S3, T0 - MINUTE, 9, 'page view'],
  [T1, T0 + 5000, 17, 'test boom'],
];

type Span = [source: Source, name: string, url: string, durationMs: number, status: 0 | 1 | 2];
const cart = (d: number, status: 0 | 2 = 0): Span => [
  S1,
  'GET /api/cart',
  'https://shop.example/api/cart?x=1',
  d,
  status,
];
const SPANS: Span[] = [
  ...[10, 20, 30, 40, 50, 60, 70, 80].map((d) => cart(d)),
  cart(90, 2),
  cart(100, 2),
  [S2, 'GET /api/pay', 'https://shop.example/api/pay', 200, 2],
  [S2, 'GET /api/pay', 'https://shop.example/api/pay', 400, 0],
  [A1, 'GET /internal', 'http://api.local/internal', 5, 0],
  [T1, 'GET /api/cart', 'https://shop.example/api/cart', 999, 2],
];

type Point = [source: Source, name: string, atMs: number, value: number, attributes: Array<ReturnType<typeof str>>];
const lcp = (s: Source, value: number, path: string): Point => [
  s,
  'web_vital_lcp_ms',
  T0 + 10_000,
  value,
  [str('url.path', path)],
];
const amount = (value: number, plan: string, atMs = T0 + 20_000, s = S1): Point => [
  s,
  'checkout.amount',
  atMs,
  value,
  [str('plan', plan)],
];
const POINTS: Point[] = [
  ...[1000, 2000, 3000, 4000].map((v) => lcp(S1, v, '/checkout')),
  lcp(S2, 5000, '/home'),
  lcp(S4, 7000, '/checkout/pay'),
  lcp(T1, 9000, '/checkout'),
  amount(10, 'pro'),
  amount(20, 'pro'),
  amount(30, 'free'),
  amount(40, 'free'),
  // A day earlier: what a `day` change compares with.
  amount(50, 'pro', T0 - DAY + 1000, S0),
];

const bySource = <T extends [Source, ...unknown[]]>(items: T[]) => {
  const groups = new Map<Source, T[]>();
  for (const item of items) groups.set(item[0], [...(groups.get(item[0]) ?? []), item]);
  return [...groups.entries()];
};

const logsBody = () => ({
  resourceLogs: bySource(LOGS).map(([s, logs]) => ({
    resource: resource(s),
    scopeLogs: [
      {
        logRecords: logs.map(([, at, severityNumber, body]) => ({
          timeUnixNano: nanos(at),
          severityNumber,
          body: { stringValue: body },
          attributes: severityNumber >= 17 ? [str('exception.type', 'PaymentError')] : [],
        })),
      },
    ],
  })),
});

const spansBody = () => ({
  resourceSpans: bySource(SPANS).map(([s, spans], i) => ({
    resource: resource(s),
    scopeSpans: [
      {
        spans: spans.map(([, name, url, d, code], j) => ({
          traceId: `${(i + 1).toString(16).padStart(4, '0')}${'ab'.repeat(14)}`,
          spanId: `${(i + 1).toString(16).padStart(4, '0')}${j.toString(16).padStart(12, '0')}`,
          name,
          kind: 3,
          startTimeUnixNano: nanos(T0 + 30_000 + j),
          endTimeUnixNano: nanos(T0 + 30_000 + j + d),
          attributes: [str('http.url', url)],
          status: { code },
        })),
      },
    ],
  })),
});

const metricsBody = () => ({
  resourceMetrics: bySource(POINTS).map(([s, points]) => ({
    resource: resource(s),
    scopeMetrics: [
      {
        metrics: points.map(([, name, at, value, attributes]) => ({
          name,
          gauge: { dataPoints: [{ timeUnixNano: nanos(at), asDouble: value, attributes }] },
        })),
      },
    ],
  })),
});

const THRESHOLD: AlertCondition = { type: 'threshold', op: 'above', value: 0 };

describe.each(kinds)('alert rules on %s', (kind) => {
  let t: TestServer;
  const clock = { now: () => T0 + 10 * MINUTE };

  const rule = (signal: Signal, query: AlertQuery, condition: AlertCondition = THRESHOLD): RuleQuery => ({
    projectId: t.projectId,
    signal,
    query,
    windowSeconds: 300,
    condition,
    recovery: null,
    forSeconds: 0,
  });
  const value = (signal: Signal, query: AlertQuery, w = W) =>
    evaluateRule(t.server.database.db, rule(signal, query), w, clock.now());

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    await registerApp(t.server.database.db, clock, t.projectId, 'api');
    await postIngest(t, '/otlp/v1/logs', JSON.stringify(logsBody()));
    await postIngest(t, '/otlp/v1/traces', JSON.stringify(spansBody()));
    await postIngest(t, '/otlp/v1/metrics', JSON.stringify(metricsBody()));
  });
  afterAll(() => t?.close());

  it('stores what was sent (ingest writes in the background)', async () => {
    await recordsStored(t, { logs: LOGS.length, spans: SPANS.length, metrics: POINTS.length });
    await issueDetector(t, clock).runOnce();
  });

  it('vitals: p75 and p90 by nearest rank, by route, environment and release; test runs left out', async () => {
    // LCP of every environment but tests: 1000 2000 3000 4000 5000 7000 → p75 rank 5, p90 rank 6.
    expect(await value('vitals', { aggregate: 'p75', metric: 'LCP' })).toBe(5000);
    expect(await value('vitals', { aggregate: 'p90', metric: 'LCP' })).toBe(7000);
    // Production: 1000…5000 → p75 rank 4.
    expect(await value('vitals', { aggregate: 'p75', metric: 'LCP', filter: { env: ['production'] } })).toBe(4000);
    // /checkout*: 1000 2000 3000 4000 7000 → p75 rank 4, p90 rank 5.
    expect(await value('vitals', { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout*' } })).toBe(4000);
    expect(await value('vitals', { aggregate: 'p90', metric: 'LCP', filter: { route: '/checkout*' } })).toBe(7000);
    expect(await value('vitals', { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout' } })).toBe(3000);
    // A page as the Web Vitals page names it: `:step` is any segment.
    expect(await value('vitals', { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout/:step' } })).toBe(7000);
    expect(await value('vitals', { aggregate: 'p75', metric: 'LCP', filter: { env: ['test'] } })).toBe(9000);
    expect(await value('vitals', { aggregate: 'p75', metric: 'LCP', filter: { release: ['1.0'] } })).toBeNull();
    expect(await value('vitals', { aggregate: 'p75', metric: 'INP' })).toBeNull();
  });

  it('spans: count, error rate and duration percentiles, by app, name and route', async () => {
    const web = { app: ['web-app'] };
    expect(await value('spans', { aggregate: 'count', filter: web })).toBe(12);
    expect(await value('spans', { aggregate: 'error_rate', filter: web })).toBe(3 / 12);
    // 10 … 100, 200, 400: p50 rank 6, p95 and p99 rank 12.
    expect(await value('spans', { aggregate: 'p50', filter: web })).toBe(60);
    expect(await value('spans', { aggregate: 'p95', filter: web })).toBe(400);
    expect(await value('spans', { aggregate: 'p99', filter: web })).toBe(400);
    // Every app: the api's 5 ms span too, rank 7 of 13.
    expect(await value('spans', { aggregate: 'count' })).toBe(13);
    expect(await value('spans', { aggregate: 'p50' })).toBe(60);
    const cartRoute = { route: '/api/cart*' };
    expect(await value('spans', { aggregate: 'count', filter: cartRoute })).toBe(10);
    expect(await value('spans', { aggregate: 'error_rate', filter: cartRoute })).toBe(0.2);
    expect(await value('spans', { aggregate: 'p95', filter: cartRoute })).toBe(100);
    expect(await value('spans', { aggregate: 'p50', filter: { name: 'GET /api/pay' } })).toBe(200);
    expect(await value('spans', { aggregate: 'count', filter: { app: ['api'] } })).toBe(1);
    expect(await value('spans', { aggregate: 'count', filter: { service: 'api' } })).toBe(1);
  });

  it('logs: count by severity and text; zero while logs arrive, no data when none do', async () => {
    expect(await value('logs', { aggregate: 'count' })).toBe(6);
    expect(await value('logs', { aggregate: 'count', filter: { severity: ['error'] } })).toBe(2);
    expect(await value('logs', { aggregate: 'count', filter: { severity: ['warn', 'error'] } })).toBe(3);
    expect(await value('logs', { aggregate: 'count', filter: { text: 'CARD declined' } })).toBe(2);
    expect(await value('logs', { aggregate: 'count', filter: { release: ['2.0'], env: ['production'] } })).toBe(6);
    expect(await value('logs', { aggregate: 'count', filter: { severity: ['fatal'] } })).toBe(0);
    // The api sends spans but no logs: its log count is no data, not zero.
    expect(await value('logs', { aggregate: 'count', filter: { app: ['api'] } })).toBeNull();
    expect(await value('logs', { aggregate: 'count' }, { fromMs: T0 + DAY, toMs: T0 + DAY + MINUTE })).toBeNull();
  });

  it('metrics: sum, rate, average and percentiles of an app metric, by attribute', async () => {
    const q = (aggregate: AlertQuery['aggregate'], filter?: AlertQuery['filter']) =>
      value('metrics', { aggregate, metric: 'checkout.amount', ...(filter && { filter }) });
    expect(await q('sum')).toBe(100);
    expect(await q('rate')).toBeCloseTo(100 / 300, 12);
    expect(await q('avg')).toBe(25);
    expect(await q('p50')).toBe(20);
    expect(await q('p75')).toBe(30);
    expect(await q('p90')).toBe(40);
    expect(await q('p95')).toBe(40);
    expect(await q('p99')).toBe(40);
    expect(await q('sum', { attributes: { plan: 'pro' } })).toBe(30);
    expect(await value('metrics', { aggregate: 'sum', metric: 'no.such.metric' })).toBeNull();
  });

  it('issues: new issues and error events, of all issues and of one', async () => {
    expect(await value('issues', { aggregate: 'new_issues' })).toBe(1);
    expect(await value('issues', { aggregate: 'events' })).toBe(2);
    const issues = await controlGet<{ data: Array<{ id: string }> }>(t, '/issues?limit=10');
    expect(issues.body.data).toHaveLength(1);
    const issueId = issues.body.data[0]!.id;
    expect(await value('issues', { aggregate: 'events', filter: { issue_id: issueId } })).toBe(2);
    const before = { fromMs: T0 - 5 * MINUTE, toMs: T0 };
    expect(await value('issues', { aggregate: 'new_issues' }, before)).toBe(0);
    expect(await value('issues', { aggregate: 'events', filter: { issue_id: issueId } }, before)).toBe(0);
  });

  it('sessions: count and error-free share by release; test runs left out', async () => {
    // s1 (2 errors), s2, s4 (staging) and the api's a1; s3 ended before T0; t1 is a test run.
    expect(await value('sessions', { aggregate: 'count' })).toBe(4);
    expect(await value('sessions', { aggregate: 'error_free_share' })).toBe(3 / 4);
    expect(await value('sessions', { aggregate: 'count', filter: { app: ['web-app'] } })).toBe(3);
    expect(await value('sessions', { aggregate: 'error_free_share', filter: { env: ['production'] } })).toBe(2 / 3);
    expect(await value('sessions', { aggregate: 'count', filter: { env: ['test'] } })).toBe(1);
    expect(await value('sessions', { aggregate: 'count', filter: { route: '/checkout*' } })).toBe(2);
    const earlier = { fromMs: T0 - 5 * MINUTE, toMs: T0 };
    expect(await value('sessions', { aggregate: 'count', filter: { release: ['1.0'] } }, earlier)).toBe(1);
    expect(await value('sessions', { aggregate: 'error_free_share', filter: { release: ['9'] } })).toBeNull();
  });

  it('baselines: the same window a day or a week earlier, and the previous release', async () => {
    const db = t.server.database.db;
    const change = (compare_to: 'day' | 'week' | 'previous_release'): AlertCondition => ({
      type: 'change',
      op: 'above',
      percent: 50,
      compare_to,
    });
    const sum = { aggregate: 'sum' as const, metric: 'checkout.amount' };
    expect(await baselineValue(db, rule('metrics', sum, change('day')), W, clock.now())).toBe(50);
    expect(await baselineValue(db, rule('metrics', sum, change('week')), W, clock.now())).toBeNull();
    expect(await baselineValue(db, rule('metrics', sum), W, clock.now())).toBeNull();
    // 2.0 (first seen at T0) against 1.0 over the 5 minutes before T0: s3's one log.
    const logs = rule('logs', { aggregate: 'count', filter: { app: ['web-app'] } }, change('previous_release'));
    expect(await evaluateRule(db, logs, W, clock.now())).toBe(6);
    expect(await baselineValue(db, logs, W, clock.now())).toBe(1);
  });

  it('previews a rule over HTTP: a value per step, the threshold, and where it would have fired', async () => {
    const body = {
      signal: 'logs',
      query: { aggregate: 'count' },
      condition: { type: 'threshold', op: 'above', value: 5 },
      from: new Date(T0 - 10 * MINUTE).toISOString(),
      to: new Date(T0 + 10 * MINUTE).toISOString(),
    };
    const res = await controlCall<{
      step_seconds: number;
      points: Array<{ t: string; value: number | null }>;
      threshold: number | null;
      firings: Array<{ start: string; end: string | null }>;
    }>(t, 'POST', '/alert-rules/preview', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.step_seconds).toBe(300);
    expect(res.body.threshold).toBe(5);
    expect(res.body.points.map((p) => [p.t, p.value])).toEqual([
      [new Date(T0 - 5 * MINUTE).toISOString(), null],
      [new Date(T0).toISOString(), 1],
      [new Date(T0 + 5 * MINUTE).toISOString(), 6],
      [new Date(T0 + 10 * MINUTE).toISOString(), null],
    ]);
    expect(res.body.firings).toEqual([{ start: new Date(T0 + 5 * MINUTE).toISOString(), end: null }]);
    // Held for one step only: a rule that must hold 10 minutes does not fire.
    const patient = await controlCall<{ firings: unknown[] }>(t, 'POST', '/alert-rules/preview', {
      ...body,
      for_seconds: 600,
    });
    expect(patient.body.firings).toEqual([]);
  });

  it('creates, lists, edits and deletes rules, each change in the audit log (the preview in none)', async () => {
    type Rule = Record<string, unknown> & { id: string };
    const created = await controlCall<Rule>(t, 'POST', '/alert-rules', {
      name: 'Checkout LCP',
      signal: 'vitals',
      query: { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout*' } },
      condition: { type: 'threshold', op: 'above', value: 4000 },
      recovery: { value: 3000 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Checkout LCP',
      window_seconds: 300,
      for_seconds: 0,
      severity: 'high',
      no_data: 'quiet',
      enabled: true,
      state: 'ok',
      last_value: null,
      incident_id: null,
      recovery: { value: 3000 },
    });
    expect(created.body.id).toMatch(/^ar_[0-9a-f]{20}$/);
    const second = await controlCall<Rule>(t, 'POST', '/alert-rules', {
      name: 'Errors',
      signal: 'logs',
      query: { aggregate: 'count', filter: { severity: ['error'] } },
      condition: { type: 'change', op: 'above', percent: 100, compare_to: 'week' },
    });
    expect(second.status).toBe(201);
    // Newest first; the clock stands still, so both were created in the same millisecond: then by id, descending.
    const order = [created.body.id, second.body.id].sort().reverse();
    const page = await controlGet<{ data: Rule[]; next_cursor: string | null }>(t, '/alert-rules?limit=1');
    expect(page.body.data.map((r) => r.id)).toEqual([order[0]]);
    const rest = await controlGet<{ data: Rule[] }>(t, `/alert-rules?limit=1&cursor=${page.body.next_cursor}`);
    expect(rest.body.data.map((r) => r.id)).toEqual([order[1]]);

    const edited = await controlCall<Rule>(t, 'PATCH', `/alert-rules/${created.body.id}`, {
      enabled: false,
      for_seconds: 600,
    });
    expect(edited.body).toMatchObject({ enabled: false, for_seconds: 600, name: 'Checkout LCP' });
    // Checked whole once merged: logs have no p75.
    const bad = await controlCall<{ error: { details: { field: string } } }>(
      t,
      'PATCH',
      `/alert-rules/${created.body.id}`,
      { signal: 'logs' },
    );
    expect([bad.status, bad.body.error.details.field]).toEqual([400, 'query.aggregate']);
    expect((await controlGet<Rule>(t, `/alert-rules/${created.body.id}`)).body.signal).toBe('vitals');

    expect((await controlCall(t, 'DELETE', `/alert-rules/${second.body.id}`)).status).toBe(204);
    expect((await controlGet(t, `/alert-rules/${second.body.id}`)).status).toBe(404);
    expect((await controlCall(t, 'DELETE', `/alert-rules/${second.body.id}`)).status).toBe(404);

    const entries = await t.server.database.db
      .selectFrom('audit_log')
      .select(['operation', 'target_type', 'target_id'])
      .where('operation', 'like', '%alert-rules%')
      .orderBy('id')
      .execute();
    expect(entries).toEqual([
      { operation: 'POST /control-plane/alert-rules', target_type: 'alert_rule', target_id: created.body.id },
      { operation: 'POST /control-plane/alert-rules', target_type: 'alert_rule', target_id: second.body.id },
      { operation: 'PATCH /control-plane/alert-rules/{id}', target_type: 'alert_rule', target_id: created.body.id },
      { operation: 'DELETE /control-plane/alert-rules/{id}', target_type: 'alert_rule', target_id: second.body.id },
    ]);
  });

  it('an edit made while the rule is being evaluated leaves it due for the new definition', async () => {
    const created = await controlCall<{ id: string }>(t, 'POST', '/alert-rules', {
      name: 'edited mid-evaluation',
      signal: 'logs',
      query: { aggregate: 'count' },
      condition: { type: 'threshold', op: 'above', value: 10 },
    });
    const { db } = t.server.database;
    const save = async (owner: string) => {
      expect((await dueRules(db, Date.now(), 100)).map((r) => r.id)).toContain(created.body.id);
      expect(await claimRule(db, created.body.id, owner, Date.now(), Date.now() + MINUTE)).toBe(true);
      return (edit: boolean) =>
        (edit
          ? controlCall(t, 'PATCH', `/alert-rules/${created.body.id}`, { name: 'edited' })
          : Promise.resolve()
        ).then(() =>
          saveRuleState(db, created.body.id, owner, {
            state: 'ok',
            stateSinceMs: 0,
            pendingSinceMs: null,
            lastValue: null,
            evaluatedMs: Date.now(),
            incidentId: null,
            nextEvalMs: Date.now() + MINUTE,
          }),
        );
    };
    const nextEval = async () =>
      Number(
        (
          await db
            .selectFrom('alert_rules')
            .select('next_eval_ms')
            .where('id', '=', created.body.id)
            .executeTakeFirstOrThrow()
        ).next_eval_ms,
      );
    await (
      await save('ar_first')
    )(true);
    expect(await nextEval()).toBe(0);
    await (
      await save('ar_second')
    )(false);
    expect(await nextEval()).toBeGreaterThan(Date.now());
  });

  it('svc-server alerts: create from a file, list, preview and delete over the API', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-alerts-'));
    const file = join(dir, 'rule.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'Error logs',
        signal: 'logs',
        query: { aggregate: 'count', filter: { severity: ['error'] } },
        condition: { type: 'threshold', op: 'above', value: 1 },
      }),
    );
    const env = { SVC_URL: t.url, SVC_CONTROL_KEY: t.controlKey };
    const run = async (...args: string[]) => {
      const lines: string[] = [];
      const code = await runAlertsCommand(args, env, (l) => lines.push(l));
      return { code, text: lines.join('\n') };
    };
    const created = await run('create', '--file', file);
    const id = (JSON.parse(created.text) as { id: string }).id;
    expect((await run('list')).text).toContain(`${id}  ok        no data     Error logs`);
    const preview = await run(
      'preview',
      '--file',
      file,
      '--from',
      new Date(T0 - 5 * MINUTE).toISOString(),
      '--to',
      new Date(T0 + 5 * MINUTE).toISOString(),
    );
    expect(preview.text.split('\n')).toEqual([
      'step 300 s, threshold 1',
      `${new Date(T0).toISOString()}  0`,
      `${new Date(T0 + 5 * MINUTE).toISOString()}  2`,
      'would have fired 1 time(s):',
      `  from ${new Date(T0 + 5 * MINUTE).toISOString()} to (still firing)`,
    ]);
    expect(await run('delete', id)).toEqual({ code: 0, text: `deleted ${id}` });
    await expect(run('delete', id)).rejects.toThrow(`404 no alert rule ${id} in this project`);
    await expect(run('create')).rejects.toThrow('alerts create needs --file rule.json');
    await expect(runAlertsCommand(['list'], {}, () => undefined)).rejects.toThrow('--url URL (or SVC_URL)');
  });

  it('refuses bad rules with 400 naming the field', async () => {
    const good = {
      name: 'r',
      signal: 'spans',
      query: { aggregate: 'p95' },
      condition: { type: 'threshold', op: 'above', value: 1 },
    };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good, signal: 'traces' }, 'signal'],
      [{ ...good, query: { aggregate: 'p75' } }, 'query.aggregate'],
      [{ ...good, signal: 'vitals', query: { aggregate: 'p75' } }, 'query.metric'],
      [{ ...good, signal: 'vitals', query: { aggregate: 'p75', metric: 'FID' } }, 'query.metric'],
      [{ ...good, signal: 'metrics', query: { aggregate: 'sum' } }, 'query.metric'],
      [{ ...good, query: { aggregate: 'p95', metric: 'x' } }, 'query.metric'],
      [{ ...good, query: { aggregate: 'p95', filter: { severity: ['error'] } } }, 'query.filter.severity'],
      [{ ...good, query: { aggregate: 'p95', filter: { colour: 'red' } } }, 'query.filter.colour'],
      [{ ...good, window_seconds: 30 }, 'window_seconds'],
      [{ ...good, window_seconds: 86_401 }, 'window_seconds'],
      [{ ...good, for_seconds: -1 }, 'for_seconds'],
      [{ ...good, condition: { type: 'threshold', op: 'over', value: 1 } }, 'condition.op'],
      [{ ...good, condition: { type: 'threshold', op: 'above' } }, 'condition.value'],
      [
        { ...good, condition: { type: 'change', op: 'above', percent: 10, compare_to: 'month' } },
        'condition.compare_to',
      ],
      [{ ...good, recovery: { value: 5 } }, 'recovery.value'],
      [{ ...good, severity: 'major' }, 'severity'],
      [{ ...good, no_data: 'maybe' }, 'no_data'],
      [{ ...good, colour: 'red' }, 'colour'],
      [{ ...good, name: '' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await controlCall<{ error: { code: string; details?: { field?: string } } }>(
        t,
        'POST',
        '/alert-rules',
        body,
      );
      expect([JSON.stringify(body), res.status, res.body.error.code, res.body.error.details?.field]).toEqual([
        JSON.stringify(body),
        400,
        'invalid_request',
        field,
      ]);
    }
    const preview = await controlCall<{ error: { details: { field: string } } }>(t, 'POST', '/alert-rules/preview', {
      ...good,
      from: new Date(T0).toISOString(),
      to: new Date(T0 - MINUTE).toISOString(),
    });
    expect([preview.status, preview.body.error.details.field]).toEqual([400, 'from']);
  });
});
