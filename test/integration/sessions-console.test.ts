import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention } from '../../server/src/index';
import { databaseKinds } from '../support/databases';
import { resourceAttrs, str, TRACE_ID } from '../support/otlp';
import { controlGet, expectBadRequests, startTestServer, type TestServer } from '../support/server';

/**
 * What the console's sessions page reads (docs/api.md, "Sessions for the console"), on the real server over HTTP, on
 * SQLite and PostgreSQL: environment, release, device, pages, errors and duration of each session folded from the OTLP
 * records the browser SDK sends; every filter, every sort in both orders with keyset paging across pages, a retried
 * batch counted once, the facets, and the 400s.
 */
const kinds = await databaseKinds();

const T0 = Date.UTC(2027, 4, 1, 9, 0, 0);
const SEC = 1000;
const MIN = 60 * SEC;

const UA = {
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  edgeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
};

type Attr = ReturnType<typeof str>;

/** A session as the SDK describes it in every batch's resource. */
interface Client {
  sessionId: string;
  env?: string;
  release?: string;
  ua?: string;
}

const resource = (s: Client) => ({
  attributes: [
    ...resourceAttrs('web-app', s.sessionId),
    ...(s.env ? [str('deployment.environment', s.env)] : []),
    ...(s.release ? [str('service.version', s.release)] : []),
    ...(s.ua ? [str('user_agent.original', s.ua)] : []),
  ],
});

interface SpanInput {
  atMs: number;
  name: string;
  url?: string;
  /** An interaction span (`event_type`), as the SDK's click and submit spans. */
  interaction?: boolean;
}

const spans = (s: Client, list: SpanInput[]) => ({
  resourceSpans: [
    {
      resource: resource(s),
      scopeSpans: [
        {
          scope: { name: '@svc/browser' },
          spans: list.map((sp) => ({
            traceId: TRACE_ID,
            spanId: randomBytes(8).toString('hex'),
            name: sp.name,
            kind: 1,
            startTimeUnixNano: `${sp.atMs}000000`,
            endTimeUnixNano: `${sp.atMs + 5}000000`,
            attributes: [
              str('session.id', s.sessionId),
              ...(sp.url ? [str('url.full', sp.url)] : []),
              ...(sp.interaction ? [str('event_type', 'click')] : []),
            ],
          })),
        },
      ],
    },
  ],
});

interface LogInput {
  atMs: number;
  severity: number;
  exception?: boolean;
  /** `log.record.uid`, as the SDK sets on every record: a retried record is then stored once. */
  uid?: string;
}

const logs = (s: Client, list: LogInput[]) => ({
  resourceLogs: [
    {
      resource: resource(s),
      scopeLogs: [
        {
          scope: { name: '@svc/browser' },
          logRecords: list.map((l) => ({
            timeUnixNano: `${l.atMs}000000`,
            severityNumber: l.severity,
            body: { stringValue: 'something happened' },
            attributes: [
              str('session.id', s.sessionId),
              ...(l.uid ? [str('log.record.uid', l.uid)] : []),
              ...(l.exception ? [str('exception.type', 'TypeError'), str('exception.message', 'x is undefined')] : []),
            ] as Attr[],
          })),
        },
      ],
    },
  ],
});

