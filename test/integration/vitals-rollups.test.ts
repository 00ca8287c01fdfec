import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention, rollUpVitals } from '../../server/src/index';
import { RELATIVE_ERROR } from '../../server/src/vitals/rollup/histogram';
import { forgetRollups } from '../../server/src/vitals/rollup/store';
import { databaseKinds } from '../support/databases';
import { str } from '../support/otlp';
import { postIngest, startTestServer, type TestServer } from '../support/server';

/**
 * Web Vitals rollups (docs/api.md, "Web Vitals"): vital points sent to ingest as the SDK sends them over three days,
 * the rollup job run with a clock the test moves, and the summary over the days compared with the one the server gave
 * from the raw points before: p75s within the stated error, samples and the distribution exact. Rerunning the job
 * changes nothing; a late point rolls its hour and day up again; two runs at once store the same rows; retention
 * deletes the rollups with the metrics.
 */
const kinds = await databaseKinds();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2027, 4, 10);

type Vital = 'LCP' | 'INP' | 'CLS' | 'FCP' | 'TTFB';
type PerVital<T> = Record<Vital, T>;
interface Figures {
  samples: number;
  p75: PerVital<number | null>;
}
interface Vitals {
  bucket: 'hour' | 'day';
  truncated: boolean;
  approximation: { rolled_up: number; relative_error: number };
  pages: Array<Figures & { route: string }>;
  overall: Figures;
  series: PerVital<Array<{ t: string; p75: number; samples: number }>>;
  distribution: PerVital<{ good: number; needs_improvement: number; poor: number }>;
}

const METRIC: PerVital<string> = {
  LCP: 'web_vital_lcp_ms',
  INP: 'web_vital_inp_ms',
  CLS: 'web_vital_cls',
  FCP: 'web_vital_fcp_ms',
  TTFB: 'web_vital_ttfb_ms',
};
const PATHS = ['/products/1', '/products/22', '/checkout', '/', undefined];

interface Point {
  vital: Vital;
  value: number;
  atMs: number;
  path?: string;
  env: string;
}

