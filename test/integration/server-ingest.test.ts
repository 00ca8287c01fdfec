import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAlias, createKey, createProject, registerApp, revokeKey } from '../../server/src/index';
import { refusalDb } from '../../server/src/ingest/refusals/tables';
import { databaseKinds } from '../support/databases';
import { logsBody, metricsBody, str, traceBody, TRACE_ID } from '../support/otlp';
import { controlGet, startTestServer, type TestServer } from '../support/server';

const kinds = await databaseKinds();

describe.each(kinds)('ingest on %s', (kind) => {
  let t: TestServer;
  const logged: string[] = [];
  beforeAll(async () => {
    t = await startTestServer(kind, { bodyLimit: 64 * 1024, log: (line) => logged.push(line) });
  });
  afterAll(() => t?.close());

  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}${headers['x-query'] ?? ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey, ...headers },
      body,
    });

  const expectError = async (res: Response, status: number, code: string, messagePart?: string) => {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe('string');
    if (messagePart) expect(body.error.message).toContain(messagePart);
  };

  const spanCount = async () => {
    const rows = await t.server.database.db
      .selectFrom('spans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(rows.n);
  };

  it('accepts OTLP/JSON traces, logs and metrics with the partial-success answer', async () => {
    for (const [path, body] of [
      ['/otlp/v1/traces', traceBody([{ sessionId: 'sess-a' }])],
      ['/otlp/v1/logs', logsBody('web-app', 'sess-a')],
      ['/otlp/v1/metrics', metricsBody('web-app', 'sess-a')],
    ] as const) {
      const res = await post(path, JSON.stringify(body));
      expect(res.status, path).toBe(200);
      expect(await res.json()).toEqual({ partialSuccess: {} });
    }
    const spans = await controlGet(t, '/spans?session_id=sess-a');
    expect(spans.body.data).toHaveLength(1);
    expect(spans.body.data[0]).toMatchObject({
      app: 'web-app',
      trace_id: TRACE_ID,
      name: 'span-0',
      kind: 3,
      duration_ms: 5,
      attributes: { 'http.method': 'GET', 'http.status_code': 200 },
      status: { code: 1 },
      scope: { name: '@svc/test', version: '1.0.0' },
    });
    const logs = await controlGet(t, '/logs?session_id=sess-a');
    expect(logs.body.data[0]).toMatchObject({
      body: 'hello',
      severity_number: 17,
      severity_text: 'ERROR',
      trace_id: TRACE_ID,
    });
    const metrics = await controlGet(t, '/metrics?session_id=sess-a');
    expect(metrics.body.data.map((m) => [m.name, m.type, m.value])).toEqual(
      expect.arrayContaining([
        ['web_vital_lcp_ms', 'gauge', 1234.5],
        ['http.client.duration', 'histogram', 30],
      ]),
    );
  });

  it('accepts gzip bodies and the text/plain beacon path with the api_key query parameter', async () => {
    const gz = await post('/otlp/v1/traces', gzipSync(JSON.stringify(traceBody([{ sessionId: 'sess-gz' }]))), {
      'content-encoding': 'gzip',
    });
    expect(gz.status).toBe(200);
    const beacon = await fetch(`${t.url}/otlp/v1/logs?api_key=${t.ingestKey}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(logsBody('web-app', 'sess-gz')),
    });
    expect(beacon.status).toBe(200);
    const session = await controlGet(t, '/sessions');
    expect(session.body.data.find((s) => s.session_id === 'sess-gz')).toMatchObject({ counts: { spans: 1, logs: 1 } });
  });

  describe('authentication', () => {
    it('answers 401 for a missing or unknown key', async () => {
      await expectError(
        await fetch(`${t.url}/otlp/v1/traces`, { method: 'POST', body: '{}' }),
        401,
        'unauthorized',
        'X-API-Key',
      );
      await expectError(await post('/otlp/v1/traces', '{}', { 'x-api-key': 'svc_ingest_nope' }), 401, 'unauthorized');
    });

    it('answers 403 for a revoked, an expired or a control key at ingest, and for an ingest key at the control plane', async () => {
      const db = t.server.database.db;
      const clock = { now: () => Date.now() };
      const revoked = await createKey(db, clock, { projectId: t.projectId, scope: 'ingest' });
      await revokeKey(db, clock, revoked.id);
      const expired = await createKey(db, clock, {
        projectId: t.projectId,
        scope: 'ingest',
        expiresMs: Date.now() - 1,
      });
      const body = JSON.stringify(traceBody());
      await expectError(await post('/otlp/v1/traces', body, { 'x-api-key': revoked.key }), 403, 'forbidden', 'revoked');
      await expectError(await post('/otlp/v1/traces', body, { 'x-api-key': expired.key }), 403, 'forbidden', 'expired');
      await expectError(await post('/otlp/v1/traces', body, { 'x-api-key': t.controlKey }), 403, 'forbidden');
      const res = await fetch(`${t.url}/control-plane/spans`, { headers: { authorization: `Bearer ${t.ingestKey}` } });
      await expectError(res, 403, 'forbidden');
      const missing = await fetch(`${t.url}/control-plane/spans`);
      expect(missing.headers.get('www-authenticate')).toContain('Bearer');
      await expectError(missing, 401, 'unauthorized');
    });
  });

  describe('bad input is refused with one error shape and nothing is stored', () => {
    it.each([
      ['the empty object on traces', '/otlp/v1/traces', '{}', {}, 400, 'invalid_request', 'resourceSpans'],
      ['malformed JSON', '/otlp/v1/logs', '{"resourceLogs": [', {}, 400, 'invalid_request', 'not valid JSON'],
      [
        'a wrong type',
        '/otlp/v1/metrics',
        '{"resourceMetrics": {}}',
        {},
        400,
        'invalid_request',
        'resourceMetrics must be an array',
      ],
      [
        'an unknown content type',
        '/otlp/v1/traces',
        '{}',
        { 'content-type': 'application/xml' },
        415,
        'unsupported_media_type',
        'application/xml',
      ],
      [
        'an unknown content encoding',
        '/otlp/v1/traces',
        '{}',
        { 'content-encoding': 'br' },
        415,
        'unsupported_encoding',
        'br',
      ],
      [
        'bad gzip',
        '/otlp/v1/traces',
        'not gzip at all',
        { 'content-encoding': 'gzip' },
        400,
        'invalid_request',
        'gzip',
      ],
      [
        'protobuf on the replay endpoint',
        '/ingest/replay/chunk',
        'x',
        { 'content-type': 'application/x-protobuf' },
        415,
        'unsupported_media_type',
        'application/json',
      ],
      [
        'garbage protobuf',
        '/otlp/v1/traces',
        '\u0008\u00ff\u00ff',
        { 'content-type': 'application/x-protobuf' },
        400,
        'invalid_request',
        'protobuf',
      ],
    ])('%s', async (_name, path, body, headers, status, code, message) => {
      const before = await spanCount();
      await expectError(await post(path, body, headers as Record<string, string>), status, code, message);
      expect(await spanCount()).toBe(before);
    });

    it('names the offending field deep inside the payload', async () => {
      const body = traceBody([{}, {}]);
      const spans = (body.resourceSpans as { scopeSpans: { spans: { traceId: string }[] }[] }[])[1]!.scopeSpans[0]!
        .spans;
      spans[0]!.traceId = 'abc';
      const before = await spanCount();
      const res = await post('/otlp/v1/traces', JSON.stringify(body));
      await expectError(res, 400, 'invalid_request', 'resourceSpans[1].scopeSpans[0].spans[0].traceId');
      expect(await spanCount()).toBe(before);
    });

    it('refuses a metric name longer than OpenTelemetry allows (255 characters), storing nothing of the batch', async () => {
      const points = async () =>
        (
          await t.server.database.db
            .selectFrom('metric_points')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      const named = (name: string) => {
        const body = metricsBody('web-app', 'sess-long-name') as {
          resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[];
        };
        body.resourceMetrics[0]!.scopeMetrics[0]!.metrics[1]!.name = name;
        return JSON.stringify(body);
      };
      const before = Number(await points());
      await expectError(
        await post('/otlp/v1/metrics', named('m'.repeat(256))),
        400,
        'invalid_request',
        'resourceMetrics[0].scopeMetrics[0].metrics[1].name',
      );
      expect(Number(await points())).toBe(before);
      expect((await post('/otlp/v1/metrics', named('m'.repeat(255)))).status).toBe(200);
    });

    it('refuses bodies over the limit on the wire and after decompression (413)', async () => {
      const big = JSON.stringify({ resourceSpans: [], pad: 'x'.repeat(70 * 1024) });
      await expectError(await post('/otlp/v1/traces', big), 413, 'payload_too_large', 'SVC_BODY_LIMIT');
      const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x20));
      expect(bomb.byteLength).toBeLessThan(64 * 1024);
      await expectError(await post('/otlp/v1/traces', bomb, { 'content-encoding': 'gzip' }), 413, 'payload_too_large');
    });
  });

  describe('service.name', () => {
    it('stores an alias under the canonical app name', async () => {
      await addAlias(t.server.database.db, { now: () => Date.now() }, t.projectId, 'web-app', 'storefront');
      const res = await post(
        '/otlp/v1/traces',
        JSON.stringify(traceBody([{ serviceName: 'storefront', sessionId: 'sess-alias' }])),
      );
      expect(res.status).toBe(200);
      const spans = await controlGet(t, '/spans?session_id=sess-alias');
      expect(spans.body.data[0]).toMatchObject({ app: 'web-app' });
      // The alias works as a query filter too.
      expect((await controlGet(t, '/spans?app=storefront&session_id=sess-alias')).body.data).toHaveLength(1);
    });

    it('rejects a payload naming an unknown app with 422 and stores none of it', async () => {
      const before = await spanCount();
      const body = traceBody([
        { serviceName: 'web-app', sessionId: 'sess-mixed' },
        { serviceName: 'intruder', sessionId: 'sess-mixed' },
      ]);
      await expectError(await post('/otlp/v1/traces', JSON.stringify(body)), 422, 'unknown_service', '"intruder"');
      expect(await spanCount()).toBe(before);
      expect((await controlGet(t, '/sessions')).body.data.some((s) => s.session_id === 'sess-mixed')).toBe(false);
    });

    it('requires service.name on every resource', async () => {
      const body = { resourceLogs: [{ resource: { attributes: [str('session.id', 'x')] }, scopeLogs: [] }] };
      await expectError(await post('/otlp/v1/logs', JSON.stringify(body)), 400, 'invalid_request', 'service.name');
    });
  });

  describe('CORS', () => {
    it('answers preflights with the exact origin, the SDK headers and a two-hour max age', async () => {
      const res = await fetch(`${t.url}/otlp/v1/traces`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-api-key,traceparent,x-svc-session-id',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('access-control-max-age')).toBe('7200');
      const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase();
      for (const h of ['content-type', 'x-api-key', 'traceparent', 'x-svc-session-id', 'content-encoding'])
        expect(allowed).toContain(h);
    });

    it('answers a mistyped ingest path with a readable 404, CORS headers included', async () => {
      const res = await fetch(`${t.url}/otlp/v1/trace`, {
        method: 'POST',
        headers: { origin: 'https://shop.example.com' },
        body: '{}',
      });
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    });

    it('puts CORS headers on error answers too, so the page can read them', async () => {
      const res = await fetch(`${t.url}/otlp/v1/traces`, {
        method: 'POST',
        headers: { origin: 'https://shop.example.com' },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    });
  });

  describe('ingest health', () => {
    type Refusal = {
      reason: string;
      status: number;
      count: number;
      last_at: string;
      example: Record<string, unknown> & { key: Record<string, unknown> };
    };
    type Health = {
      refusals: Refusal[];
      unattributed: Refusal[] | null;
      sdk_drops: Array<{ app: string; reason: string; count: number; sessions: number }>;
    };
    const health = async (key: string, project?: string) => {
      const res = await fetch(`${t.url}/control-plane/ingest/health`, {
        headers: { authorization: `Bearer ${key}`, ...(project ? { 'x-svc-project': project } : {}) },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Health;
    };
    /** The SDK's drop counter as it sends it: cumulative since the page started, one series per reason. */
    const dropPoint = (sessionId: string, reason: string, value: number, atMs: number, startMs: number) => ({
      resource: { attributes: [str('service.name', 'shop'), str('session.id', sessionId)] },
      scopeMetrics: [
        {
          scope: { name: '@svc/browser' },
          metrics: [
            {
              name: 'svc.sdk.dropped_items',
              unit: '{item}',
              sum: {
                aggregationTemporality: 2,
                isMonotonic: true,
                dataPoints: [
                  {
                    startTimeUnixNano: `${startMs}000000`,
                    timeUnixNano: `${atMs}000000`,
                    asInt: String(value),
                    attributes: [str('reason', reason)],
                  },
                ],
              },
            },
          ],
        },
      ],
    });

    it('counts refused requests per project and reason with the last example (never the key), beside the drops the SDK reported; logs them rate-limited', async () => {
      const db = t.server.database.db;
      const clock = { now: () => Date.now() };
      const projectId = await createProject(
        db,
        clock,
        (await db.selectFrom('projects').select('tenant_id').executeTakeFirstOrThrow()).tenant_id,
        `health-${kind}`,
      );
      await registerApp(db, clock, projectId, 'shop');
      const ingest = (await createKey(db, clock, { projectId, scope: 'ingest', name: 'storefront' })).key;
      const control = (await createKey(db, clock, { projectId, scope: 'control' })).key;
      const read = (await createKey(db, clock, { projectId, scope: 'read' })).key;
      const admin = (await createKey(db, clock, { projectId, scope: 'admin' })).key;
      const revoked = await createKey(db, clock, { projectId, scope: 'ingest', name: 'old build' });
      await revokeKey(db, clock, revoked.id);
      const send = (path: string, body: BodyInit, headers: Record<string, string>) =>
        fetch(`${t.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'https://shop.example', ...headers },
          body,
        });
      const logs = JSON.stringify(logsBody('nope'));
      const loggedBefore = logged.length;

      for (let i = 0; i < 3; i++) expect((await send('/otlp/v1/logs', logs, { 'x-api-key': ingest })).status).toBe(422);
      expect((await send('/otlp/v1/logs', logs, { 'x-api-key': ingest, 'content-type': 'text/xml' })).status).toBe(415);
      expect((await send('/otlp/v1/logs', 'x'.repeat(70 * 1024), { 'x-api-key': ingest })).status).toBe(413);
      expect((await send('/otlp/v1/logs', logs, { 'x-api-key': revoked.key })).status).toBe(403);
      expect((await send('/otlp/v1/logs', logs, { 'x-api-key': control })).status).toBe(403);
      expect((await send('/otlp/v1/trace', logs, { 'x-api-key': ingest })).status).toBe(404);
      expect((await send('/otlp/v1/logs', logs, { 'x-api-key': 'svc_ingest_not-a-key-of-this-server' })).status).toBe(
        401,
      );
      expect((await send('/otlp/v1/logs', logs, {})).status).toBe(401);
      // Accepted requests are not refusals; the SDK's drop counters: two pages of one reason, one of another.
      const now = Date.now();
      const drops = {
        resourceMetrics: [
          dropPoint('s1', 'queue_full', 5, now - 3000, now - 9000),
          dropPoint('s1', 'queue_full', 8, now - 2000, now - 9000),
          dropPoint('s2', 'queue_full', 3, now - 2000, now - 5000),
          dropPoint('s2', 'refused', 2, now - 1000, now - 5000),
        ],
      };
      expect((await send('/otlp/v1/metrics', JSON.stringify(drops), { 'x-api-key': ingest })).status).toBe(200);

      const seen = await health(read);
      expect(seen.unattributed).toBeNull();
      const byReason = Object.fromEntries(seen.refusals.map((r) => [r.reason, r]));
      expect(Object.keys(byReason).sort()).toEqual([
        'key_revoked',
        'key_wrong_scope',
        'not_found',
        'payload_too_large',
        'unknown_service',
        'unsupported_media_type',
      ]);
      expect(seen.refusals[0]).toMatchObject({ reason: 'unknown_service', status: 422, count: 3 });
      expect(byReason.unknown_service!.example).toMatchObject({
        status: 422,
        code: 'unknown_service',
        method: 'POST',
        path: '/otlp/v1/logs',
        origin: 'https://shop.example',
        content_type: 'application/json',
        key: { state: 'valid', name: 'storefront', scope: 'ingest' },
      });
      expect(byReason.unknown_service!.example.message).toContain('"nope"');
      expect(byReason.key_revoked).toMatchObject({
        status: 403,
        count: 1,
        example: { key: { state: 'revoked', id: revoked.id, name: 'old build' } },
      });
      expect(byReason.key_wrong_scope!.example.key).toMatchObject({ state: 'wrong_scope', scope: 'control' });
      expect(byReason.not_found).toMatchObject({
        status: 404,
        example: { path: '/otlp/v1/trace', key: { state: 'unchecked', scope: 'ingest' } },
      });
      expect(byReason.payload_too_large!.status).toBe(413);
      expect(seen.sdk_drops).toEqual([
        { app: 'shop', reason: 'queue_full', count: 11, sessions: 2 },
        { app: 'shop', reason: 'refused', count: 2, sessions: 1 },
      ]);

      // An admin key also sees what no project's key sent: the unknown key (by its scope marker) and the missing one.
      const forAdmin = await health(admin, projectId);
      const unattributed = Object.fromEntries(forAdmin.unattributed!.map((r) => [r.reason, r]));
      expect(unattributed.key_unknown!.example.key).toEqual({ state: 'unknown', marker: 'svc_ingest_' });
      expect(unattributed.key_missing!.example.key).toEqual({ state: 'missing' });
      // Another project's keys see none of it.
      expect(JSON.stringify(await health(t.controlKey))).not.toContain('storefront');

      // One row per project, hour and reason; no key anywhere in what was kept or logged.
      const stored = JSON.stringify(await refusalDb(db).selectFrom('ingest_refusals').selectAll().execute());
      const ours = logged.slice(loggedBefore).filter((l) => l.startsWith('ingest refused'));
      for (const secret of [ingest, control, revoked.key, 'svc_ingest_not-a-key-of-this-server']) {
        expect(stored).not.toContain(secret);
        expect(ours.join('\n')).not.toContain(secret);
      }
      // Three refusals of one reason in a minute are one line; each of the project's six reasons has its line.
      const project = ours.filter((l) => l.includes(`for project ${projectId}`));
      expect(project.filter((l) => l.includes('unknown_service'))).toEqual([
        expect.stringMatching(
          `^ingest refused POST /otlp/v1/logs with 422 unknown_service for project ${projectId} from origin https://shop.example`,
        ),
      ]);
      expect(project).toHaveLength(6);
    });
  });
});

