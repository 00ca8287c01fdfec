import { hc } from 'hono/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addAlias,
  applyRetention,
  createKey,
  registerApp,
  type TracesApi,
  type VitalsApi,
} from '../../server/src/index';
import { backfillTraceSummaries } from '../../server/src/db/migrations/0031-summaries';
import { databaseKinds } from '../support/databases';
import { str } from '../support/otlp';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The console's trace search and Web Vitals summary (docs/api.md, "Traces" and "Web Vitals"), on the real server over
 * HTTP on SQLite and PostgreSQL, from OTLP sent to ingest: trace filters, keyset paging, the trace detail, p75 per page
 * and per bucket against hand-computed values, web.dev ratings at their boundaries, route patterns, the 400s (each
 * naming its field, changing nothing), and a `read` key viewing both.
 */
const kinds = await databaseKinds();

const T0 = Date.UTC(2027, 2, 1, 9, 0, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type ErrorBody = { error: { code: string; message: string; details?: { field?: string } } };
interface TraceItem {
  trace_id: string;
  root: { name: string; label: string; service: string | null; span_id: string } | null;
  start: string;
  duration_ms: number;
  span_count: number;
  error_count: number;
  services: string[];
  session_id: string | null;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
type Vital = 'LCP' | 'INP' | 'CLS' | 'FCP' | 'TTFB';
interface Vitals {
  window: { from: string; to: string };
  bucket: 'hour' | 'day';
  route: string | null;
  truncated: boolean;
  thresholds: Record<Vital, { good: number; poor: number; unit: string }>;
  pages: Array<{
    route: string;
    samples: number;
    p75: Record<Vital, number | null>;
    rating: Record<Vital, string | null>;
  }>;
  overall: { samples: number; p75: Record<Vital, number | null>; rating: Record<Vital, string | null> };
  series: Record<Vital, Array<{ t: string; p75: number; samples: number }>>;
  distribution: Record<Vital, { good: number; needs_improvement: number; poor: number }>;
}

const traceId = (n: number) => `${n.toString(16).padStart(4, '0')}${'ab'.repeat(14)}`;
const spanId = (trace: number, n: number) =>
  `${trace.toString(16).padStart(4, '0')}${n.toString(16).padStart(12, '0')}`;
/** Nanoseconds since the epoch, as OTLP/JSON writes them, from milliseconds with a fraction. */
const nanos = (ms: number) =>
  (BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.round((ms % 1) * 1_000_000))).toString();

interface SpanSpec {
  trace: number;
  span: number;
  parent?: number;
  name: string;
  service?: string;
  startMs: number;
  endMs: number;
  status?: 0 | 1 | 2;
  sessionId?: string;
}

const spansBody = (specs: SpanSpec[]) => ({
  resourceSpans: specs.map((s) => ({
    resource: {
      attributes: [
        str('service.name', s.service ?? 'web-app'),
        ...(s.sessionId ? [str('session.id', s.sessionId)] : []),
      ],
    },
    scopeSpans: [
      {
        scope: { name: '@svc/test' },
        spans: [
          {
            traceId: traceId(s.trace),
            spanId: spanId(s.trace, s.span),
            ...(s.parent !== undefined && { parentSpanId: spanId(s.trace, s.parent) }),
            name: s.name,
            kind: 1,
            startTimeUnixNano: nanos(s.startMs),
            endTimeUnixNano: nanos(s.endMs),
            status: { code: s.status ?? 0 },
          },
        ],
      },
    ],
  })),
});

interface PointSpec {
  metric: string;
  value: number;
  atMs: number;
  path?: string;
  service?: string;
}

const metricsBody = (points: PointSpec[]) => ({
  resourceMetrics: points.map((p) => ({
    resource: { attributes: [str('service.name', p.service ?? 'web-app')] },
    scopeMetrics: [
      {
        scope: { name: '@svc/browser' },
        metrics: [
          {
            name: p.metric,
            unit: p.metric === 'web_vital_cls' ? '1' : 'ms',
            gauge: {
              dataPoints: [
                {
                  timeUnixNano: nanos(p.atMs),
                  asDouble: p.value,
                  attributes: [
                    str('web_vital.rating', 'good'),
                    ...(p.path === undefined ? [] : [str('url.path', p.path)]),
                  ],
                },
              ],
            },
          },
        ],
      },
    ],
  })),
});

/**
 * The traces, oldest first. 1: a root on web-app and an erroring child on api, 100.5 ms, session s-1. 2: one OK span,
 * session s-2. 3: a span of the alias api-v2 whose parent was never received (the root) and its child, 3 s, status
 * unset. 4 to 8: one span each, all starting at the same millisecond, for paging through ties.
 */
const TRACES: SpanSpec[] = [
  { trace: 1, span: 1, name: 'GET /products', startMs: T0, endMs: T0 + 100.5, sessionId: 's-1', status: 1 },
  {
    trace: 1,
    span: 2,
    parent: 1,
    name: 'db query',
    service: 'api',
    startMs: T0 + 10,
    endMs: T0 + 60,
    status: 2,
    sessionId: 's-1',
  },
  { trace: 2, span: 1, name: 'click checkout', startMs: T0 + 1000, endMs: T0 + 1005, status: 1, sessionId: 's-2' },
  { trace: 3, span: 2, parent: 1, name: 'POST /orders', service: 'api-v2', startMs: T0 + 2000, endMs: T0 + 5000 },
  { trace: 3, span: 3, parent: 2, name: 'validate_100%', service: 'api-v2', startMs: T0 + 2001, endMs: T0 + 2002 },
  ...[4, 5, 6, 7, 8].map(
    (n): SpanSpec => ({ trace: n, span: 1, name: `tick ${n}`, startMs: T0 + 10_000, endMs: T0 + 10_000 + n }),
  ),
];

const h9 = T0;
const h10 = T0 + HOUR;
/**
 * Vital points. /products/1 and /products/2 are one page; /checkout/ and /checkout one; a point without url.path is
 * (unknown); /old is outside the default window; api's /admin is another app's.
 */
const POINTS: PointSpec[] = [
  { metric: 'web_vital_lcp_ms', value: 1000, atMs: h9, path: '/products/1' },
  { metric: 'web_vital_lcp_ms', value: 2500, atMs: h9 + 1, path: '/products/1' },
  { metric: 'web_vital_lcp_ms', value: 3000, atMs: h9 + 2, path: '/products/1' },
  { metric: 'web_vital_lcp_ms', value: 4000, atMs: h10, path: '/products/1' },
  { metric: 'web_vital_lcp_ms', value: 5000, atMs: h10 + 1, path: '/products/2' },
  { metric: 'web_vital_cls', value: 0.1, atMs: h9 + 3, path: '/products/1' },
  { metric: 'web_vital_cls', value: 0.25, atMs: h9 + 4, path: '/products/2' },
  { metric: 'web_vital_cls', value: 0.26, atMs: h10 + 2, path: '/products/2' },
  { metric: 'web_vital_inp_ms', value: 200, atMs: h9 + 5, path: '/checkout/' },
  { metric: 'web_vital_inp_ms', value: 201, atMs: h9 + 6, path: '/checkout' },
  { metric: 'web_vital_ttfb_ms', value: 800, atMs: h9 + 7 },
  { metric: 'web_vital_fcp_ms', value: 100, atMs: T0 - 10 * DAY, path: '/old' },
  { metric: 'web_vital_lcp_ms', value: 9999, atMs: h9 + 8, path: '/admin', service: 'api' },
  // Not a vital.
  { metric: 'app.cart_size', value: 3, atMs: h9 + 9, path: '/products/1' },
];

describe.each(kinds)('traces and Web Vitals on %s', (kind) => {
  let t: TestServer;
  let readKey: string;
  const clock = { now: () => T0 + 2 * HOUR };

  const get = async <T>(path: string, key = t.controlKey) => {
    const res = await fetch(`${t.url}/control-plane${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as T };
  };
  const ok = async <T>(path: string) => {
    const res = await get<T>(path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBe(200);
  };
  const traceIds = async (query: string) => (await ok<Page<TraceItem>>(`/traces?${query}`)).data.map((d) => d.trace_id);

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    const db = t.server.database.db;
    await registerApp(db, clock, t.projectId, 'api');
    await addAlias(db, clock, t.projectId, 'api', 'api-v2');
    readKey = (await createKey(db, clock, { projectId: t.projectId, scope: 'read', name: 'viewer' })).key;
    await post('/otlp/v1/traces', spansBody(TRACES));
    await post('/otlp/v1/metrics', metricsBody(POINTS));
  });
  afterAll(() => t?.close());

  it('lists one item per trace, newest first, with its root, duration, counts, services and session', async () => {
    const page = await ok<Page<TraceItem>>('/traces?limit=200');
    expect(page.next_cursor).toBeNull();
    // Ties on start (4 to 8) are ordered by trace id, descending too.
    expect(page.data.map((d) => d.trace_id)).toEqual([8, 7, 6, 5, 4, 3, 2, 1].map(traceId));
    const byId = new Map(page.data.map((d) => [d.trace_id, d]));
    expect(byId.get(traceId(1))).toEqual({
      trace_id: traceId(1),
      root: { name: 'GET /products', label: 'GET /products', service: 'web-app', span_id: spanId(1, 1) },
      start: new Date(T0).toISOString(),
      duration_ms: 100.5,
      span_count: 2,
      error_count: 1,
      services: ['api', 'web-app'],
      session_id: 's-1',
    });
    // The root is the span whose parent was never received; services are as sent (the alias).
    expect(byId.get(traceId(3))).toMatchObject({
      root: { name: 'POST /orders', service: 'api-v2', span_id: spanId(3, 2) },
      duration_ms: 3000,
      span_count: 2,
      error_count: 0,
      services: ['api-v2'],
      session_id: null,
    });
  });

  it('filters by service, span name, trace id, session, status, duration, app and time', async () => {
    expect(await traceIds('service=api')).toEqual([traceId(1)]);
    expect(await traceIds('service=api-v2')).toEqual([traceId(3)]);
    // Any span's name, a case-insensitive substring; % and _ are literal.
    expect(await traceIds('name=QUERY')).toEqual([traceId(1)]);
    expect(await traceIds('name=100%25')).toEqual([traceId(3)]);
    expect(await traceIds('name=e_1')).toEqual([traceId(3)]);
    expect(await traceIds('name=k_4')).toEqual([]);
    expect(await traceIds(`trace_id=${traceId(2).toUpperCase()}`)).toEqual([traceId(2)]);
    expect(await traceIds('session_id=s-1')).toEqual([traceId(1)]);
    expect(await traceIds('session_id=nobody')).toEqual([]);
    expect(await traceIds('status=error')).toEqual([traceId(1)]);
    expect(await traceIds('status=ok')).toEqual([traceId(2)]);
    expect(await traceIds('status=unset')).toEqual([8, 7, 6, 5, 4, 3].map(traceId));
    // Boundaries are inclusive: trace 1 lasts 100.5 ms, trace 2 5 ms, trace 3 3000 ms, ticks 4 to 8 ms.
    expect(await traceIds('min_duration_ms=100.5')).toEqual([traceId(3), traceId(1)]);
    expect(await traceIds('max_duration_ms=5')).toEqual([5, 4, 2].map(traceId));
    expect(await traceIds('min_duration_ms=5&max_duration_ms=100.5')).toEqual([8, 7, 6, 5, 2, 1].map(traceId));
    // The app filter takes an alias; api's traces are those with a span of api (1: its child; 3: through api-v2).
    expect(await traceIds('app=api-v2')).toEqual([traceId(3), traceId(1)]);
    expect(await traceIds(`from=${T0 + 1000}&to=${T0 + 2001}`)).toEqual([traceId(3), traceId(2)]);
    // Without from, the last 24 hours: the clock is two hours past T0, so all; a day later, none.
    expect(await traceIds(`to=${T0 + DAY}`)).toHaveLength(8);
    expect(await traceIds(`from=${T0 + DAY}`)).toEqual([]);
  });

  it('pages through ties without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<TraceItem> = await ok<Page<TraceItem>>(`/traces?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((d) => d.trace_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([8, 7, 6, 5, 4, 3, 2, 1].map(traceId));
    // Paging keeps the filters.
    const first = await ok<Page<TraceItem>>('/traces?status=unset&limit=4');
    const second = await ok<Page<TraceItem>>(`/traces?status=unset&limit=4&cursor=${first.next_cursor}`);
    expect([...first.data, ...second.data].map((d) => d.trace_id)).toEqual([8, 7, 6, 5, 4, 3].map(traceId));
    expect(second.next_cursor).toBeNull();
  });

  it('sorts by start, duration, span count and error count, both ways, paging through ties without gaps or repeats', async () => {
    // Descending; ties by trace id, descending too. Durations: 3 3000 ms, 1 100.5, 8 to 4 their number, 2 5 (tying 5).
    const expected: Record<string, number[]> = {
      start: [8, 7, 6, 5, 4, 3, 2, 1],
      duration: [3, 1, 8, 7, 6, 5, 2, 4],
      spans: [3, 1, 8, 7, 6, 5, 4, 2],
      errors: [1, 8, 7, 6, 5, 4, 3, 2],
    };
    for (const [sort, desc] of Object.entries(expected)) {
      for (const order of ['desc', 'asc'] as const) {
        const want = (order === 'desc' ? desc : [...desc].reverse()).map(traceId);
        expect([sort, order, await traceIds(`sort=${sort}&order=${order}`)]).toEqual([sort, order, want]);
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page: Page<TraceItem> = await ok<Page<TraceItem>>(
            `/traces?sort=${sort}&order=${order}&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
          );
          seen.push(...page.data.map((d) => d.trace_id));
          cursor = page.next_cursor;
        } while (cursor !== null);
        expect([sort, order, seen]).toEqual([sort, order, want]);
      }
    }
    // Filters apply under any sort.
    expect(await traceIds('sort=duration&status=unset&order=asc')).toEqual([4, 5, 6, 7, 8, 3].map(traceId));
  });

  it('refuses a cursor made under another sort or order with a 400 naming cursor', async () => {
    const { next_cursor: byDuration } = await ok<Page<TraceItem>>('/traces?sort=duration&limit=2');
    expect(byDuration).not.toBeNull();
    for (const query of ['sort=spans', 'sort=duration&order=asc', '']) {
      const res = await get<ErrorBody>(`/traces?${query}&limit=2&cursor=${byDuration}`);
      expect([query, res.status, res.body.error?.details?.field]).toEqual([query, 400, 'cursor']);
      expect(res.body.error.message).toMatch(/duration desc/);
    }
    // The default order's cursor is read by the default order, whether named or not.
    const { next_cursor: byStart } = await ok<Page<TraceItem>>('/traces?limit=2');
    expect(
      (await ok<Page<TraceItem>>(`/traces?sort=start&order=desc&limit=2&cursor=${byStart}`)).data.map(
        (d) => d.trace_id,
      ),
    ).toEqual([6, 5].map(traceId));
  });

  it('returns every span of a trace by start, as the span listing returns them', async () => {
    const trace = await ok<{
      trace_id: string;
      spans: Array<{ span_id: string; parent_span_id: string | null; events: unknown }>;
      truncated: boolean;
    }>(`/traces/${traceId(1).toUpperCase()}`);
    expect(trace.trace_id).toBe(traceId(1));
    expect(trace.truncated).toBe(false);
    expect(trace.spans.map((s) => [s.span_id, s.parent_span_id])).toEqual([
      [spanId(1, 1), null],
      [spanId(1, 2), spanId(1, 1)],
    ]);
    const listed = await ok<Page<{ span_id: string }>>(`/spans?trace_id=${traceId(1)}`);
    expect(trace.spans).toEqual([...listed.data].reverse());
    const missing = await get<ErrorBody>(`/traces/${'f'.repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('summarises Web Vitals: p75 per page by nearest rank, web.dev ratings at the boundaries, series, distribution', async () => {
    const v = await ok<Vitals>(`/vitals?app=web-app&from=${T0 - HOUR}&to=${T0 + 3 * HOUR}`);
    expect(v.thresholds).toEqual({
      LCP: { good: 2500, poor: 4000, unit: 'ms' },
      INP: { good: 200, poor: 500, unit: 'ms' },
      CLS: { good: 0.1, poor: 0.25, unit: '' },
      FCP: { good: 1800, poor: 3000, unit: 'ms' },
      TTFB: { good: 800, poor: 1800, unit: 'ms' },
    });
    expect(v).toMatchObject({
      bucket: 'hour',
      route: null,
      truncated: false,
      window: { from: new Date(T0 - HOUR).toISOString(), to: new Date(T0 + 3 * HOUR).toISOString() },
    });
    // LCP of /products/:id sorted: 1000 2500 3000 4000 5000; rank ceil(0.75 × 5) = 4 → 4000, needs improvement (not above 4000).
    // CLS: 0.1 0.25 0.26, rank 3 → 0.26, poor. INP of /checkout: 200 201, rank 2 → 201.
    expect(v.pages).toEqual([
      {
        route: '/products/:id',
        samples: 8,
        p75: { LCP: 4000, INP: null, CLS: 0.26, FCP: null, TTFB: null },
        rating: { LCP: 'needs_improvement', INP: null, CLS: 'poor', FCP: null, TTFB: null },
      },
      {
        route: '/checkout',
        samples: 2,
        p75: { LCP: null, INP: 201, CLS: null, FCP: null, TTFB: null },
        rating: { LCP: null, INP: 'needs_improvement', CLS: null, FCP: null, TTFB: null },
      },
      {
        route: '(unknown)',
        samples: 1,
        p75: { LCP: null, INP: null, CLS: null, FCP: null, TTFB: 800 },
        rating: { LCP: null, INP: null, CLS: null, FCP: null, TTFB: 'good' },
      },
    ]);
    // The whole window over every page: LCP and CLS as /products/:id alone has them; INP 200 201 → 201; TTFB 800.
    expect(v.overall).toEqual({
      samples: 11,
      p75: { LCP: 4000, INP: 201, CLS: 0.26, FCP: null, TTFB: 800 },
      rating: { LCP: 'needs_improvement', INP: 'needs_improvement', CLS: 'poor', FCP: null, TTFB: 'good' },
    });
    // Hour 9: 1000 2500 3000 → rank 3 → 3000; hour 10: 4000 5000 → rank 2 → 5000.
    expect(v.series.LCP).toEqual([
      { t: new Date(h9).toISOString(), p75: 3000, samples: 3 },
      { t: new Date(h10).toISOString(), p75: 5000, samples: 2 },
    ]);
    expect(v.series.FCP).toEqual([]);
    // Good up to and including the good threshold, poor only above the poor one.
    expect(v.distribution).toEqual({
      LCP: { good: 2, needs_improvement: 2, poor: 1 },
      INP: { good: 1, needs_improvement: 1, poor: 0 },
      CLS: { good: 1, needs_improvement: 1, poor: 1 },
      FCP: { good: 0, needs_improvement: 0, poor: 0 },
      TTFB: { good: 1, needs_improvement: 0, poor: 0 },
    });
  });

  it('narrows the series and distribution to a route, given as a pattern or a path; buckets by day; defaults to the last 7 days', async () => {
    const products = await ok<Vitals>(
      `/vitals?app=web-app&route=/products/7&bucket=day&from=${T0 - HOUR}&to=${T0 + 3 * HOUR}`,
    );
    expect(products.route).toBe('/products/:id');
    expect(products.pages.map((p) => p.route)).toEqual(['/products/:id', '/checkout', '(unknown)']);
    expect(products.series.LCP).toEqual([{ t: new Date(Date.UTC(2027, 2, 1)).toISOString(), p75: 4000, samples: 5 }]);
    // The window's figures follow the route too.
    const { route: _route, ...productFigures } = products.pages[0]!;
    expect(products.overall).toEqual(productFigures);
    expect(products.series.INP).toEqual([]);
    expect(products.distribution.INP).toEqual({ good: 0, needs_improvement: 0, poor: 0 });
    expect((await ok<Vitals>('/vitals?route=(unknown)')).distribution.TTFB).toEqual({
      good: 1,
      needs_improvement: 0,
      poor: 0,
    });

    // The last 7 days before the clock, bucketed by day: /old (10 days back) is out, the other app's /admin in.
    const all = await ok<Vitals>('/vitals');
    expect(all.window).toEqual({
      from: new Date(clock.now() - 7 * DAY).toISOString(),
      to: new Date(clock.now()).toISOString(),
    });
    expect(all.bucket).toBe('day');
    expect(all.pages.map((p) => p.route).sort()).toEqual(['(unknown)', '/admin', '/checkout', '/products/:id']);
    expect((await ok<Vitals>(`/vitals?from=${T0 - 11 * DAY}`)).pages.map((p) => p.route)).toContain('/old');
  });

  it('refuses bad parameters with a 400 naming the field, changing nothing', async () => {
    const snapshot = async () =>
      JSON.stringify(
        await Promise.all(
          ['spans', 'metric_points', 'api_keys'].map(
            async (table) =>
              (await sql`select * from ${sql.table(table)} order by 1`.execute(t.server.database.db)).rows,
          ),
        ),
      );
    const before = await snapshot();
    const cases: Array<[string, string]> = [
      ['/traces?trace_id=xyz', 'trace_id'],
      ['/traces?status=broken', 'status'],
      ['/traces?min_duration_ms=-1', 'min_duration_ms'],
      ['/traces?max_duration_ms=1e3', 'max_duration_ms'],
      ['/traces?limit=201', 'limit'],
      ['/traces?limit=0', 'limit'],
      ['/traces?cursor=nonsense', 'cursor'],
      ['/traces?sort=name', 'sort'],
      ['/traces?order=up', 'order'],
      ['/traces?app=nope', 'app'],
      [`/traces?service=${'x'.repeat(513)}`, 'service'],
      ['/traces?from=yesterday', 'from'],
      ['/traces?bogus=1', 'bogus'],
      ['/traces/not-a-trace', 'trace_id'],
      ['/vitals?bucket=week', 'bucket'],
      [`/vitals?from=${T0}&to=${T0}`, 'from'],
      ['/vitals?to=soon', 'to'],
      ['/vitals?route=', 'route'],
      ['/vitals?app=nope', 'app'],
      ['/vitals?limit=5', 'limit'],
    ];
    for (const [path, field] of cases) {
      const res = await get<ErrorBody>(path);
      expect([path, res.status, res.body.error?.details?.field]).toEqual([path, 400, field]);
      expect(res.body.error.message).toContain(field);
    }
    expect(await snapshot()).toBe(before);
  });

  it('serves typed clients (hc) whose answers are the declared schemas', async () => {
    const headers = { authorization: `Bearer ${t.controlKey}` };
    const traces = hc<TracesApi>(`${t.url}/control-plane/traces`, { headers });
    const page = await traces.index.$get({ query: { status: 'error' } });
    expect(page.status).toBe(200);
    if (page.status !== 200) return;
    const [first] = (await page.json()).data;
    expect(first?.root?.name).toBe('GET /products');
    const trace = await traces[':trace_id'].$get({ param: { trace_id: traceId(1) } });
    if (trace.status !== 200) throw new Error(`trace answered ${trace.status}`);
    expect((await trace.json()).spans.map((s) => s.name)).toEqual(['GET /products', 'db query']);
    const vitals = await hc<VitalsApi>(`${t.url}/control-plane/vitals`, { headers }).index.$get({
      query: { app: 'web-app', from: String(T0 - HOUR) },
    });
    if (vitals.status !== 200) throw new Error(`vitals answered ${vitals.status}`);
    expect((await vitals.json()).pages[0]?.p75.LCP).toBe(4000);
  });

  it('lets a read key view both, and no key neither', async () => {
    expect((await get<Page<TraceItem>>('/traces', readKey)).status).toBe(200);
    expect((await get<unknown>(`/traces/${traceId(2)}`, readKey)).status).toBe(200);
    expect((await get<Vitals>('/vitals', readKey)).status).toBe(200);
    for (const path of ['/traces', '/vitals']) {
      const res = await fetch(`${t.url}/control-plane${path}`);
      expect(res.status).toBe(401);
    }
  });

  it("counts the exceptions recorded in a trace as its errors: a click whose handler threw, a span's exception event", async () => {
    // Three days back, out of the default window of the listings above: read by its trace id only.
    const at = T0 - 3 * DAY;
    const click = {
      traceId: traceId(9),
      spanId: spanId(9, 1),
      name: 'click',
      kind: 1,
      startTimeUnixNano: nanos(at),
      endTimeUnixNano: nanos(at + 130),
      status: { code: 0 },
    };
    const recorded = {
      ...click,
      spanId: spanId(9, 2),
      parentSpanId: click.spanId,
      name: 'render cart',
      events: [
        {
          name: 'exception',
          timeUnixNano: nanos(at + 5),
          attributes: [str('exception.type', 'RangeError'), str('exception.message', 'bad index')],
        },
      ],
    };
    await post('/otlp/v1/traces', {
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'web-app')] },
          scopeSpans: [{ scope: { name: '@svc/test' }, spans: [click, recorded] }],
        },
      ],
    });
    const thrown = [
      str('exception.type', 'TypeError'),
      str('exception.message', "Cannot read properties of undefined (reading 'price')"),
      str('log.source', 'onerror'),
    ];
    const log = (body: string, attributes: ReturnType<typeof str>[]) => ({
      timeUnixNano: nanos(at + 4),
      severityNumber: 17,
      body: { stringValue: body },
      traceId: click.traceId,
      spanId: click.spanId,
      attributes,
    });
    await post('/otlp/v1/logs', {
      resourceLogs: [
        {
          resource: { attributes: [str('service.name', 'web-app')] },
          // The error the click's handler threw, and a console error that is no exception: the first counts, not the second.
          scopeLogs: [
            {
              scope: { name: '@svc/browser' },
              logRecords: [
                log("TypeError: Cannot read properties of undefined (reading 'price')", thrown),
                log('saving failed', [str('log.source', 'console')]),
              ],
            },
          ],
        },
      ],
    });
    const [listed] = (await ok<Page<TraceItem>>(`/traces?trace_id=${traceId(9)}`)).data;
    expect(listed).toMatchObject({ span_count: 2, error_count: 2 });
    expect((await ok<{ error_count: number }>(`/traces/${traceId(9)}`)).error_count).toBe(2);
    expect((await ok<{ error_count: number }>(`/traces/${traceId(2)}`)).error_count).toBe(0);
  });

  it('names each trace by what started it: a page load, a click on a named element, a click that changed the route, a request', async () => {
    const at = T0 - 4 * DAY;
    const roots: Array<[name: string, attributes: ReturnType<typeof str>[], label: string]> = [
      ['documentLoad', [str('url.full', 'https://shop.example.com/checkout?step=2')], 'load /checkout'],
      [
        'click',
        [str('event_type', 'click'), str('target_element', 'BUTTON'), str('target.name', 'Pay')],
        'click on Pay',
      ],
      [
        'Navigation: /cart',
        [str('event_type', 'click'), str('target_element', 'A'), str('target.name', 'Cart')],
        'click on Cart → /cart',
      ],
      // An element without a name the SDK could read (a field, masked text): its tag.
      ['submit', [str('event_type', 'submit'), str('target_element', 'FORM')], 'submit on form'],
      [
        'browser.fetch GET',
        [str('http.request.method', 'GET'), str('url.full', 'https://shop.example.com/api/cart?id=7')],
        'GET /api/cart',
      ],
      ['reconcile stock', [], 'reconcile stock'],
    ];
    const spans = roots.map(([name, attributes], i) => ({
      traceId: traceId(20 + i),
      spanId: spanId(20 + i, 1),
      name,
      kind: 1,
      startTimeUnixNano: nanos(at + i),
      endTimeUnixNano: nanos(at + i + 50),
      attributes,
      status: { code: 0 },
    }));
    await post('/otlp/v1/traces', {
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'web-app')] },
          scopeSpans: [{ scope: { name: '@svc/test' }, spans }],
        },
      ],
    });
    for (const [i, [name, , label]] of roots.entries()) {
      const [listed] = (await ok<Page<TraceItem>>(`/traces?trace_id=${traceId(20 + i)}`)).data;
      expect(listed!.root, name).toMatchObject({ name, label });
      expect((await ok<{ label: string }>(`/traces/${traceId(20 + i)}`)).label, name).toBe(label);
    }
  });
  it("keeps each trace's summary at ingest: a late root, an exception log before the spans, a retried batch", async () => {
    // Five days back, out of the default window: read by trace id only.
    const at = T0 - 5 * DAY;
    const one = async (query: string) => (await ok<Page<TraceItem>>(`/traces?${query}`)).data;
    const exception = {
      timeUnixNano: nanos(at + 20),
      severityNumber: 17,
      body: { stringValue: 'TypeError: x is undefined' },
      traceId: traceId(40),
      attributes: [str('exception.type', 'TypeError')],
    };
    await post('/otlp/v1/logs', {
      resourceLogs: [
        {
          resource: { attributes: [str('service.name', 'web-app')] },
          scopeLogs: [{ scope: { name: '@svc/browser' }, logRecords: [exception] }],
        },
      ],
    });
    // A log record alone is no trace to list.
    expect(await one(`trace_id=${traceId(40)}`)).toEqual([]);
    const child: SpanSpec = { trace: 40, span: 2, parent: 1, name: 'fetch cart', startMs: at + 10, endMs: at + 30 };
    await post('/otlp/v1/traces', spansBody([child]));
    expect(await one(`trace_id=${traceId(40)}`)).toMatchObject([
      { root: { span_id: spanId(40, 2) }, span_count: 1, error_count: 1, duration_ms: 20 },
    ]);
    // The parentless span arrives last (a page load ends after the requests it made): it becomes the root.
    const root: SpanSpec = { trace: 40, span: 1, name: 'documentLoad', service: 'api', startMs: at, endMs: at + 50 };
    for (let i = 0; i < 2; i++) await post('/otlp/v1/traces', spansBody([root, child]));
    const expected = {
      root: { name: 'documentLoad', service: 'api', span_id: spanId(40, 1) },
      start: new Date(at).toISOString(),
      duration_ms: 50,
      span_count: 2,
      error_count: 1,
      services: ['api', 'web-app'],
    };
    expect(await one(`trace_id=${traceId(40)}`)).toMatchObject([expected]);
    expect(await one(`service=api&from=${at}&to=${at + 1}`)).toMatchObject([expected]);
  });

  it('counts concurrent writes to one trace exactly', async () => {
    const at = T0 - 6 * DAY;
    const batches = Array.from({ length: 12 }, (_, b) =>
      Array.from(
        { length: 5 },
        (_, i): SpanSpec => ({
          trace: 41,
          span: b * 5 + i + 1,
          ...(b + i > 0 && { parent: 1 }),
          name: `step ${b}`,
          startMs: at + b,
          endMs: at + 100 + b * 5 + i,
          status: i === 0 ? 2 : 1,
        }),
      ),
    );
    await Promise.all(batches.map((specs) => post('/otlp/v1/traces', spansBody(specs))));
    expect((await ok<Page<TraceItem>>(`/traces?trace_id=${traceId(41)}`)).data).toMatchObject([
      { root: { span_id: spanId(41, 1) }, span_count: 60, error_count: 12, duration_ms: 159 },
    ]);
  });

  it("the upgrade's backfill sums up stored spans as ingest did", async () => {
    const db = t.server.database.db;
    const summaries = async () =>
      (await db.selectFrom('trace_summaries').selectAll().orderBy('trace_id').execute()).map((r) => ({
        ...r,
        // Lists in any order: ingest keeps them as first seen, the backfill as the database finds them.
        services: (JSON.parse(r.services) as string[]).sort(),
        names: (JSON.parse(r.names) as string[]).sort(),
        app_ids: (JSON.parse(r.app_ids) as string[]).sort(),
      }));
    const kept = await summaries();
    await db.deleteFrom('trace_summaries').execute();
    await backfillTraceSummaries(db, kind);
    expect(await summaries()).toEqual(kept);
  });

  it('deletes the summaries with their spans', async () => {
    const later = { now: () => T0 + 400 * DAY };
    await applyRetention(t.server.database.db, later, 30);
    const { n } = await t.server.database.db
      .selectFrom('trace_summaries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', t.projectId)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(0);
    expect(await traceIds(`trace_id=${traceId(40)}`)).toEqual([]);
  });
});
