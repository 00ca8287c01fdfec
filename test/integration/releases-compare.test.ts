import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../server/src/index';
import { databaseKinds } from '../support/databases';
import { str } from '../support/otlp';
import {
  controlGet,
  expectBadRequests,
  postIngest,
  recordsStored,
  startTestServer,
  type TestServer,
} from '../support/server';

/**
 * The releases listing and comparison (docs/api.md, "Releases") on the real server over HTTP, SQLite and PostgreSQL,
 * from OTLP sent to ingest: first seen by earliest session, the previous release by first seen (not by latest
 * session), Web Vitals p75 by nearest rank, span error rate and error-free sessions against hand-computed values, test
 * runs and other apps left out, the 404 and the 400s.
 */
const kinds = await databaseKinds();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2027, 4, 3, 8, 0, 0);
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

interface SessionSpec {
  id: string;
  release: string;
  atMs: number;
  app?: string;
  env?: string;
  testRun?: boolean;
  /** Span statuses (2 = ERROR), one span each. */
  spans?: Array<0 | 1 | 2>;
  /** Error logs stored for the session. */
  errors?: number;
  lcp?: number[];
  inp?: number[];
}

/**
 * web-app's releases: 1.0 first at T0 (a straggler session of it at T0 + 3 d), 1.1 at T0 + 1 d, 2.0 at T0 + 2 d.
 * api's 1.5 (T0 + 1.5 d) and a test run's 3.0 are not web-app's lineage.
 */
const SESSIONS: SessionSpec[] = [
  { id: 'a1', release: '1.0', atMs: T0, spans: [1], lcp: [900] },
  { id: 'a2', release: '1.0', atMs: T0 + HOUR, errors: 1 },
  { id: 'a3', release: '1.0', atMs: T0 + 3 * DAY },
  // 1.1: LCP 1000 2000 2500 → p75 (3rd of 3) 2500; INP 100; 4 spans, no error; b1 and b2 had errors: 1 of 3 error-free.
  { id: 'b1', release: '1.1', atMs: T0 + DAY, spans: [1, 0], errors: 2, lcp: [1000, 2500], inp: [100] },
  { id: 'b2', release: '1.1', atMs: T0 + DAY + HOUR, spans: [1], errors: 1, lcp: [2000] },
  { id: 'b3', release: '1.1', atMs: T0 + DAY + 2 * HOUR, spans: [0] },
  // 2.0: LCP 1000 3000 4000 5000 → p75 (3rd of 4) 4000; no INP; spans 1 error of 4; c1 had an error: 2 of 3 error-free.
  { id: 'c1', release: '2.0', atMs: T0 + 2 * DAY, spans: [1, 2, 0], errors: 1, lcp: [5000, 1000] },
  { id: 'c2', release: '2.0', atMs: T0 + 2 * DAY + HOUR, spans: [1], lcp: [3000, 4000] },
  { id: 'c3', release: '2.0', atMs: T0 + 2 * DAY + 2 * HOUR, env: 'staging' },
  { id: 'x1', release: '1.5', atMs: T0 + DAY + 12 * HOUR, app: 'api', spans: [2], errors: 1, lcp: [9000] },
  { id: 't1', release: '3.0', atMs: T0 + 3 * DAY, testRun: true, spans: [2], errors: 1, lcp: [9000] },
];

const resource = (s: SessionSpec) => ({
  attributes: [
    str('service.name', s.app ?? 'web-app'),
    str('session.id', s.id),
    str('service.version', s.release),
    ...(s.env ? [str('deployment.environment.name', s.env)] : []),
    ...(s.testRun ? [str('test.run.id', 'run-1'), str('test.id', 'checkout.spec.ts:3')] : []),
  ],
});