describe.each(kinds)('CORS allow-list on %s', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { corsOrigins: ['https://allowed.example'] });
  });
  afterAll(() => t?.close());

  it('echoes listed origins only', async () => {
    const preflight = (origin: string) =>
      fetch(`${t.url}/otlp/v1/logs`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key' },
      });
    expect((await preflight('https://allowed.example')).headers.get('access-control-allow-origin')).toBe(
      'https://allowed.example',
    );
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses requests that skip the preflight (sendBeacon, no-cors) from other origins, and stores nothing', async () => {
    const beacon = (origin?: string) =>
      fetch(`${t.url}/otlp/v1/traces?api_key=${t.ingestKey}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', ...(origin ? { origin } : {}) },
        body: JSON.stringify(traceBody([{ sessionId: 'sess-origin' }])),
      });
    const refused = await beacon('https://evil.example');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('origin_not_allowed');
    expect((await controlGet(t, '/spans?session_id=sess-origin')).body.data).toHaveLength(0);
    // Refused before its key was checked, yet counted under the key's project; the beacon's query (the key) is not kept.
    const health = (
      await controlGet<{ refusals: Array<{ reason: string; example: Record<string, unknown> }> }>(t, '/ingest/health')
    ).body;
    expect(health.refusals.find((r) => r.reason === 'origin_not_allowed')?.example).toMatchObject({
      path: '/otlp/v1/traces',
      origin: 'https://evil.example',
      key: { state: 'unchecked', scope: 'ingest' },
    });
    expect(JSON.stringify(health)).not.toContain(t.ingestKey);
    // Listed origins, and agents that send no Origin at all, are accepted.
    expect((await beacon('https://allowed.example')).status).toBe(200);
    expect((await beacon()).status).toBe(200);
    expect((await controlGet(t, '/spans?session_id=sess-origin')).body.data).toHaveLength(2);
  });
});
