import { runInNewContext } from 'node:vm';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecipeStep, ReplayChunkData, ReplayChunkFields } from '../../wire/replay';
import { WORKER_SOURCE } from '../../src/replay/compression-worker';
import { chunkBody } from '../../src/replay/encode';
import { createKey, createProject, registerApp } from '../../server/src/index';
import { databaseKinds } from '../support/databases';
import { controlGet, startTestServer, type TestServer } from '../support/server';

const kinds = await databaseKinds();

/** A chunk with a `data` payload, as older SDKs send it. */
type DataChunk = ReplayChunkFields & ReplayChunkData;

const T0 = 1_700_000_000_000;
type Event = { type: number; timestamp: number; data: Record<string, unknown> };

/** A page load as rrweb records it: Meta, then a full snapshot of a page with one button. */
const pageLoad = (href: string, at: number): Event[] => [
  { type: 4, timestamp: at, data: { href, width: 1280, height: 720 } },
  {
    type: 2,
    timestamp: at + 1,
    data: {
      initialOffset: { top: 0, left: 0 },
      node: {
        type: 0,
        id: 1,
        childNodes: [
          {
            type: 2,
            id: 2,
            tagName: 'html',
            attributes: {},
            childNodes: [
              {
                type: 2,
                id: 3,
                tagName: 'body',
                attributes: {},
                childNodes: [
                  {
                    type: 2,
                    id: 4,
                    tagName: 'button',
                    attributes: {},
                    childNodes: [{ type: 3, id: 5, textContent: 'Order' }],
                  },
                ],
              },
            ],
          },
        ],
      },
    },
  },
];
const moves = (n: number, at: number): Event[] =>
  Array.from({ length: n }, (_, i) => ({
    type: 3,
    timestamp: at + i,
    data: { source: 1, positions: [{ x: i, y: i, id: 4, timeOffset: 0 }] },
  }));
const clickOn = (id: number, at: number): Event => ({
  type: 3,
  timestamp: at,
  data: { source: 2, type: 2, id, x: 5, y: 5 },
});

function chunk(
  sessionId: string,
  replayId: string,
  seq: number,
  events: Event[],
  encoding: 'gzip' | 'json' = 'gzip',
): DataChunk {
  const json = JSON.stringify(events);
  return {
    serviceName: 'web-app',
    sessionId,
    replayId,
    seq,
    startTs: events[0]!.timestamp,
    endTs: events[events.length - 1]!.timestamp,
    eventCount: events.length,
    encoding,
    data: encoding === 'gzip' ? gzipSync(json).toString('base64') : json,
  };
}

/** `count` list items added under node 3 as rrweb records them: consecutive ids, each before the one added before it. */
const listItems = (firstId: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    parentId: 3,
    nextId: i === 0 ? null : firstId + 2 * (i - 1),
    node: {
      type: 2,
      id: firstId + 2 * i,
      tagName: 'li',
      attributes: { 'data-id': String(i) },
      childNodes: [{ type: 3, id: firstId + 2 * i + 1, textContent: `Item ${i}` }],
    },
  }));

/** What the SDK's worker makes of these events (src/replay/compression-worker.ts, run as a worker runs it). */
const workerData = (events: Event[]): Promise<string> =>
  new Promise((resolve) => {
    const scope: Record<string, unknown> = {
      Blob,
      Response,
      CompressionStream,
      Uint8Array,
      String,
      btoa,
      postMessage: ({ d }: { d: string }) => resolve(d),
    };
    runInNewContext(WORKER_SOURCE, scope);
    (scope.onmessage as (event: { data: unknown }) => void)({
      data: { i: 0, e: events.map((event) => JSON.stringify(event)) },
    });
  });

const recipeStep = (ts: number, path: string, body: string): RecipeStep => ({
  ts,
  method: 'GET',
  url: `http://shop.test${path}`,
  requestHeaders: { authorization: '[REDACTED]' },
  status: 200,
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: body,
  durationMs: 5,
});

/**
 * Session `sess-a`: replay `r-early` (seq 0, 1 and 3: seq 2 never arrived) and replay `r-late`, which started later but
 * whose chunks are sent first, out of order, in both encodings, one of them twice.
 */