const vital = (s: Client, atMs: number, path: string) => ({
  resourceMetrics: [
    {
      resource: resource(s),
      scopeMetrics: [
        {
          scope: { name: '@svc/browser' },
          metrics: [
            {
              name: 'web_vital_lcp_ms',
              unit: 'ms',
              gauge: {
                dataPoints: [
                  {
                    timeUnixNano: `${atMs}000000`,
                    asDouble: 1800,
                    attributes: [str('session.id', s.sessionId), str('url.path', path)],
                  },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
});

interface Device {
  browser: string | null;
  browser_version: string | null;
  os: string | null;
  type: string | null;
}
interface SessionItem {
  session_id: string;
  first_seen: string;
  last_seen: string;
  duration_ms: number;
  env: string | null;
  release: string | null;
  pages: number;
  entry_url: string | null;
  urls: string[];
  errors: number;
  device: Device;
  counts: Record<string, number>;
}
type SessionPage = { data: SessionItem[]; next_cursor: string | null };

const SORTS = ['last_seen', 'first_seen', 'duration', 'errors'] as const;
const sortValue: Record<(typeof SORTS)[number], (s: SessionItem) => number> = {
  last_seen: (s) => Date.parse(s.last_seen),
  first_seen: (s) => Date.parse(s.first_seen),
  duration: (s) => s.duration_ms,
  errors: (s) => s.errors,
};

describe.each(kinds)('sessions for the console on %s', (kind) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(kind, { detection: false });
  });
  afterAll(() => t?.close());

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const get = async <T>(path: string) => {
    const res = await controlGet<T>(t, path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const ids = async (query: string) =>
    (await get<SessionPage>(`/sessions?limit=500&${query}`)).data.map((s) => s.session_id).sort();
  const session = (id: string) => get<SessionItem>(`/sessions/${id}`);

  const A: Client = { sessionId: 'con-a', env: 'prod', release: '1.0.0', ua: UA.chromeWindows };
  const B: Client = { sessionId: 'con-b', env: 'staging', release: '1.1.0', ua: UA.firefoxLinux };
  const C: Client = { sessionId: 'con-c', env: 'prod', release: '1.1.0', ua: UA.safariIphone };
  // Another OTLP sender: no environment, release or user agent.
  const D: Client = { sessionId: 'con-d' };

  it('folds environment, release, device, pages, errors and duration into each session from its records', async () => {
    await post(
      '/otlp/v1/traces',
      spans(A, [
        { atMs: T0, name: 'documentLoad', url: 'https://shop.example.com/?utm=mail#top' },
        // A request's url.full is not a page.
        { atMs: T0 + 10 * SEC, name: 'HTTP GET', url: 'https://api.example.com/items' },
        { atMs: T0 + MIN, name: 'click', url: 'https://shop.example.com/cart?step=1', interaction: true },
      ]),
    );
    await post(
      '/otlp/v1/logs',
      logs(A, [
        { atMs: T0 + 20 * SEC, severity: 17, exception: true, uid: 'a-1' },
        // console.error: ERROR without an exception.
        { atMs: T0 + 30 * SEC, severity: 17, uid: 'a-2' },
        { atMs: T0 + 40 * SEC, severity: 9, uid: 'a-3' },
      ]),
    );
    await post('/otlp/v1/metrics', vital(B, T0 + 5 * SEC, '/checkout'));
    await post(
      '/otlp/v1/traces',
      spans(B, [{ atMs: T0 + 15 * SEC, name: 'documentLoad', url: 'https://shop.example.com/checkout' }]),
    );
    await post(
      '/otlp/v1/traces',
      spans(C, [
        { atMs: T0 + 2 * MIN, name: 'documentLoad', url: 'https://shop.example.com/products/42' },
        // A client-side route change: the page it went to counts too.
        {
          atMs: T0 + 4 * MIN,
          name: 'Navigation: /products/43?ref=x',
          url: 'https://shop.example.com/products/42',
          interaction: true,
        },
      ]),
    );
    // An exception logged below ERROR still counts as an error.
    await post('/otlp/v1/logs', logs(C, [{ atMs: T0 + 3 * MIN, severity: 13, exception: true, uid: 'c-1' }]));
    await post('/otlp/v1/traces', spans(D, [{ atMs: T0 + 10 * MIN, name: 'work' }]));

    expect(await session('con-a')).toMatchObject({
      env: 'prod',
      release: '1.0.0',
      device: { browser: 'Chrome', browser_version: '124', os: 'Windows', type: 'desktop' },
      urls: ['/', '/cart'],
      pages: 2,
      entry_url: '/',
      errors: 2,
      // From the first record's time to the last's.
      duration_ms: MIN,
      counts: { spans: 3, logs: 3 },
    });
    expect(await session('con-b')).toMatchObject({
      env: 'staging',
      release: '1.1.0',
      device: { browser: 'Firefox', browser_version: '126', os: 'Linux', type: 'desktop' },
      // The Web Vitals point came first.
      urls: ['/checkout'],
      entry_url: '/checkout',
      errors: 0,
    });
    expect(await session('con-c')).toMatchObject({
      device: { browser: 'Safari', browser_version: '17', os: 'iOS', type: 'mobile' },
      urls: ['/products/42', '/products/43'],
      pages: 2,
      entry_url: '/products/42',
      errors: 1,
    });
    expect(await session('con-d')).toMatchObject({
      env: null,
      release: null,
      device: { browser: null, browser_version: null, os: null, type: null },
      urls: [],
      pages: 0,
      entry_url: null,
      errors: 0,
      duration_ms: 0,
    });
    // The listing's items carry the same fields.
    const listed = (await get<SessionPage>('/sessions?limit=500')).data.find((s) => s.session_id === 'con-a');
    const detail = (await session('con-a')) as SessionItem & { replays: unknown };
    expect({ ...listed, replays: detail.replays }).toEqual(detail);
  });

  it('keeps pages across batches in the order first seen, bounded, with the earliest page as the entry', async () => {
    const E: Client = { sessionId: 'con-e', env: 'prod', release: '1.0.0', ua: UA.edgeMac };
    await post(
      '/otlp/v1/traces',
      spans(E, [
        { atMs: T0 + 30 * SEC, name: 'click', url: 'https://shop.example.com/b', interaction: true },
        { atMs: T0 + 20 * SEC, name: 'documentLoad', url: 'https://shop.example.com/a' },
      ]),
    );
    // A later batch repeats a page and adds one; a batch sent late (persisted on a previous page) shows an earlier one.
    await post(
      '/otlp/v1/traces',
      spans(E, [
        { atMs: T0 + 40 * SEC, name: 'click', url: 'https://shop.example.com/b', interaction: true },
        { atMs: T0 + 50 * SEC, name: 'click', url: 'https://shop.example.com/c', interaction: true },
      ]),
    );
    await post('/otlp/v1/metrics', vital(E, T0 + 10 * SEC, '/landing'));
    expect(await session('con-e')).toMatchObject({
      urls: ['/a', '/b', '/c', '/landing'],
      pages: 4,
      entry_url: '/landing',
      device: { browser: 'Edge', os: 'macOS', type: 'desktop' },
    });

    // At most 50 pages: the first seen are kept.
    const F: Client = { sessionId: 'con-f' };
    const page = (i: number) => ({
      atMs: T0 + i * SEC,
      name: 'click',
      url: `https://shop.example.com/p${i}`,
      interaction: true,
    });
    await post(
      '/otlp/v1/traces',
      spans(
        F,
        Array.from({ length: 30 }, (_, i) => page(i)),
      ),
    );
    await post(
      '/otlp/v1/traces',
      spans(
        F,
        Array.from({ length: 30 }, (_, i) => page(i + 30)),
      ),
    );
    const f = await session('con-f');
    expect(f.pages).toBe(50);
    expect(f.urls).toEqual(Array.from({ length: 50 }, (_, i) => `/p${i}`));
  });

  it('counts a retried batch once', async () => {
    const G: Client = { sessionId: 'con-g', env: 'prod' };
    const batch = logs(G, [
      { atMs: T0 + SEC, severity: 17, exception: true, uid: 'g-1' },
      { atMs: T0 + 2 * SEC, severity: 21, uid: 'g-2' },
    ]);
    await post('/otlp/v1/logs', batch);
    await post('/otlp/v1/logs', batch);
    // A batch with one record already stored and one new.
    await post(
      '/otlp/v1/logs',
      logs(G, [
        { atMs: T0 + 2 * SEC, severity: 21, uid: 'g-2' },
        { atMs: T0 + 3 * SEC, severity: 18, uid: 'g-3' },
      ]),
    );
    expect(await session('con-g')).toMatchObject({ errors: 3, counts: { logs: 3 } });
  });

  it('filters by environment, release, browser, page, errors, duration, app, time, user and attributes', async () => {
    expect(await ids('env=prod')).toEqual(['con-a', 'con-c', 'con-e', 'con-g']);
    expect(await ids('env=staging')).toEqual(['con-b']);
    expect(await ids('env=Prod')).toEqual([]);
    expect(await ids('release=1.1.0')).toEqual(['con-b', 'con-c']);
    expect(await ids('browser=Firefox')).toEqual(['con-b']);
    expect(await ids('browser=Safari')).toEqual(['con-c']);
    expect(await ids('url=cart')).toEqual(['con-a']);
    expect(await ids('url=PRODUCTS%2F4')).toEqual(['con-c']);
    expect(await ids('url=%2Fp4')).toEqual(['con-f']);
    // Any page a session showed, also past the 50 its listing keeps.
    expect(await ids('url=%2Fp59')).toEqual(['con-f']);
    // LIKE's wildcards are plain characters here.
    expect(await ids('url=%25')).toEqual([]);
    expect(await ids('url=_')).toEqual([]);
    expect(await ids('url=utm')).toEqual([]);
    expect(await ids('has_errors=true')).toEqual(['con-a', 'con-c', 'con-g']);
    expect(await ids('has_errors=false')).toEqual(['con-b', 'con-d', 'con-e', 'con-f']);
    expect(await ids(`min_duration_ms=${MIN}`)).toEqual(['con-a', 'con-c']);
    expect(await ids(`min_duration_ms=${MIN}&max_duration_ms=${MIN}`)).toEqual(['con-a']);
    expect(await ids('max_duration_ms=0')).toEqual(['con-d']);
    expect(await ids(`min_duration_ms=${40 * SEC}&max_duration_ms=${59 * SEC}`)).toEqual(['con-e', 'con-f']);
    expect(await ids('has_errors=true&env=prod&release=1.1.0&browser=Safari&url=products')).toEqual(['con-c']);
    expect(await ids('app=web-app&has_errors=false&env=staging')).toEqual(['con-b']);
    expect(await ids('app=web-app&from=' + (T0 + 5 * MIN) + '&to=' + (T0 + 11 * MIN))).toEqual(['con-d']);
    expect(await ids('user_id=nobody&env=prod')).toEqual([]);
    expect(await ids('attr.plan=pro&env=prod')).toEqual([]);
  });

  it('sorts by each key in both orders, and pages through each without gaps or repeats', async () => {
    // More sessions, with ties on every key: the session id breaks them.
    for (let i = 0; i < 7; i++) {
      const s: Client = { sessionId: `con-tie-${i}`, env: 'tie' };
      await post('/otlp/v1/logs', logs(s, [{ atMs: T0 + 20 * MIN, severity: i % 2 === 0 ? 17 : 9, uid: `tie-${i}` }]));
    }
    const all = (await get<SessionPage>('/sessions?limit=500')).data;
    expect(all).toHaveLength(14);
    for (const sort of SORTS) {
      for (const order of ['desc', 'asc'] as const) {
        const key = sortValue[sort];
        const sign = order === 'desc' ? -1 : 1;
        const expected = [...all]
          .sort(
            (a, b) =>
              sign * (key(a) - key(b)) ||
              sign * (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0),
          )
          .map((s) => s.session_id);
        const query = sort === 'last_seen' && order === 'desc' ? '' : `sort=${sort}&order=${order}&`;
        expect(
          (await get<SessionPage>(`/sessions?${query}limit=500`)).data.map((s) => s.session_id),
          `${sort} ${order}`,
        ).toEqual(expected);

        const paged: string[] = [];
        let cursor: string | null = null;
        do {
          const page: SessionPage = await get<SessionPage>(
            `/sessions?${query}limit=3${cursor ? `&cursor=${cursor}` : ''}`,
          );
          expect(page.data.length).toBeLessThanOrEqual(3);
          paged.push(...page.data.map((s) => s.session_id));
          cursor = page.next_cursor;
        } while (cursor);
        expect(paged, `${sort} ${order} paged`).toEqual(expected);
      }
    }
    // Paging with a filter keeps to it.
    const first = await get<SessionPage>('/sessions?env=tie&sort=errors&limit=4');
    const second = await get<SessionPage>(`/sessions?env=tie&sort=errors&limit=4&cursor=${first.next_cursor}`);
    expect([...first.data, ...second.data].map((s) => s.session_id)).toEqual([
      'con-tie-6',
      'con-tie-4',
      'con-tie-2',
      'con-tie-0',
      'con-tie-5',
      'con-tie-3',
      'con-tie-1',
    ]);
    expect(second.next_cursor).toBeNull();
  });

  it('lists the values the filters can take', async () => {
    const all = {
      envs: ['prod', 'staging', 'tie'],
      releases: ['1.0.0', '1.1.0'],
      browsers: ['Chrome', 'Edge', 'Firefox', 'Safari'],
      apps: ['web-app'],
    };
    expect(await get('/sessions/facets')).toEqual(all);
    expect(await get('/sessions/facets?app=web-app')).toEqual(all);
    expect(await get(`/sessions/facets?from=${T0 - MIN}`)).toEqual(all);
    // Only sessions whose activity overlaps the window.
    expect(await get(`/sessions/facets?app=web-app&from=${T0 + 2 * MIN}&to=${T0 + 5 * MIN}`)).toEqual({
      envs: ['prod'],
      releases: ['1.1.0'],
      browsers: ['Safari'],
      apps: ['web-app'],
    });
    // Since a start (index seeks per value) and since it for the one app (the sessions in range read): the same.
    for (const since of [T0, T0 + 2 * MIN, T0 + 4 * MIN, T0 + 6 * MIN]) {
      expect(await get(`/sessions/facets?from=${since}`)).toEqual(
        await get(`/sessions/facets?app=web-app&from=${since}`),
      );
    }
    expect(await get(`/sessions/facets?from=${T0 + 60 * MIN}`)).toEqual({
      envs: [],
      releases: [],
      browsers: [],
      apps: [],
    });
  });

  it('refuses bad parameters with a 400 naming the field, and changes nothing', async () => {
    const before = await get<SessionPage>('/sessions?limit=500');
    const facets = await get('/sessions/facets');
    const byErrors = await get<SessionPage>('/sessions?sort=errors&limit=2');
    const cases: [string, string][] = [
      ['/sessions?sort=pages', 'sort'],
      ['/sessions?order=up', 'order'],
      ['/sessions?has_errors=yes', 'has_errors'],
      ['/sessions?min_duration_ms=-1', 'min_duration_ms'],
      ['/sessions?max_duration_ms=1.5', 'max_duration_ms'],
      ['/sessions?min_duration_ms=abc', 'min_duration_ms'],
      ['/sessions?url=', 'url'],
      [`/sessions?url=${'u'.repeat(257)}`, 'url'],
      ['/sessions?env=', 'env'],
      [`/sessions?release=${'r'.repeat(257)}`, 'release'],
      ['/sessions?browser=', 'browser'],
      ['/sessions?cursor=nonsense', 'cursor'],
      // A cursor of another sort or order would skip or repeat sessions.
      [`/sessions?cursor=${byErrors.next_cursor}`, 'cursor'],
      [`/sessions?sort=errors&order=asc&cursor=${byErrors.next_cursor}`, 'cursor'],
      [`/sessions?sort=duration&cursor=${byErrors.next_cursor}`, 'cursor'],
      ['/sessions/facets?from=yesterday', 'from'],
      ['/sessions/facets?app=nope', 'app'],
      ['/sessions/facets?env=prod', 'env'],
    ];
    await expectBadRequests(t, cases);
    expect(await get<SessionPage>('/sessions?limit=500')).toEqual(before);
    expect(await get('/sessions/facets')).toEqual(facets);
    expect((await fetch(`${t.url}/control-plane/sessions/facets`)).status).toBe(401);
  });

  it('deletes the page paths with their sessions', async () => {
    const db = t.server.database.db;
    await applyRetention(db, { now: () => Date.now() + 400 * 86_400_000 }, 30);
    for (const table of ['session_pages', 'page_paths'] as const) {
      const { n } = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n), table).toBe(0);
    }
    expect(await ids('url=cart')).toEqual([]);
  });
});
