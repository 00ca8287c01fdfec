import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention, createKey, createProject, registerApp } from '../../server/src/index';
import { appDocument, appRoutes } from '../support/app-routes';
import { databaseKinds } from '../support/databases';
import { logsBody, traceBody } from '../support/otlp';
import { controlGet, startTestServer, type TestServer } from '../support/server';

const kinds = await databaseKinds();

const events = (n: number, from = 1_700_000_000_000) =>
  Array.from({ length: n }, (_, i) => ({
    type: 3,
    timestamp: from + i,
    data: { source: 1, positions: [{ x: i, y: i }] },
  }));

function chunk(seq: number, sessionId = 'sess-replay', encoding: 'gzip' | 'json' = 'gzip') {
  const ev = events(3, 1_700_000_000_000 + seq * 10);
  const json = JSON.stringify(ev);
  return {
    serviceName: 'web-app',
    sessionId,
    replayId: 'replay-1',
    seq,
    startTs: ev[0]!.timestamp,
    endTs: ev[2]!.timestamp,
    eventCount: ev.length,
    encoding,
    data: encoding === 'gzip' ? gzipSync(json).toString('base64') : json,
  };
}

const recipeStep = (i: number) => ({
  ts: 1_700_000_000_100 + i,
  method: 'post',
  url: `https://api.example.com/orders/${i}`,
  requestHeaders: { 'Content-Type': 'application/json', authorization: '[redacted]' },
  requestBody: '{"sku":"A1"}',
  status: 201,
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: '{"id":1}',
  durationMs: 42.5,
  traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`,
});

describe.each(kinds)('query API and replay on %s', (kind) => {
  let t: TestServer;
  const post = (path: string, body: unknown, key = t.ingestKey) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    t = await startTestServer(kind);
  });
  afterAll(() => t?.close());

  it('stores replay chunks once per (replay, seq) and returns their decoded events', async () => {
    for (const seq of [0, 1]) {
      const res = await post('/ingest/replay/chunk', chunk(seq, 'sess-replay', seq === 0 ? 'gzip' : 'json'));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ accepted: 1, duplicates: 0 });
    }
    const retry = await post('/ingest/replay/chunk', chunk(1));
    expect(await retry.json()).toEqual({ accepted: 0, duplicates: 1 });

    const { body } = await controlGet(t, '/replay/chunks?session_id=sess-replay');
    expect(body.data.map((c) => c.seq)).toEqual([1, 0]);
    expect(body.data[1]).toMatchObject({ replay_id: 'replay-1', event_count: 3, encoding: 'gzip', events: events(3) });
    const sessions = await controlGet(t, '/sessions');
    expect(sessions.body.data.find((s) => s.session_id === 'sess-replay')).toMatchObject({
      counts: { replay_chunks: 2 },
    });
  });

  it.each([
    ['missing replayId', { replayId: undefined }, 'replayId'],
    ['negative seq', { seq: -1 }, 'seq'],
    ['endTs before startTs', { endTs: 1 }, 'endTs'],
    ['an unknown encoding', { encoding: 'br' }, 'encoding'],
    ['data that is not gzip', { data: 'aGVsbG8=' }, 'data'],
    ['an event count that does not match', { eventCount: 4 }, 'eventCount'],
    ['a JSON payload that is not an array', { encoding: 'json', data: '{"a":1}' }, 'data'],
  ])('rejects a chunk with %s', async (_name, change, field) => {
    const res = await post('/ingest/replay/chunk', { ...chunk(9, 'sess-bad'), ...change });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; details: { field: string } } };
    expect(body.error.details.field).toBe(field);
    expect((await controlGet(t, '/replay/chunks?session_id=sess-bad')).body.data).toHaveLength(0);
  });

  it('stores recipe steps and finds them by trace id', async () => {
    const res = await post('/ingest/replay/recipes', {
      serviceName: 'web-app',
      sessionId: 'sess-recipe',
      replayId: 'replay-1',
      steps: [recipeStep(0), recipeStep(1)],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accepted: 2, duplicates: 0 });
    const { body } = await controlGet(t, `/recipes?trace_id=${'AB'.repeat(16)}`);
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toMatchObject({
      method: 'POST',
      url: 'https://api.example.com/orders/1',
      status: 201,
      durationMs: 42.5,
      requestHeaders: { 'content-type': 'application/json', authorization: '[redacted]' },
      session_id: 'sess-recipe',
      trace_id: 'ab'.repeat(16),
    });
  });

  it.each([
    ['no steps', { steps: [] }, 'steps'],
    ['a relative URL', { steps: [{ ...recipeStep(0), url: '/orders' }] }, 'steps[0].url'],
    ['a bad status', { steps: [{ ...recipeStep(0), status: 700 }] }, 'steps[0].status'],
    ['a non-string header', { steps: [{ ...recipeStep(0), requestHeaders: { a: 1 } }] }, 'steps[0].requestHeaders.a'],
    ['an oversized body', { steps: [{ ...recipeStep(0), responseBody: 'x'.repeat(70_000) }] }, 'steps[0].responseBody'],
  ])('rejects recipes with %s', async (_name, change, field) => {
    const res = await post('/ingest/replay/recipes', {
      serviceName: 'web-app',
      sessionId: 'sess-bad-recipe',
      replayId: 'r',
      ...change,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { details: { field: string } } }).error.details.field).toBe(field);
    expect((await controlGet(t, '/recipes?session_id=sess-bad-recipe')).body.data).toHaveLength(0);
  });

  it('pages newest first with a cursor and filters by time, session and trace', async () => {
    const spans = Array.from({ length: 7 }, (_, i) => ({
      sessionId: 'sess-page',
      spanId: `${(i + 100).toString(16).padStart(16, '0')}`,
      startMs: 1_800_000_000_000 + i,
    }));
    expect((await post('/otlp/v1/traces', traceBody(spans))).status).toBe(200);
    const seen: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const res: { body: { data: Record<string, unknown>[]; next_cursor: string | null } } = await controlGet(
        t,
        `/spans?session_id=sess-page&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...res.body.data.map((s) => s.name as string));
      cursor = res.body.next_cursor;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(['span-6', 'span-5', 'span-4', 'span-3', 'span-2', 'span-1', 'span-0']);
    const windowed = await controlGet(
      t,
      `/spans?session_id=sess-page&from=${1_800_000_000_002}&to=${new Date(1_800_000_000_004).toISOString()}`,
    );
    expect(windowed.body.data.map((s) => s.name)).toEqual(['span-3', 'span-2']);
  });

  it('rejects bad query parameters naming them', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['cursor=bogus', 'cursor'],
      ['from=yesterday', 'from'],
      ['app=nope', 'app'],
      ['trace_id=x', 'trace_id'],
      ['trace_id=not-a-trace-id', 'trace_id'],
    ]) {
      // trace_id is not a metrics filter at all; on logs it must be a trace id.
      const path = query === 'trace_id=x' ? `/metrics?${query}` : `/logs?${query}`;
      const res = await controlGet<{ error: { details: { field: string } } }>(t, path);
      expect(res.status, query).toBe(400);
      expect(res.body.error.details.field).toBe(field);
    }
  });

  it("never shows one project another project's data", async () => {
    const db = t.server.database.db;
    const clock = { now: () => Date.now() };
    const tenantId = (
      await db.selectFrom('projects').select('tenant_id').where('id', '=', t.projectId).executeTakeFirstOrThrow()
    ).tenant_id;
    const other = await createProject(db, clock, tenantId, 'other');
    await registerApp(db, clock, other, 'web-app');
    const ingest = await createKey(db, clock, { projectId: other, scope: 'ingest' });
    const control = await createKey(db, clock, { projectId: other, scope: 'control' });
    expect((await post('/otlp/v1/logs', logsBody('web-app', 'sess-other', 'other project'), ingest.key)).status).toBe(
      200,
    );

    const otherView = { ...t, controlKey: control.key };
    const mine = await controlGet(t, '/logs?limit=1000');
    const theirs = await controlGet(otherView, '/logs');
    expect(theirs.body.data.map((l) => l.body)).toEqual(['other project']);
    expect(mine.body.data.some((l) => l.body === 'other project')).toBe(false);
    expect((await controlGet(otherView, '/sessions')).body.data.map((s) => s.session_id)).toEqual(['sess-other']);
    expect((await controlGet(otherView, '/spans')).body.data).toEqual([]);
  });

  it('deletes data older than the retention period, by time of receipt', async () => {
    const db = t.server.database.db;
    const before = await controlGet(t, '/sessions?limit=500');
    expect(before.body.data.length).toBeGreaterThan(0);
    // Nothing is older than 30 days yet.
    const now = await applyRetention(db, { now: () => Date.now() }, 30);
    expect(Object.values(now.deleted).every((n) => n === 0)).toBe(true);
    // 31 days later, everything is.
    const later = await applyRetention(db, { now: () => Date.now() + 31 * 86_400_000 }, 30);
    expect(later.deleted.spans).toBeGreaterThan(0);
    expect(later.deleted.replay_chunks).toBeGreaterThan(0);
    for (const path of ['/spans', '/logs', '/metrics', '/replay/chunks', '/recipes', '/sessions']) {
      expect((await controlGet(t, path)).body.data, path).toEqual([]);
    }
  });
});