const early = [
  chunk('sess-a', 'r-early', 0, [...pageLoad('http://shop.test/cart', T0), clickOn(5, T0 + 5)]),
  chunk('sess-a', 'r-early', 1, moves(3, T0 + 10), 'json'),
  chunk('sess-a', 'r-early', 3, moves(2, T0 + 30)),
];
const late = [
  chunk('sess-a', 'r-late', 0, pageLoad('http://shop.test/done', T0 + 1000), 'json'),
  chunk('sess-a', 'r-late', 1, moves(2, T0 + 1010)),
];
const decoded = (c: DataChunk): Event[] =>
  JSON.parse(c.encoding === 'gzip' ? gunzipSync(Buffer.from(c.data, 'base64')).toString('utf8') : c.data) as Event[];

interface ReplayPage {
  session_id: string;
  events: Event[];
  chunks: Array<{ replay_id: string; seq: number; start_time: string; end_time: string; event_count: number }>;
  gaps: Array<{ replay_id: string; missing_seq: number[]; missing_count: number }>;
  next_cursor: string | null;
}
type ErrorBody = { error: { code: string; details?: { field: string } } };

describe.each(kinds)("one session's replay, recipes and Playwright export on %s", (kind) => {
  let t: TestServer;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, `POST ${path}`).toBe(200);
    return (await res.json()) as { accepted: number; duplicates: number };
  };
  const getText = (path: string, key = t.controlKey) =>
    fetch(`${t.url}/control-plane${path}`, { headers: { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    t = await startTestServer(kind);
    for (const c of [late[1]!, late[0]!, early[2]!, early[0]!, early[1]!]) await post('/ingest/replay/chunk', c);
    expect(await post('/ingest/replay/chunk', early[1]!)).toEqual({ accepted: 0, duplicates: 1 });
    await post('/ingest/replay/recipes', {
      serviceName: 'web-app',
      sessionId: 'sess-a',
      replayId: 'r-early',
      steps: [recipeStep(T0 + 6, '/api/cart', '[1]'), recipeStep(T0 + 2, '/api/user', '{}')],
    });
    await post('/ingest/replay/recipes', {
      serviceName: 'web-app',
      sessionId: 'sess-a',
      replayId: 'r-late',
      steps: [recipeStep(T0 + 1005, '/api/cart', '[2]')],
    });
  });
  afterAll(() => t?.close());

  it('describes the session and its replays in the order they started', async () => {
    const { status, body } = await controlGet<Record<string, unknown>>(t, '/sessions/sess-a');
    expect(status).toBe(200);
    expect(body).toEqual({
      session_id: 'sess-a',
      app: 'web-app',
      first_seen: new Date(T0).toISOString(),
      last_seen: new Date(T0 + 1011).toISOString(),
      counts: { spans: 0, logs: 0, metric_points: 0, replay_chunks: 5, recipes: 3 },
      // Replay chunks name no user, attributes or sampling: those come from OTLP records (sessions-identity.test.ts).
      user: null,
      attributes: {},
      replay_mode: null,
      sample_rate: null,
      duration_ms: 1011,
      // Nor environment, release, user agent, pages or errors (sessions-console.test.ts).
      env: null,
      release: null,
      pages: 0,
      entry_url: null,
      urls: [],
      errors: 0,
      device: { browser: null, browser_version: null, os: null, type: null },
      // Nor the Playwright test it was recorded in (test-runs-api.test.ts).
      test: null,
      replays: [
        {
          replay_id: 'r-early',
          start_time: new Date(T0).toISOString(),
          end_time: new Date(T0 + 31).toISOString(),
          chunk_count: 3,
          event_count: 8,
          first_url: 'http://shop.test/cart',
        },
        {
          replay_id: 'r-late',
          start_time: new Date(T0 + 1000).toISOString(),
          end_time: new Date(T0 + 1011).toISOString(),
          chunk_count: 2,
          event_count: 4,
          first_url: 'http://shop.test/done',
        },
      ],
    });
  });

  it('returns the events decompressed in playback order, each chunk once, with the missing seqs', async () => {
    const { status, body } = await controlGet<ReplayPage>(t, '/sessions/sess-a/replay');
    expect(status).toBe(200);
    const inOrder = [...early, ...late];
    expect(body.events).toEqual(inOrder.flatMap(decoded));
    expect(body.chunks.map((c) => `${c.replay_id}/${c.seq}`)).toEqual([
      'r-early/0',
      'r-early/1',
      'r-early/3',
      'r-late/0',
      'r-late/1',
    ]);
    expect(body.chunks[0]).toEqual({
      replay_id: 'r-early',
      seq: 0,
      start_time: new Date(T0).toISOString(),
      end_time: new Date(T0 + 5).toISOString(),
      event_count: 3,
    });
    expect(body.gaps).toEqual([{ replay_id: 'r-early', missing_seq: [2], missing_count: 1 }]);
    expect(body.next_cursor).toBeNull();
  });

  it('pages the replay by chunks with a cursor', async () => {
    const whole = (await controlGet<ReplayPage>(t, '/sessions/sess-a/replay')).body;
    const events: Event[] = [];
    const sizes: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res: { body: ReplayPage } = await controlGet<ReplayPage>(
        t,
        `/sessions/sess-a/replay?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      events.push(...res.body.events);
      sizes.push(res.body.chunks.length);
      expect(res.body.gaps).toEqual(whole.gaps);
      cursor = res.body.next_cursor;
    }
    expect(sizes).toEqual([2, 2, 1]);
    expect(events).toEqual(whole.events);
  });

  it("lists a replay's missing seqs up to a cap, and counts them all", async () => {
    await post('/ingest/replay/chunk', chunk('sess-gap', 'r', 5000, moves(1, T0)));
    const { body } = await controlGet<ReplayPage>(t, '/sessions/sess-gap/replay');
    expect(body.gaps).toHaveLength(1);
    expect(body.gaps[0]!.missing_count).toBe(5000);
    expect(body.gaps[0]!.missing_seq).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });

  it('returns the recipe steps oldest first, paged', async () => {
    const all = await controlGet(t, '/sessions/sess-a/recipes');
    expect(all.status).toBe(200);
    expect(all.body.data.map((s) => [s.url, s.replay_id, s.responseBody])).toEqual([
      ['http://shop.test/api/user', 'r-early', '{}'],
      ['http://shop.test/api/cart', 'r-early', '[1]'],
      ['http://shop.test/api/cart', 'r-late', '[2]'],
    ]);
    expect(all.body.data[0]).toMatchObject({
      method: 'GET',
      status: 200,
      session_id: 'sess-a',
      trace_id: null,
      requestHeaders: { authorization: '[REDACTED]' },
    });
    const first = await controlGet(t, '/sessions/sess-a/recipes?limit=2');
    expect(first.body.data).toHaveLength(2);
    const second = await controlGet(t, `/sessions/sess-a/recipes?limit=2&cursor=${first.body.next_cursor}`);
    expect([...first.body.data, ...second.body.data]).toEqual(all.body.data);
    expect(second.body.next_cursor).toBeNull();
  });

  it('exports the session as a Playwright spec', async () => {
    const res = await getText('/sessions/sess-a/playwright');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="session-sess-a.spec.ts"');
    const spec = await res.text();
    expect(spec).toContain("const baseURL = process.env.SVC_REPLAY_BASE_URL ?? 'http://shop.test';");
    expect(spec).toContain(
      [
        "  await page.goto('/cart');",
        "  await page.getByRole('button', { name: 'Order', exact: true }).click();",
        "  await page.waitForURL('/done');",
        '});',
      ].join('\n'),
    );
    expect(spec).toContain(
      "  'GET /api/cart': [\n    { status: 200, headers: { 'content-type': 'application/json' }, body: '[1]' },\n    { status: 200, headers: { 'content-type': 'application/json' }, body: '[2]' },\n  ],",
    );
    const elsewhere = await (await getText('/sessions/sess-a/playwright?base_url=http://localhost:4000/')).text();
    expect(elsewhere).toContain("const baseURL = process.env.SVC_REPLAY_BASE_URL ?? 'http://localhost:4000';");
  });

  it('answers 404 for a session without a recorded page load to export', async () => {
    const res = await getText('/sessions/sess-gap/playwright');
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.code).toBe('not_found');
  });

  it('rejects bad parameters naming them', async () => {
    const recipesCursor = (await controlGet(t, '/sessions/sess-a/recipes?limit=1')).body.next_cursor!;
    for (const [path, field] of [
      ['/sessions/sess-a/replay?limit=0', 'limit'],
      ['/sessions/sess-a/replay?limit=201', 'limit'],
      ['/sessions/sess-a/replay?cursor=bogus', 'cursor'],
      [`/sessions/sess-a/replay?cursor=${recipesCursor}`, 'cursor'],
      ['/sessions/sess-a/replay?session_id=x', 'session_id'],
      ['/sessions/sess-a/recipes?limit=1001', 'limit'],
      ['/sessions/sess-a/recipes?cursor=bogus', 'cursor'],
      ['/sessions/sess-a?limit=1', 'limit'],
      ['/sessions/sess-a/playwright?base_url=ftp://shop.test', 'base_url'],
      ['/sessions/sess-a/playwright?base_url=http://localhost:4000/app', 'base_url'],
      ['/sessions/sess-a/playwright?base_url=localhost', 'base_url'],
      ['/sessions/sess%00a/replay', 'id'],
    ] as const) {
      const res = await controlGet<ErrorBody>(t, path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.details?.field, path).toBe(field);
    }
  });

  it('answers 404 for an unknown session, and for a session of another project', async () => {
    const db = t.server.database.db;
    const clock = { now: () => Date.now() };
    const tenantId = (
      await db.selectFrom('projects').select('tenant_id').where('id', '=', t.projectId).executeTakeFirstOrThrow()
    ).tenant_id;
    const other = await createProject(db, clock, tenantId, 'other');
    await registerApp(db, clock, other, 'web-app');
    const otherView = { ...t, controlKey: (await createKey(db, clock, { projectId: other, scope: 'control' })).key };
    for (const suffix of ['', '/replay', '/recipes', '/playwright']) {
      for (const [view, id] of [
        [t, 'nope'],
        [otherView, 'sess-a'],
      ] as const) {
        const res = await controlGet<ErrorBody>(view, `/sessions/${id}${suffix}`);
        expect(res.status, `${id}${suffix}`).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    }
  });

  it('takes chunks as the SDK sends them (ids delta-encoded, base64 gzip, or inline), a retry once, and plays them back as recorded', async () => {
    const recorded = [
      ...pageLoad('http://shop.test/list', T0 + 5000),
      {
        type: 3,
        timestamp: T0 + 5002,
        data: { source: 0, texts: [], attributes: [], removes: [{ parentId: 3, id: 4 }], adds: listItems(6, 40) },
      },
      clickOn(7, T0 + 5003),
      { type: 5, timestamp: T0 + 5004, data: { tag: 'network', payload: { id: 12, url: 'http://shop.test/api' } } },
    ];
    const identity = { sessionId: 'sess-inline', replayId: 'r-inline', nextSeq: 2 };
    const at = recorded.map((e) => e.timestamp);
    const viaWorker = await workerData(recorded.slice(0, 3));
    const bodies = [
      chunkBody('web-app', identity, 0, at.slice(0, 3), viaWorker, true),
      chunkBody('web-app', identity, 1, at.slice(3), JSON.stringify(recorded.slice(3))),
    ];
    for (const body of bodies) {
      for (const expected of [
        { accepted: 1, duplicates: 0 },
        { accepted: 0, duplicates: 1 },
      ]) {
        const res = await fetch(`${t.url}/ingest/replay/chunk`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': t.ingestKey },
          body: gzipSync(body),
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual(expected);
      }
    }
    const page = (await controlGet<ReplayPage>(t, '/sessions/sess-inline/replay')).body;
    expect(page.events).toEqual(recorded);
    expect(page.chunks.map((c) => [c.seq, c.event_count])).toEqual([
      [0, 3],
      [1, 2],
    ]);
  });

  it('refuses a chunk with both events and data, an unknown ids, or events that are not event objects', async () => {
    const fields = {
      serviceName: 'web-app',
      sessionId: 'sess-bad',
      replayId: 'r1',
      seq: 0,
      startTs: T0,
      endTs: T0,
      eventCount: 1,
    };
    for (const [body, field] of [
      [{ ...fields, events: [{ type: 3 }], encoding: 'json', data: '[{}]' }, 'events'],
      [{ ...fields, events: [{ type: 3 }], ids: 'rle' }, 'ids'],
      [{ ...fields, events: [[]] }, 'events'],
      [{ ...fields, events: {} }, 'events'],
      [{ ...fields, events: [{ type: 3 }, { type: 3 }] }, 'eventCount'],
    ] as const) {
      const res = await fetch(`${t.url}/ingest/replay/chunk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as ErrorBody).error.details?.field).toBe(field);
    }
    expect((await getText('/sessions/sess-bad/replay')).status).toBe(404);
  });

  it('needs a control key', async () => {
    expect((await fetch(`${t.url}/control-plane/sessions/sess-a/replay`)).status).toBe(401);
    expect((await getText('/sessions/sess-a/replay', t.ingestKey)).status).toBe(403);
    expect((await getText('/sessions/sess-a/playwright', t.ingestKey)).status).toBe(403);
  });
});
