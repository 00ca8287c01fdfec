import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { chromeStack } from '../support/error-logs';
import type { IssuePage } from '../support/issues';
import { str, TRACE_ID } from '../support/otlp';
import { controlGet, expectBadRequests, startTestServer, type TestServer } from '../support/server';

/**
 * The server side of user identity and sampling (docs/query-api.md, "Users, attributes and sampling"), on the real
 * server over HTTP, on SQLite and PostgreSQL: OTLP records carrying `user.*` and `session.attributes.*`, resources
 * carrying `svc.sample_rate` and `svc.replay.mode`, as the browser SDK sends them; sessions found by user and
 * attribute, the other listings filtered by user, the sampling figures (a retried batch counted once), and the 400s
 * for bad parameters.
 */
const kinds = await databaseKinds();

const T0 = Date.UTC(2027, 2, 1, 9, 0, 0);
const HOUR = 3_600_000;

type Attr = ReturnType<typeof str>;
type Value = string | number | boolean;
const attr = (key: string, v: Value): Attr =>
  ({
    key,
    value:
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'boolean'
          ? { boolValue: v }
          : Number.isInteger(v)
            ? { intValue: v }
            : { doubleValue: v },
  }) as Attr;

interface SessionInput {
  sessionId: string;
  /** `svc.sample_rate` and `svc.replay.mode` of the resource, when sent. */
  rate?: number;
  mode?: string;
}
interface RecordInput {
  atMs: number;
  user?: { id: string; email?: string; name?: string };
  attributes?: Record<string, Value>;
  message?: string;
  severity?: number;
}

const resourceOf = (s: SessionInput) => ({
  attributes: [
    str('service.name', 'web-app'),
    str('session.id', s.sessionId),
    ...(s.rate === undefined ? [] : [attr('svc.sample_rate', s.rate)]),
    ...(s.mode === undefined ? [] : [str('svc.replay.mode', s.mode)]),
  ],
});

/** The record attributes the SDK adds: `session.id`, `user.*` after setUser, `session.attributes.*` after setAttributes. */
const recordAttrs = (s: SessionInput, r: RecordInput): Attr[] => [
  str('session.id', s.sessionId),
  ...(r.user ? [str('user.id', r.user.id)] : []),
  ...(r.user?.email ? [str('user.email', r.user.email)] : []),
  ...(r.user?.name ? [str('user.name', r.user.name)] : []),
  ...Object.entries(r.attributes ?? {}).map(([k, v]) => attr(`session.attributes.${k}`, v)),
];

const logs = (s: SessionInput, records: RecordInput[]) => ({
  resourceLogs: [
    {
      resource: resourceOf(s),
      scopeLogs: [
        {
          scope: { name: '@svc/browser' },
          logRecords: records.map((r) => ({
            timeUnixNano: `${r.atMs}000000`,
            severityNumber: r.severity ?? 9,
            body: { stringValue: r.message ?? 'hello' },
            attributes: [
              ...recordAttrs(s, r),
              ...(r.severity === 17
                ? [
                    str('exception.type', 'TypeError'),
                    str('exception.message', r.message!),
                    str('exception.stacktrace', chromeStack(r.message!)),
                  ]
                : []),
            ],
          })),
        },
      ],
    },
  ],
});

/** Spans with fixed ids, so posting the same body again is a retry the server recognises. */
const spans = (s: SessionInput, records: RecordInput[]) => ({
  resourceSpans: [
    {
      resource: resourceOf(s),
      scopeSpans: [
        {
          scope: { name: '@svc/browser' },
          spans: records.map((r) => ({
            traceId: TRACE_ID,
            spanId: randomBytes(8).toString('hex'),
            name: 'click',
            kind: 1,
            startTimeUnixNano: `${r.atMs}000000`,
            endTimeUnixNano: `${r.atMs + 5}000000`,
            attributes: recordAttrs(s, r),
          })),
        },
      ],
    },
  ],
});