describe('OpenAPI document', () => {
  it('describes every route the server registers', () => {
    const paths = appDocument().paths;
    const routes = [...appRoutes()];
    expect(routes.length).toBeGreaterThan(10);
    for (const route of new Set(routes)) {
      const [method, path] = route.split(' ') as [string, string];
      expect(paths[path]?.[method], route).toBeDefined();
    }
    const documented = Object.entries(paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect(new Set(documented)).toEqual(new Set(routes));
  });

  it('is served at /openapi.json', async () => {
    const t = await startTestServer('sqlite');
    try {
      const res = await fetch(`${t.url}/openapi.json`);
      const doc = (await res.json()) as { openapi: string; servers: { url: string }[] };
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.servers[0]!.url).toBe(t.url);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(!kinds.includes('postgres'))('several replicas starting on one empty PostgreSQL database', () => {
  it('bootstrap the default tenant once', async () => {
    const { createTempDatabase } = await import('../support/databases');
    const { startServer } = await import('../../server/src/index');
    const database = await createTempDatabase('postgres');
    try {
      const replicas = await Promise.all(
        Array.from({ length: 4 }, () => startServer({ port: 0, databaseUrl: database.url, log: () => undefined })),
      );
      expect(replicas.filter((r) => r.bootstrap !== null)).toHaveLength(1);
      const tenants = await replicas[0]!.database.db.selectFrom('tenants').select('id').execute();
      expect(tenants).toHaveLength(1);
      await Promise.all(replicas.map((r) => r.close()));
    } finally {
      await database.drop();
    }
  });
});