const spansBody = () => ({
  resourceSpans: SESSIONS.filter((s) => s.spans).map((s, i) => ({
    resource: resource(s),
    scopeSpans: [
      {
        scope: { name: '@svc/test' },
        spans: s.spans!.map((code, j) => ({
          traceId: `${(i + 1).toString(16).padStart(4, '0')}${'cd'.repeat(14)}`,
          spanId: `${(i + 1).toString(16).padStart(4, '0')}${j.toString(16).padStart(12, '0')}`,
          name: `GET /api/${j}`,
          kind: 3,
          startTimeUnixNano: nanos(s.atMs + j),
          endTimeUnixNano: nanos(s.atMs + j + 10),
          status: { code },
        })),
      },
    ],
  })),
});

/** Every session sends one INFO log at its start (so each session exists), and its error logs. */
const logsBody = () => ({
  resourceLogs: SESSIONS.map((s) => ({
    resource: resource(s),
    scopeLogs: [
      {
        scope: { name: '@svc/test' },
        logRecords: [
          { timeUnixNano: nanos(s.atMs), severityNumber: 9, body: { stringValue: 'page view' } },
          ...Array.from({ length: s.errors ?? 0 }, (_, k) => ({
            timeUnixNano: nanos(s.atMs + 100 + k),
            severityNumber: 17,
            body: { stringValue: `failed ${k}` },
          })),
        ],
      },
    ],
  })),
});

const metricsBody = () => ({
  resourceMetrics: SESSIONS.filter((s) => s.lcp || s.inp).map((s) => ({
    resource: resource(s),
    scopeMetrics: [
      {
        scope: { name: '@svc/browser' },
        metrics: (
          [
            ['web_vital_lcp_ms', s.lcp ?? []],
            ['web_vital_inp_ms', s.inp ?? []],
          ] as Array<[string, number[]]>
        )
          .filter(([, values]) => values.length > 0)
          .map(([name, values]) => ({
            name,
            unit: 'ms',
            gauge: {
              dataPoints: values.map((v, k) => ({
                timeUnixNano: nanos(s.atMs + 200 + k),
                asDouble: v,
                attributes: [str('url.path', '/checkout')],
              })),
            },
          })),
      },
    ],
  })),
});

type Vital = 'LCP' | 'INP' | 'CLS' | 'FCP' | 'TTFB';
interface Figures {
  release: string;
  first_seen: string;
  sessions: number;
  sessions_read: number;
  error_free_sessions: number;
  error_free_share: number | null;
  spans: number;
  span_errors: number;
  span_error_rate: number | null;
  vitals: {
    p75: Record<Vital, number | null>;
    rating: Record<Vital, string | null>;
    samples: Record<Vital, number>;
    truncated: boolean;
  };
}
interface Change {
  delta: number | null;
  percent: number | null;
}
interface Comparison {
  app: string;
  current: Figures;
  previous: Figures | null;
  changes: { vitals_p75: Record<Vital, Change>; span_error_rate: Change; error_free_share: Change } | null;
}