const metrics = (s: SessionInput, r: RecordInput) => ({
  resourceMetrics: [
    {
      resource: resourceOf(s),
      scopeMetrics: [
        {
          scope: { name: '@svc/browser' },
          metrics: [
            {
              name: 'web_vital_lcp_ms',
              unit: 'ms',
              gauge: {
                dataPoints: [{ timeUnixNano: `${r.atMs}000000`, asDouble: 1200, attributes: recordAttrs(s, r) }],
              },
            },
          ],
        },
      ],
    },
  ],
});

interface SessionItem {
  session_id: string;
  user: { id: string; email?: string; name?: string } | null;
  attributes: Record<string, Value>;
  replay_mode: string | null;
  sample_rate: number | null;
  counts: Record<string, number>;
}
type SessionPage = { data: SessionItem[]; next_cursor: string | null };

describe.each(kinds)('session identity and sampling on %s', (kind) => {
  let t: TestServer;
  const clock = { now: () => T0 + 48 * HOUR };

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
  });
  afterAll(() => t?.close());

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as unknown;
  };
  const get = async <T>(path: string) => {
    const res = await controlGet<T>(t, path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const sessionIds = async (query: string) =>
    (await get<SessionPage>(`/sessions?${query}`)).data.map((s) => s.session_id).sort();
  const session = (id: string) => get<SessionItem>(`/sessions/${id}`);

  const A: SessionInput = { sessionId: 'sess-a', rate: 0.1, mode: 'full' };
  const B: SessionInput = { sessionId: 'sess-b', rate: 0.1, mode: 'on_error' };
  const C: SessionInput = { sessionId: 'sess-c', rate: 0.5, mode: 'off' };

  it('indexes the user, the custom attributes, the replay mode and the sample rate of each session from its records', async () => {
    const alice = { id: 'u-alice', email: 'alice@example.com', name: 'Alice' };
    await post(
      '/otlp/v1/logs',
      logs(A, [{ atMs: T0, user: alice, attributes: { plan: 'pro', tier: 3, beta: true, ratio: 0.5 } }]),
    );
    await post('/otlp/v1/traces', spans(B, [{ atMs: T0 + 1000, user: { id: 'u-bob' }, attributes: { plan: 'free' } }]));
    await post('/otlp/v1/metrics', metrics(C, { atMs: T0 + 2000 }));

    const a = await session('sess-a');
    expect(a).toMatchObject({
      user: alice,
      attributes: { plan: 'pro', tier: 3, beta: true, ratio: 0.5 },
      replay_mode: 'full',
      sample_rate: 0.1,
    });
    expect((await session('sess-b')).user).toEqual({ id: 'u-bob' });
    expect(await session('sess-c')).toMatchObject({ user: null, attributes: {}, replay_mode: 'off', sample_rate: 0.5 });

    // The listing's items carry the same fields, and filter on them.
    const [listed] = (await get<SessionPage>('/sessions?user_id=u-alice')).data;
    expect(listed).toMatchObject({
      session_id: 'sess-a',
      user: alice,
      attributes: { plan: 'pro', tier: 3, beta: true },
      replay_mode: 'full',
      sample_rate: 0.1,
    });
    expect(await sessionIds('user_id=u-bob')).toEqual(['sess-b']);
    expect(await sessionIds('user_id=u-nobody')).toEqual([]);
    expect(await sessionIds('attr.plan=pro')).toEqual(['sess-a']);
    expect(await sessionIds('attr.plan=free')).toEqual(['sess-b']);
    // Exact match on the value's text: numbers and booleans by how they are written.
    expect(await sessionIds('attr.tier=3')).toEqual(['sess-a']);
    expect(await sessionIds('attr.ratio=0.5')).toEqual(['sess-a']);
    expect(await sessionIds('attr.beta=true')).toEqual(['sess-a']);
    expect(await sessionIds('attr.plan=Pro')).toEqual([]);
    expect(await sessionIds('attr.plan=pr')).toEqual([]);
    // Repeatable: every filter must hold.
    expect(await sessionIds('attr.plan=pro&attr.tier=3&user_id=u-alice')).toEqual(['sess-a']);
    expect(await sessionIds('attr.plan=pro&attr.tier=4')).toEqual([]);
  });

  it('filters the logs, spans and issues listings by user', async () => {
    const logRows = await get<{ data: { session_id: string }[] }>('/logs?user_id=u-alice');
    expect(logRows.data.map((r) => r.session_id)).toEqual(['sess-a']);
    const spanRows = await get<{ data: { session_id: string }[] }>('/spans?user_id=u-bob');
    expect(spanRows.data.map((r) => r.session_id)).toEqual(['sess-b']);
    expect((await get<{ data: unknown[] }>('/metrics?user_id=u-alice')).data).toEqual([]);

    await post(
      '/otlp/v1/logs',
      logs(A, [{ atMs: T0 + 3000, user: { id: 'u-alice' }, severity: 17, message: 'alice broke the cart' }]),
    );
    await post(
      '/otlp/v1/logs',
      logs(B, [{ atMs: T0 + 4000, user: { id: 'u-bob' }, severity: 17, message: 'bob broke the checkout' }]),
    );
    await issueDetector(t, clock).runOnce();
    const messages = async (query: string) => (await get<IssuePage>(`/issues?${query}`)).data.map((i) => i.message);
    expect(await messages('user_id=u-alice')).toEqual(['alice broke the cart']);
    expect(await messages('user_id=u-bob')).toEqual(['bob broke the checkout']);
    expect(await messages('user_id=u-nobody')).toEqual([]);
  });

  it('keeps the latest user and attributes by record time; a record without them changes nothing; bounds apply', async () => {
    const D: SessionInput = { sessionId: 'sess-d', rate: 1, mode: 'full' };
    await post('/otlp/v1/logs', logs(D, [{ atMs: T0 + 100, user: { id: 'u-anon' }, attributes: { plan: 'trial' } }]));
    // The user signs in mid-session: the newer record wins.
    await post(
      '/otlp/v1/logs',
      logs(D, [{ atMs: T0 + 300, user: { id: 'u-dana', email: 'dana@example.com' }, attributes: { plan: 'pro' } }]),
    );
    // A batch sent late (a retry, a record persisted on a previous page) does not undo it.
    await post(
      '/otlp/v1/traces',
      spans(D, [{ atMs: T0 + 200, user: { id: 'u-anon' }, attributes: { plan: 'trial' } }]),
    );
    // Records without a user or attributes (after clearUser) keep them.
    await post('/otlp/v1/logs', logs(D, [{ atMs: T0 + 400 }]));
    expect(await session('sess-d')).toMatchObject({
      user: { id: 'u-dana', email: 'dana@example.com' },
      attributes: { plan: 'pro' },
    });
    expect(await sessionIds('user_id=u-anon')).toEqual([]);
    expect(await sessionIds('user_id=u-dana')).toEqual(['sess-d']);

    // Within one batch, the latest record wins too.
    const E: SessionInput = { sessionId: 'sess-e' };
    await post(
      '/otlp/v1/logs',
      logs(E, [
        { atMs: T0 + 900, user: { id: 'u-late' } },
        { atMs: T0 + 500, user: { id: 'u-early' } },
      ]),
    );
    expect((await session('sess-e')).user).toEqual({ id: 'u-late' });

    // At most 32 attributes with keys of up to 64 safe characters and values of up to 256: the rest is ignored.
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]));
    const F: SessionInput = { sessionId: 'sess-f' };
    await post(
      '/otlp/v1/logs',
      logs(F, [
        { atMs: T0, user: { id: 'x'.repeat(257) }, attributes: { 'bad key': 'v', long: 'v'.repeat(257), ...many } },
      ]),
    );
    const f = await session('sess-f');
    expect(f.user).toBeNull();
    expect(Object.keys(f.attributes)).toHaveLength(32);
    expect(f.attributes).not.toHaveProperty('long');
    expect(f.attributes).not.toHaveProperty(['bad key']);
  });

  it('answers how much was sampled, counting each session once however often its batches were retried', async () => {
    const T1 = T0 + 24 * HOUR;
    const window = `from=${T1}&to=${T1 + HOUR}`;
    const sessions: SessionInput[] = [
      ...['full', 'full', 'full', 'on_error', 'on_error', 'on_error', 'on_error', 'on_error', 'off', 'off'].map(
        (mode, i) => ({ sessionId: `samp-${i}`, rate: 0.1, mode }),
      ),
      { sessionId: 'samp-half', rate: 0.5, mode: 'off' },
      // Another OTLP sender: no sampling attributes, counted as unsampled with an unknown replay mode.
      { sessionId: 'samp-plain' },
    ];
    const bodies = sessions.map((s, i) => spans(s, [{ atMs: T1 + i * 1000 }]));
    for (const body of bodies) await post('/otlp/v1/traces', body);
    // Two of the on-error sessions had an error, so their buffered replay was sent.
    for (const sessionId of ['samp-3', 'samp-4']) {
      const events = [{ type: 4, timestamp: T1, data: { href: 'https://shop.example.com/', width: 800, height: 600 } }];
      const chunk = {
        serviceName: 'web-app',
        sessionId,
        replayId: `r-${sessionId}`,
        seq: 0,
        startTs: T1,
        endTs: T1,
        eventCount: 1,
        encoding: 'json',
        data: JSON.stringify(events),
      };
      await post('/ingest/replay/chunk', chunk);
    }

    const expected = {
      sessions_received: 12,
      sessions_estimated: 103,
      sampled_share: Math.round((12 / 103) * 10_000) / 10_000,
      replay_modes: { full: 3, on_error: 5, off: 3, unknown: 1 },
      replays_kept_on_error: 2,
    };
    expect(await get(`/sessions/sampling?${window}`)).toEqual(expected);
    expect(await get(`/sessions/sampling?app=web-app&${window}`)).toEqual(expected);

    // The same batches again (an exporter's retry: every span is a duplicate), and a new batch of a known session.
    for (const body of bodies) await post('/otlp/v1/traces', body);
    await post('/otlp/v1/logs', logs(sessions[0]!, [{ atMs: T1 + 30_000 }]));
    expect(await get(`/sessions/sampling?${window}`)).toEqual(expected);

    const empty = await get(`/sessions/sampling?from=${T1 + 2 * HOUR}&to=${T1 + 3 * HOUR}`);
    expect(empty).toEqual({
      sessions_received: 0,
      sessions_estimated: 0,
      sampled_share: null,
      replay_modes: { full: 0, on_error: 0, off: 0, unknown: 0 },
      replays_kept_on_error: 0,
    });
  });

  it('refuses bad parameters with a 400 naming the field, and changes nothing', async () => {
    const before = await get<SessionPage>('/sessions?limit=500');
    const sampling = await get('/sessions/sampling');
    const nine = Array.from({ length: 9 }, (_, i) => `attr.k${i}=v`).join('&');
    const cases: [string, string][] = [
      ['/sessions?user_id=', 'user_id'],
      [`/sessions?user_id=${'u'.repeat(257)}`, 'user_id'],
      [`/sessions?${nine}`, 'attr.'],
      [`/sessions?attr.plan=${'p'.repeat(257)}`, 'attr.plan'],
      ['/sessions?attr.plan=', 'attr.plan'],
      [`/sessions?attr.${'k'.repeat(65)}=v`, `attr.${'k'.repeat(65)}`],
      ['/sessions?attr.bad%20key=v', 'attr.bad key'],
      ['/sessions?users=u-alice', 'users'],
      ['/issues?user_id=', 'user_id'],
      ['/logs?user_id=', 'user_id'],
      [`/spans?user_id=${'u'.repeat(257)}`, 'user_id'],
      ['/sessions/sampling?user_id=u-alice', 'user_id'],
      ['/sessions/sampling?from=yesterday', 'from'],
      ['/sessions/sampling?app=nope', 'app'],
    ];
    await expectBadRequests(t, cases);
    expect(await get<SessionPage>('/sessions?limit=500')).toEqual(before);
    expect(await get('/sessions/sampling')).toEqual(sampling);
    // The sampling figures need the control key like every control-plane route.
    const anonymous = await fetch(`${t.url}/control-plane/sessions/sampling`);
    expect(anonymous.status).toBe(401);
  });
});
