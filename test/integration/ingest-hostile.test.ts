import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_LIMITS } from '../../server/src/ingest/limits';
import { databaseKinds } from '../support/databases';
import { POINT_UID_ATTRIBUTE } from '../../wire/self-telemetry';
import { logsBody, resourceAttrs, str, traceBody } from '../support/otlp';
import { createLastingDatabase, startServerProcess, type ServerProcess } from '../support/server-process';
import type { TempDatabase } from '../support/databases';

/**
 * What anyone holding the public ingest key can send, against the built server as `svc-server start` runs it: requests
 * that would cost far more than their bytes are refused before anything is stored, and retries store nothing twice.
 */
const kinds = await databaseKinds();

interface ErrorAnswer {
  error: { code: string; message: string; details?: { limit?: string; max?: number; field?: string } };
}

describe.each(kinds)('hostile ingest on %s (built server)', (kind) => {
  let database: TempDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await createLastingDatabase(kind);
    server = await startServerProcess({
      'database-url': database.url,
      'secret-key': 'hostile-ingest-test-secret-0123456789',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey!, ...headers },
      body,
    });
  const postJson = (path: string, body: unknown) => post(path, JSON.stringify(body));
  const control = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${server.url}/control-plane${path}`, {
      headers: { authorization: `Bearer ${server.controlKey}` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as T;
  };
  const listed = async (signal: 'spans' | 'logs', sessionId: string) =>
    (await control<{ data: unknown[] }>(`/${signal}?session_id=${sessionId}&limit=100`)).data.length;
  const sessionCounts = async (sessionId: string) =>
    (await control<{ counts: { spans: number; logs: number } }>(`/sessions/${sessionId}`)).counts;

  const expectLimit = async (res: Response, limit: string) => {
    const body = (await res.json()) as ErrorAnswer;
    expect(res.status, JSON.stringify(body)).toBe(413);
    expect(body.error.code).toBe('limit_exceeded');
    expect(body.error.details?.limit).toBe(limit);
    expect(body.error.message).toContain(limit);
    return body;
  };

  /** `count` log records in one resource of one session: `{}` each unless `record` says otherwise. */
  const manyLogs = (sessionId: string, count: number, record: (i: number) => unknown = () => ({})) => ({
    resourceLogs: [
      {
        resource: { attributes: [str('service.name', 'web-app'), str('session.id', sessionId)] },
        scopeLogs: [{ logRecords: Array.from({ length: count }, (_, i) => record(i)) }],
      },
    ],
  });

  describe('bounded work per request', () => {
    it('refuses 500,000 empty log records (1.6 KB gzipped) with 413 naming the limit, and stores none', async () => {
      const session = `amplify-${kind}`;
      const gz = gzipSync(JSON.stringify(manyLogs(session, 500_000)));
      expect(gz.byteLength).toBeLessThan(4_000);
      const body = await expectLimit(await post('/otlp/v1/logs', gz, { 'content-encoding': 'gzip' }), 'maxRecords');
      expect(body.error.details?.max).toBe(INGEST_LIMITS.maxRecords);
      expect(await listed('logs', session)).toBe(0);
      // The server still answers at once.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    });

    it('takes exactly the record limit, and refuses one more', async () => {
      const session = `edge-${kind}`;
      expect((await postJson('/otlp/v1/logs', manyLogs(session, INGEST_LIMITS.maxRecords))).status).toBe(200);
      await expectLimit(
        await postJson('/otlp/v1/logs', manyLogs(`${session}-over`, INGEST_LIMITS.maxRecords + 1)),
        'maxRecords',
      );
      expect((await sessionCounts(session)).logs).toBe(INGEST_LIMITS.maxRecords);
    });

    it('refuses a body of a million empty objects before parsing it', async () => {
      const filler = Array.from({ length: INGEST_LIMITS.maxStructures + 1 }, () => '{}').join(',');
      const text = `{"resourceLogs":[],"padding":[${filler}]}`;
      await expectLimit(await post('/otlp/v1/logs', gzipSync(text), { 'content-encoding': 'gzip' }), 'maxStructures');
    });

    it('refuses a protobuf body of too many messages', async () => {
      // ExportLogsServiceRequest { resource_logs (1) { scope_logs (2) { log_records (2): empty } x N } }: 2 bytes a record.
      const records = Buffer.alloc(2 * (INGEST_LIMITS.maxStructures + 1));
      for (let i = 0; i < records.length; i += 2) records[i] = 0x12;
      const scope = Buffer.concat([Buffer.from([0x12]), varint(records.length), records]);
      const resource = Buffer.concat([Buffer.from([0x0a]), varint(scope.length), scope]);
      const res = await post('/otlp/v1/logs', gzipSync(resource), {
        'content-type': 'application/x-protobuf',
        'content-encoding': 'gzip',
      });
      await expectLimit(res, 'maxStructures');
    });

    it('refuses too many attributes, too long an array and too long a value, naming the field', async () => {
      const tooMany = Array.from({ length: INGEST_LIMITS.maxAttributes + 1 }, (_, i) => str(`k${i}`, 'v'));
      let body = await expectLimit(
        await postJson(
          '/otlp/v1/logs',
          manyLogs('attrs', 1, () => ({ attributes: tooMany })),
        ),
        'maxAttributes',
      );
      expect(body.error.details?.field).toBe('resourceLogs[0].scopeLogs[0].logRecords[0].attributes');

      const longArray = {
        arrayValue: { values: Array.from({ length: INGEST_LIMITS.maxArrayValues + 1 }, () => ({ intValue: 1 })) },
      };
      body = await expectLimit(
        await postJson(
          '/otlp/v1/logs',
          manyLogs('array', 1, () => ({ attributes: [{ key: 'list', value: longArray }] })),
        ),
        'maxArrayValues',
      );
      expect(body.error.details?.field).toBe(
        'resourceLogs[0].scopeLogs[0].logRecords[0].attributes[0].value.arrayValue.values',
      );

      const long = 'é'.repeat(INGEST_LIMITS.maxValueBytes / 2 + 1); // within the limit in characters, over it in UTF-8 bytes
      body = await expectLimit(
        await postJson(
          '/otlp/v1/logs',
          manyLogs('value', 1, () => ({ body: { stringValue: long } })),
        ),
        'maxValueBytes',
      );
      expect(body.error.details?.field).toBe('resourceLogs[0].scopeLogs[0].logRecords[0].body.stringValue');
      for (const session of ['attrs', 'array', 'value']) expect(await listed('logs', session)).toBe(0);
    });

    it('refuses a replay chunk announcing more events than the limit', async () => {
      const chunk = {
        serviceName: 'web-app',
        sessionId: 'replay-flood',
        replayId: 'r1',
        seq: 0,
        startTs: 1,
        endTs: 2,
        eventCount: INGEST_LIMITS.maxChunkEvents + 1,
        encoding: 'json',
        data: '[]',
      };
      await expectLimit(await postJson('/ingest/replay/chunk', chunk), 'maxChunkEvents');
    });

    it('refuses a replay chunk whose gzipped events unpack to too many objects', async () => {
      const events = `[{"type":3,"timestamp":1,"data":[${Array.from({ length: INGEST_LIMITS.maxStructures }, () => '[]').join(',')}]}]`;
      const chunk = {
        serviceName: 'web-app',
        sessionId: 'replay-objects',
        replayId: 'r1',
        seq: 0,
        startTs: 1,
        endTs: 2,
        eventCount: 1,
        encoding: 'gzip',
        data: gzipSync(events).toString('base64'),
      };
      const body = await expectLimit(await postJson('/ingest/replay/chunk', chunk), 'maxStructures');
      expect(body.error.details?.field).toBe('data');
    });

    describe('replay chunks with their events inline, gzipped, as the SDK sends them', () => {
      const GZIP = { 'content-encoding': 'gzip' };
      const fields = (sessionId: string) => ({
        serviceName: 'web-app',
        sessionId,
        replayId: 'r1',
        seq: 0,
        startTs: 1,
        endTs: 2,
        eventCount: 1,
      });
      const EVENT = { type: 3, timestamp: 1, data: { source: 1 } };
      /** Replay chunks stored for a session; 0 when nothing of it was stored (a 404). */
      const replayChunks = async (sessionId: string) => {
        const res = await fetch(`${server.url}/control-plane/sessions/${sessionId}`, {
          headers: { authorization: `Bearer ${server.controlKey}` },
        });
        if (res.status === 404) return 0;
        return ((await res.json()) as { counts: { replay_chunks: number } }).counts.replay_chunks;
      };
      const expectError = async (res: Response, status: number, code: string, field?: string) => {
        const body = (await res.json()) as ErrorAnswer;
        expect(res.status, JSON.stringify(body)).toBe(status);
        expect(body.error.code).toBe(code);
        if (field !== undefined) expect(body.error.details?.field).toBe(field);
      };

      it('refuses a gzip bomb with 413 before parsing it, and stores nothing', async () => {
        // 64 MB of spaces inside the events array: about 64 KB on the wire.
        const head = JSON.stringify(fields('inline-bomb')).slice(0, -1);
        const bomb = gzipSync(
          Buffer.concat([
            Buffer.from(`${head},"events":[`),
            Buffer.alloc(64 * 1024 * 1024, ' '),
            Buffer.from(`${JSON.stringify(EVENT)}]}`),
          ]),
        );
        await expectError(await post('/ingest/replay/chunk', bomb, GZIP), 413, 'payload_too_large');
        expect(await replayChunks('inline-bomb')).toBe(0);
      });

      it('refuses events over the chunk size once their ids are restored', async () => {
        const big = { ...EVENT, data: { source: 1, text: 'x'.repeat(5_000_000) } };
        await expectError(
          await post(
            '/ingest/replay/chunk',
            gzipSync(JSON.stringify({ ...fields('inline-big'), events: [big] })),
            GZIP,
          ),
          400,
          'invalid_request',
          'events',
        );
        expect(await replayChunks('inline-big')).toBe(0);
      });

      it('refuses a truncated body, a count the events do not match, an event limit, an unknown ids and a wrong type', async () => {
        const gz = gzipSync(JSON.stringify({ ...fields('inline-bad'), events: [EVENT] }));
        await expectError(
          await post('/ingest/replay/chunk', gz.subarray(0, gz.length - 6), GZIP),
          400,
          'invalid_request',
          'Content-Encoding',
        );
        await expectError(
          await post(
            '/ingest/replay/chunk',
            gzipSync(JSON.stringify({ ...fields('inline-bad'), events: [EVENT] }).slice(0, -20)),
            GZIP,
          ),
          400,
          'invalid_request',
        );
        await expectError(
          await postJson('/ingest/replay/chunk', { ...fields('inline-bad'), eventCount: 2, events: [EVENT] }),
          400,
          'invalid_request',
          'eventCount',
        );
        await expectLimit(
          await postJson('/ingest/replay/chunk', {
            ...fields('inline-bad'),
            eventCount: INGEST_LIMITS.maxChunkEvents + 1,
            events: [EVENT],
          }),
          'maxChunkEvents',
        );
        await expectError(
          await postJson('/ingest/replay/chunk', { ...fields('inline-bad'), ids: 'base64', events: [EVENT] }),
          400,
          'invalid_request',
          'ids',
        );
        await expectError(
          await post('/ingest/replay/chunk', gz, { ...GZIP, 'content-type': 'application/octet-stream' }),
          415,
          'unsupported_media_type',
        );
        expect(await replayChunks('inline-bad')).toBe(0);
      });

      it('stores a retried chunk once', async () => {
        const gz = gzipSync(
          JSON.stringify({
            ...fields('inline-retry'),
            ids: 'delta',
            events: [{ ...EVENT, data: { source: 2, id: 4 } }],
          }),
        );
        const answers = [];
        for (let i = 0; i < 2; i++) answers.push(await (await post('/ingest/replay/chunk', gz, GZIP)).json());
        expect(answers).toEqual([
          { accepted: 1, duplicates: 0 },
          { accepted: 0, duplicates: 1 },
        ]);
        expect(await replayChunks('inline-retry')).toBe(1);
      });
    });
  });

  describe('retries store nothing twice', () => {
    it('stores a span posted twice once, and counts it once in its session', async () => {
      const session = `retry-spans-${kind}`;
      const body = JSON.stringify(traceBody([{ sessionId: session }, { sessionId: session }]));
      for (let i = 0; i < 2; i++) expect((await post('/otlp/v1/traces', body)).status).toBe(200);
      // Retries racing each other, as a timed-out exporter and its retry do.
      const raced = await Promise.all(Array.from({ length: 4 }, () => post('/otlp/v1/traces', body)));
      expect(raced.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(await listed('spans', session)).toBe(2);
      expect((await sessionCounts(session)).spans).toBe(2);
    });

    it('stores a log record carrying log.record.uid once, and one without it each time', async () => {
      const session = `retry-logs-${kind}`;
      const uid = randomBytes(16).toString('hex');
      const withUid = manyLogs(session, 1, () => ({
        body: { stringValue: 'once' },
        attributes: [str('log.record.uid', uid)],
      }));
      for (let i = 0; i < 3; i++) expect((await postJson('/otlp/v1/logs', withUid)).status).toBe(200);
      expect(await listed('logs', session)).toBe(1);

      // OTLP gives log records no identity of their own: without the attribute, two posts are two records.
      const plain = logsBody('web-app', `${session}-plain`);
      for (let i = 0; i < 2; i++) expect((await postJson('/otlp/v1/logs', plain)).status).toBe(200);
      expect(await listed('logs', `${session}-plain`)).toBe(2);
      expect((await sessionCounts(session)).logs).toBe(1);
    });

    it('stores a metric point carrying svc.point.uid once, without the uid among its attributes', async () => {
      const session = `retry-points-${kind}`;
      const point = (uid?: string) => ({
        timeUnixNano: '1700000000000000000',
        asDouble: 1,
        attributes: [str('page', '/cart'), ...(uid ? [str(POINT_UID_ATTRIBUTE, uid)] : [])],
      });
      const body = (...points: object[]) => ({
        resourceMetrics: [
          {
            resource: { attributes: resourceAttrs('web-app', session) },
            scopeMetrics: [{ metrics: [{ name: 'cart.items', gauge: { dataPoints: points } }] }],
          },
        ],
      });
      const uid = randomBytes(16).toString('hex');
      const answers = [];
      for (let i = 0; i < 2; i++) answers.push((await postJson('/otlp/v1/metrics', body(point(uid), point()))).status);
      expect(answers).toEqual([200, 200]);
      const points = (
        await control<{ data: Array<{ attributes: Record<string, unknown> }> }>(
          `/metrics?session_id=${session}&limit=100`,
        )
      ).data;
      // The point with the uid once; the one without it each time.
      expect(points).toHaveLength(3);
      expect(points.map((p) => p.attributes)).toEqual(Array.from({ length: 3 }, () => ({ page: '/cart' })));
    });

    it('keeps the same span id in another trace apart', async () => {
      const session = `identity-${kind}`;
      const spanId = randomBytes(8).toString('hex');
      const otherTrace = randomBytes(16).toString('hex');
      const res = await postJson(
        '/otlp/v1/traces',
        traceBody([
          { sessionId: session, spanId },
          { sessionId: session, spanId, traceId: otherTrace },
        ]),
      );
      expect(res.status).toBe(200);
      expect(await listed('spans', session)).toBe(2);
    });
  });
});

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