describe.each(kinds)('release comparison on %s', (kind) => {
  let t: TestServer;
  const clock = { now: () => T0 + 4 * DAY };

  const ok = async <T>(path: string) => {
    const res = await controlGet<T>(t, path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const releases = (query: string) =>
    ok<{ data: Array<{ release: string; first_seen: string; sessions: number }> }>(`/releases?${query}`);

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    await registerApp(t.server.database.db, clock, t.projectId, 'api');
    await postIngest(t, '/otlp/v1/logs', JSON.stringify(logsBody()));
    await postIngest(t, '/otlp/v1/traces', JSON.stringify(spansBody()));
    await postIngest(t, '/otlp/v1/metrics', JSON.stringify(metricsBody()));
  });
  afterAll(() => t?.close());

  it("lists the app's releases by first seen, newest first; test runs and other apps left out", async () => {
    // Ingest stores in the background: wait for every record to count.
    await recordsStored(t, { spans: 11, logs: 18, metrics: 11 });
    expect((await releases('app=web-app')).data).toEqual([
      { release: '2.0', first_seen: new Date(T0 + 2 * DAY).toISOString(), sessions: 3 },
      { release: '1.1', first_seen: new Date(T0 + DAY).toISOString(), sessions: 3 },
      { release: '1.0', first_seen: new Date(T0).toISOString(), sessions: 3 },
    ]);
    expect((await releases('app=web-app&env=staging')).data.map((r) => [r.release, r.sessions])).toEqual([['2.0', 1]]);
    expect((await releases('app=api')).data.map((r) => r.release)).toEqual(['1.5']);
  });

  it('compares a release with the one first seen before it, with hand-computed figures and changes', async () => {
    const c = await ok<Comparison>('/releases/compare?app=web-app&release=2.0');
    expect(c.app).toBe('web-app');
    expect(c.current).toMatchObject({
      release: '2.0',
      first_seen: new Date(T0 + 2 * DAY).toISOString(),
      sessions: 3,
      sessions_read: 3,
      error_free_sessions: 2,
      spans: 4,
      span_errors: 1,
      span_error_rate: 0.25,
      vitals: {
        p75: { LCP: 4000, INP: null, CLS: null, FCP: null, TTFB: null },
        rating: { LCP: 'needs_improvement', INP: null },
        samples: { LCP: 4, INP: 0 },
        truncated: false,
      },
    });
    expect(c.current.error_free_share).toBeCloseTo(2 / 3, 12);
    // 1.1, not 1.0, though 1.0's latest session (a3, T0 + 3 d) is newer than any of 1.1's.
    expect(c.previous).toMatchObject({
      release: '1.1',
      sessions: 3,
      error_free_sessions: 1,
      spans: 4,
      span_errors: 0,
      span_error_rate: 0,
      vitals: { p75: { LCP: 2500, INP: 100 }, rating: { LCP: 'good', INP: 'good' }, samples: { LCP: 3, INP: 1 } },
    });
    expect(c.changes!.vitals_p75.LCP).toEqual({ delta: 1500, percent: 60 });
    expect(c.changes!.vitals_p75.INP).toEqual({ delta: null, percent: null });
    // From an error rate of 0: a delta, but no percentage of zero.
    expect(c.changes!.span_error_rate).toEqual({ delta: 0.25, percent: null });
    expect(c.changes!.error_free_share.delta).toBeCloseTo(1 / 3, 12);
    expect(c.changes!.error_free_share.percent).toBeCloseTo(100, 9);
  });

  it('takes the release to compare with from `previous`; the first release has none', async () => {
    const c = await ok<Comparison>('/releases/compare?app=web-app&release=2.0&previous=1.0');
    // 1.0: a1 (one OK span, LCP 900), a2 (an error), a3: 2 of 3 error-free.
    expect(c.previous).toMatchObject({ release: '1.0', sessions: 3, error_free_sessions: 2, spans: 1 });
    expect(c.changes!.vitals_p75.LCP.delta).toBe(3100);
    const first = await ok<Comparison>('/releases/compare?app=web-app&release=1.0');
    expect(first.previous).toBeNull();
    expect(first.changes).toBeNull();
    // Staging only: 2.0's one staging session, with nothing before it there.
    const staging = await ok<Comparison>('/releases/compare?app=web-app&release=2.0&env=staging');
    expect(staging.current).toMatchObject({ sessions: 1, error_free_share: 1, spans: 0, span_error_rate: null });
    expect(staging.previous).toBeNull();
  });

  it('answers 404 for a release the app never reported (a test run, another app) and 400 naming the field', async () => {
    for (const path of [
      '/releases/compare?app=web-app&release=3.0',
      '/releases/compare?app=web-app&release=1.5',
      '/releases/compare?app=web-app&release=2.0&previous=9.9',
    ]) {
      const res = await controlGet<{ error: { code: string } }>(t, path);
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'not_found']);
    }
    await expectBadRequests(t, [
      ['/releases/compare?release=2.0', 'app'],
      ['/releases/compare?app=web-app', 'release'],
      ['/releases/compare?app=nope&release=2.0', 'app'],
      ['/releases/compare?app=web-app&release=2.0&since=1', 'since'],
      ['/releases?app=web-app&env=', 'env'],
    ]);
  });
});