/** A fixed pseudo-random sequence, so each run sends the same points. */
function random(seed: number) {
  let s = seed;
  return () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/** Three days and a half of points before T0 + 12 h, every vital, five pages, CLS often 0, a staging point in ten. */
function points(): Point[] {
  const next = random(7);
  const out: Point[] = [];
  for (let at = T0 - 3 * DAY; at < T0 + 12 * HOUR; at += 5 * 60_000) {
    const vital = (['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const)[out.length % 5]!;
    const scale = vital === 'CLS' ? 0.4 : vital === 'INP' ? 600 : 5000;
    const value = vital === 'CLS' && next() < 0.4 ? 0 : Math.round(next() * scale * 1000) / 1000;
    out.push({
      vital,
      value,
      atMs: at + Math.floor(next() * 60_000),
      path: PATHS[out.length % 5],
      env: next() < 0.1 ? 'staging' : 'production',
    });
  }
  return out;
}

/** OTLP/JSON as the SDK sends a vital: a gauge point with `url.path`, the environment on the resource. */
const vitalsBody = (batch: Point[]) => ({
  resourceMetrics: batch.map((p) => ({
    resource: { attributes: [str('service.name', 'web-app'), str('deployment.environment.name', p.env)] },
    scopeMetrics: [
      {
        scope: { name: '@svc/browser' },
        metrics: [
          {
            name: METRIC[p.vital],
            unit: p.vital === 'CLS' ? '1' : 'ms',
            gauge: {
              dataPoints: [
                {
                  timeUnixNano: `${p.atMs}000000`,
                  asDouble: p.value,
                  attributes: p.path === undefined ? [] : [str('url.path', p.path)],
                },
              ],
            },
          },
        ],
      },
    ],
  })),
});

/** `actual` within the rollups' error of `exact`, every p75 of it. */
function expectClose(actual: Figures, exact: Figures) {
  expect(actual.samples).toBe(exact.samples);
  for (const [vital, value] of Object.entries(exact.p75)) {
    const got = actual.p75[vital as Vital];
    if (value === null || value === 0) expect(got).toBe(value);
    else expect(Math.abs(got! - value) / value, `${vital}: ${got} vs ${value}`).toBeLessThanOrEqual(RELATIVE_ERROR);
  }
}

function expectSameSummary(actual: Vitals, exact: Vitals) {
  expect(actual.pages.map((p) => p.route)).toEqual(exact.pages.map((p) => p.route));
  actual.pages.forEach((page, i) => expectClose(page, exact.pages[i]!));
  expectClose(actual.overall, exact.overall);
  expect(actual.distribution).toEqual(exact.distribution);
  for (const vital of Object.keys(exact.series) as Vital[]) {
    expect(actual.series[vital].map((b) => [b.t, b.samples])).toEqual(exact.series[vital].map((b) => [b.t, b.samples]));
    actual.series[vital].forEach((b, i) => {
      const want = exact.series[vital][i]!.p75;
      expect(Math.abs(b.p75 - want)).toBeLessThanOrEqual(want * RELATIVE_ERROR);
    });
  }
}

describe.each(kinds)('Web Vitals rollups on %s', (kind) => {
  let t: TestServer;
  let now = T0 + 12 * HOUR;
  const clock = { now: () => now };
  const run = () => rollUpVitals(t.server.database.db, clock);
  const get = async (query: string) => {
    const res = await fetch(`${t.url}/control-plane/vitals?${query}`, {
      headers: { authorization: `Bearer ${t.controlKey}` },
    });
    const body = (await res.json()) as Vitals;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body;
  };
  const snapshot = async () =>
    (
      await sql<Record<string, unknown>>`select * from vital_rollups
        order by period, start_ms, app_id, env, route, vital`.execute(t.server.database.db)
    ).rows;
  const WINDOWS = [
    `from=${T0 - 3 * DAY + 30 * 60_000}&to=${now}&bucket=day`,
    `from=${T0 - 2 * DAY}&to=${T0 + 11 * HOUR}`,
    `from=${T0 - 3 * DAY}&to=${now}&bucket=hour&route=/products/5`,
    `from=${T0 - 3 * DAY}&to=${now}&env=staging&bucket=day`,
  ];
  const exact = new Map<string, Vitals>();

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    const all = points();
    for (let i = 0; i < all.length; i += 500)
      await postIngest(t, '/otlp/v1/metrics', JSON.stringify(vitalsBody(all.slice(i, i + 500))));
    for (const w of WINDOWS) exact.set(w, await get(w));
  });
  afterAll(() => t?.close());

  it('answers from raw points, exactly, before anything is rolled up', () => {
    for (const answer of exact.values()) expect(answer.approximation).toEqual({ rolled_up: 0, relative_error: 0 });
    expect(exact.get(WINDOWS[0]!)!.overall.samples).toBeGreaterThan(900);
  });

  it('rolls up the closed hours and days and answers over them within the stated error, the distribution exact', async () => {
    // A couple of minutes on: the job looks again at points received within a minute before a run.
    now += 2 * 60_000;
    expect(await run()).toEqual({ hours: 3 * 24 + 11, days: 3, stale: 0 });
    for (const w of WINDOWS) {
      const answer = await get(w);
      expect(answer.approximation.relative_error).toBe(RELATIVE_ERROR);
      expect(answer.approximation.rolled_up).toBeGreaterThan(0.8);
      expectSameSummary(answer, exact.get(w)!);
    }
  });

  it('changes nothing when run again', async () => {
    const before = await snapshot();
    expect(await run()).toEqual({ hours: 0, days: 0, stale: 0 });
    expect(await snapshot()).toEqual(before);
  });

  it('rolls an hour and its day up again when a point comes late for them', async () => {
    const w = WINDOWS[0]!;
    const before = await get(w);
    now += HOUR;
    const late: Point = {
      vital: 'LCP',
      value: 9000,
      atMs: T0 - 2 * DAY + 10 * 60_000,
      path: '/checkout',
      env: 'production',
    };
    await postIngest(t, '/otlp/v1/metrics', JSON.stringify(vitalsBody([late])));
    now += 2 * 60_000;
    // The hour and then its day; and the hour that closed meanwhile.
    expect(await run()).toEqual({ hours: 1, days: 0, stale: 2 });
    const after = await get(w);
    expect(after.overall.samples).toBe(before.overall.samples + 1);
    expect(after.distribution.LCP.poor).toBe(before.distribution.LCP.poor + 1);
    expect(await run()).toEqual({ hours: 0, days: 0, stale: 0 });
  });

  it.runIf(kind === 'postgres')('stores each period once with the same rows when two runs go at once', async () => {
    const before = await snapshot();
    await forgetRollups(t.server.database.db, t.projectId, {});
    expect(await snapshot()).toEqual([]);
    await Promise.all([run(), run()]);
    expect(await snapshot()).toEqual(before);
  });

  it('deletes the rollups with the metrics once they age out', async () => {
    now = T0 + 40 * DAY;
    await applyRetention(t.server.database.db, clock, 30);
    expect(await snapshot()).toEqual([]);
  });
});
