import { Agent, request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ServerModule from '../../server/src/index';
import { databaseKinds, type DatabaseKind } from '../support/databases';
import { createLastingDatabase } from '../support/server-process';

/**
 * Issue 14, items 3 to 7: hostile input (deeply nested replay events, U+0000, out-of-range numbers, oversized bodies)
 * gets a clear 4xx and never a 500 or a reset connection, whatever the database; every answer says `nosniff`. The built
 * server, over a SQLite file and over PostgreSQL, which refuses more values than SQLite does.
 */
const { startServer, createKey } = (await import('../../server/dist/index.js' as string)) as typeof ServerModule;
const kinds = await databaseKinds();

const BODY_LIMIT = 64 * 1024;
const T0 = 1_700_000_000_000;
type ErrorBody = { error: { code: string; message: string; details?: { field?: string; limit?: number } } };
type Page = { data: Array<Record<string, unknown>>; next_cursor: string | null };

/** `pairs` objects each holding an array: 2 × pairs levels of JSON below the event's `data`. */
const nested = (pairs: number): string => '{"c":['.repeat(pairs) + ']}'.repeat(pairs);
/** A chunk's events as JSON text: one incremental event whose data nests `pairs` pairs deep. */
const deepEvents = (pairs: number, at = T0): string => `[{"type":3,"timestamp":${at},"data":${nested(pairs)}}]`;
const pageLoad = (at: number) => [
  { type: 4, timestamp: at, data: { href: 'http://shop.test/', width: 800, height: 600 } },
  {
    type: 2,
    timestamp: at + 1,
    data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { top: 0, left: 0 } },
  },
];
const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(kinds)('hostile input on %s', (kind: DatabaseKind) => {
  let server: ServerModule.RunningServer;
  let drop: () => Promise<void>;
  let ingestKey: string;
  let controlKey: string;

  beforeAll(async () => {
    const database = await createLastingDatabase(kind);
    drop = database.drop;
    server = await startServer({
      port: 0,
      databaseUrl: database.url,
      bodyLimit: BODY_LIMIT,
      secretKey: 'hardening-test-secret-0123456789abcdef',
      log: () => undefined,
    });
    ingestKey = server.bootstrap!.ingestKey.key;
    controlKey = server.bootstrap!.controlKey.key;
  });
  afterAll(async () => {
    await server?.close();
    await drop?.();
  });

  const ingest = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ingestKey },
      body: JSON.stringify(body),
    });
  const control = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${server.url}/control-plane${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${controlKey}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const expectRefused = async (res: Response, field: string, what: string) => {
    const body = (await res.json()) as ErrorBody;
    expect(res.status, `${what}: ${JSON.stringify(body)}`).toBe(400);
    expect(body.error.code, what).toBe('invalid_request');
    expect(body.error.details?.field, what).toBe(field);
    return body.error;
  };
  const chunk = (sessionId: string, seq: number, events: string, encoding: 'gzip' | 'json' = 'gzip') => ({
    serviceName: 'web-app',
    sessionId,
    replayId: 'r1',
    seq,
    startTs: T0 + seq,
    endTs: T0 + seq,
    eventCount: (JSON.parse(events) as unknown[]).length,
    encoding,
    data: encoding === 'gzip' ? gzipSync(events).toString('base64') : events,
  });

  describe('replay events nested too deep (item 3)', () => {
    it('accepts a chunk nested 512 levels, and refuses one level more naming the path and the limit', async () => {
      // The events array (1), the event (2), its data (3), then two levels per pair: 2 + 2 × 255 = 512.
      expect((await ingest('/ingest/replay/chunk', chunk('deep-ok', 0, deepEvents(255)))).status).toBe(200);
      for (const pairs of [256, 2500]) {
        const error = await expectRefused(
          await ingest('/ingest/replay/chunk', chunk('deep-refused', 0, deepEvents(pairs))),
          'data[0].data.c[0]…',
          `${pairs} pairs`,
        );
        expect(error.message).toContain('512 levels');
        expect(error.details?.limit).toBe(512);
      }
      const listed = (await (await control('/replay/chunks?session_id=deep-refused')).json()) as Page;
      expect(listed.data).toEqual([]);
    });

    it('serves a session whose stored chunk is too deep to serialise: the chunk is marked, the others play', async () => {
      const events = pageLoad(T0);
      expect((await ingest('/ingest/replay/chunk', chunk('stored-deep', 0, JSON.stringify(events)))).status).toBe(200);
      // As a server without the ingest check stored it: 5,000 levels, far past what JSON.stringify can serialise.
      const { db } = server.database;
      const first = await db
        .selectFrom('replay_chunks')
        .selectAll()
        .where('session_id', '=', 'stored-deep')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('replay_chunks')
        .values({
          ...first,
          id: undefined,
          seq: 1,
          time_ms: T0 + 10,
          end_ms: T0 + 10,
          event_count: 1,
          encoding: 'gzip',
          data: gzipSync(deepEvents(2500, T0 + 10)),
        })
        .execute();

      const listing = await control('/replay/chunks?session_id=stored-deep');
      expect(listing.status).toBe(200);
      const chunks = ((await listing.json()) as Page).data;
      expect(chunks.map((c) => [c.seq, c.events])).toEqual([
        [1, []],
        [0, events],
      ]);
      expect(chunks[0]!.unreadable).toMatch(/cannot be served.*deeper than 512 levels.*data\[0\]\.data\.c\[0\]…/);
      expect(chunks[1]).not.toHaveProperty('unreadable');

      const replay = await control('/sessions/stored-deep/replay');
      expect(replay.status).toBe(200);
      const page = (await replay.json()) as { events: unknown[]; chunks: Array<{ seq: number; unreadable?: string }> };
      expect(page.events).toEqual(events);
      expect(page.chunks.map((c) => [c.seq, typeof c.unreadable])).toEqual([
        [0, 'undefined'],
        [1, 'string'],
      ]);
      const detail = await control('/sessions/stored-deep');
      expect(detail.status).toBe(200);
      expect(((await detail.json()) as { replays: Array<{ first_url: string }> }).replays[0]!.first_url).toBe(
        'http://shop.test/',
      );
      expect((await control('/sessions/stored-deep/playwright')).status).toBe(200);
    });
  });

  describe('U+0000 (item 4)', () => {
    const incident = { title: 'Checkout down', severity: 'high' };

    it('is refused anywhere in a control-plane body, naming the field path', async () => {
      for (const [body, field] of [
        [{ ...incident, title: 'Checkout\u0000down' }, 'title'],
        [{ ...incident, env: 'prod\u0000' }, 'env'],
        [{ ...incident, root_cause_summary: '\u0000' }, 'root_cause_summary'],
        [{ ...incident, services: ['checkout', 'cart\u0000'] }, 'services[1]'],
        [{ ...incident, extra: { notes: [{ text: 'a\u0000' }] } }, 'extra.notes[0].text'],
        [{ ...incident, 'by\u0000': 'x' }, '["by\\u0000"]'],
      ] as const) {
        await expectRefused(await control('/incidents', { method: 'POST', body }), field, field);
      }
      const list = (await (await control('/incidents')).json()) as Page;
      expect(list.data).toEqual([]);
    });

    it('is refused in control-plane query and path parameters, naming the parameter', async () => {
      await expectRefused(await control('/apps?note=%00'), 'note', 'query value');
      await expectRefused(await control('/incidents?status=open%00'), 'status', 'query value');
      await expectRefused(await control('/apps?n%00te=1'), 'n\u0000te', 'query name');
      await expectRefused(await control('/incidents/in%00cident'), 'id', 'incident id');
      await expectRefused(await control('/notifications/channels/ch%00'), 'id', 'channel id');
      await expectRefused(await control('/sessions/s%00/replay'), 'id', 'session id');
      await expectRefused(
        await control('/sessions?cursor=' + cursor({ t: T0, k: 'sess\u0000' })),
        'cursor',
        'a cursor holding it',
      );
    });

    it.runIf(kind === 'postgres')('that reaches PostgreSQL unchecked is a 400, not a 500', async () => {
      // Outside the control plane: the chat app's route looks its project up before anything else reads the request.
      const res = await fetch(`${server.url}/integrations/chat/proj%00ect/commands`, {
        method: 'POST',
        body: 'text=help',
      });
      expect(res.status).toBe(400);
    });
  });

  describe('bodies nested too deep (issue 32)', () => {
    /** `levels` arrays inside one another under `title`: valid JSON that a recursive reader cannot get through. */
    const deepBody = (levels: number) => `{"title":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    let adminKey: string;
    let owner: { cookie: string; 'x-svc-csrf': string };
    beforeAll(async () => {
      const { projectId } = server.bootstrap!;
      adminKey = (await createKey(server.database.db, { now: () => Date.now() }, { projectId, scope: 'admin' })).key;
      // The first owner, through the set-up link the server made: the one caller holding org.manage.
      const setUp = await fetch(`${server.url}/auth/setup`, {
        method: 'POST',
        headers: { origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify({
          token: /#token=([\w-]+)/.exec(server.setupLink ?? '')?.[1],
          email: 'owner@example.com',
          name: 'Owner',
          password: 'correct horse battery',
        }),
      });
      expect(setUp.status).toBe(201);
      owner = {
        cookie: /svc_session=[^;]+/.exec(setUp.headers.get('set-cookie') ?? '')?.[0] ?? '',
        'x-svc-csrf': ((await setUp.json()) as { csrf_token: string }).csrf_token,
      };
    });
    /**
     * The admin key reaches every control-plane route (tenant-wide ones too) but the organisation's, which only an
     * owner changes: the owner's console session sends those; ingest takes the ingest key; the public sign-in routes
     * take a request from the console's own origin.
     */
    const callerOf = (path: string): Record<string, string> =>
      path === '/control-plane/organisation'
        ? owner
        : path.startsWith('/control-plane/')
          ? { authorization: `Bearer ${adminKey}` }
          : { 'x-api-key': ingestKey };
    const send = (method: string, path: string, body: string) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...callerOf(path),
          origin: server.url,
          'content-type': 'application/json',
        },
        body,
      });
    /** The control plane and the sign-in routes read JSON the same bounded way. */
    const readsControlJson = (path: string) => path.startsWith('/control-plane/') || path.startsWith('/auth/');
    const expectTooDeep = async (res: Response, what: string) => {
      const error = await expectRefused(res, 'body', what);
      expect(error.details?.limit, what).toBe(32);
      expect(error.message, what).toMatch(/deeper than 32 levels/);
    };

    it('are refused with a 400 on every JSON route of the API document, naming the limit on the control plane; nothing is stored', async () => {
      const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
      };
      const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.entries(operations)
          .filter(([, operation]) => operation.requestBody?.content?.['application/json'])
          .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x1') })),
      );
      expect(routes.length).toBeGreaterThan(15);
      for (const { method, path } of routes) {
        const res = await send(method, path, deepBody(30_000));
        // Ingest reads OTLP and replay JSON without recursion and names the first field it cannot take.
        if (readsControlJson(path)) await expectTooDeep(res, `${method} ${path}`);
        else expect(res.status, `${method} ${path}`).toBe(400);
      }
      // At the limit the depth is not what is refused.
      const atLimit = await send('POST', '/control-plane/incidents', deepBody(31));
      expect(((await atLimit.json()) as ErrorBody).error.details?.field).not.toBe('body');
      for (const list of ['/incidents', '/notifications/channels', '/notifications/rules', '/sourcemaps'])
        expect(((await (await control(list)).json()) as Page).data, list).toEqual([]);
    });

    it('are refused in an uploaded source map file, naming the file', async () => {
      const map = `{"version":3,"sources":["a.js"],"mappings":"","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
      const form = new FormData();
      form.set('release', '1.0');
      form.set('file', new Blob([map]), 'app.js.map');
      const res = await fetch(`${server.url}/control-plane/sourcemaps`, {
        method: 'POST',
        headers: { authorization: `Bearer ${controlKey}` },
        body: form,
      });
      const body = (await res.json()) as ErrorBody;
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.error).toMatchObject({ code: 'invalid_sourcemap', details: { field: 'file[app.js.map]' } });
      expect(body.error.message).toMatch(/deeper than 32 levels/);
    });
  });

  describe('numbers out of range (item 5)', () => {
    it('are refused in every listing, naming the parameter', async () => {
      for (const path of ['/spans', '/logs', '/metrics', '/recipes', '/replay/chunks', '/sessions']) {
        await expectRefused(await control(`${path}?from=99999999999999999999`), 'from', `${path} from`);
        await expectRefused(await control(`${path}?to=8640000000000001`), 'to', `${path} to`);
        await expectRefused(await control(`${path}?limit=99999999999999999999`), 'limit', `${path} limit`);
      }
      expect((await control('/spans?from=8640000000000000')).status).toBe(200);
      // The cost parameters go through the same check.
      await expectRefused(
        await control('/cost/estimate?trailing_days=99999999999999999999'),
        'trailing_days',
        'trailing_days',
      );
      await expectRefused(await control('/cost/recommendations?lookback_days=1e400'), 'lookback_days', 'lookback_days');
    });

    it('are refused in forged cursors', async () => {
      for (const [path, forged] of [
        ['/spans', { t: 1e300, k: 1 }],
        ['/logs', { t: T0, k: 1e20 }],
        ['/recipes', { t: T0, k: 1.5 }],
        ['/spans', { t: T0, k: 'abc' }],
        ['/sessions', { t: -1e300, k: 's' }],
        ['/incidents', { t: 1e300, k: 'x' }],
        ['/notifications/deliveries', { t: T0, k: 1e300 }],
        ['/sessions/s/recipes', { t: T0, k: 'x' }],
      ] as const) {
        await expectRefused(
          await control(`${path}?cursor=${cursor(forged)}`),
          'cursor',
          `${path} ${JSON.stringify(forged)}`,
        );
      }
    });

    it.runIf(kind === 'postgres')('that PostgreSQL refuses become a 400 as a safety net', async () => {
      const { databaseInputError } = await import('../../server/src/http/errors');
      const { sql } = await import('kysely');
      const { db } = server.database;
      for (const query of [
        sql`select ${'99999999999999999999'}::int8`,
        sql`select ${'1.5'}::int8`,
        sql`select ${'a\u0000'}::text`,
      ]) {
        const failure = await query.execute(db).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(databaseInputError(failure)?.status).toBe(400);
      }
      expect(databaseInputError(new Error('connection refused'))).toBeUndefined();
    });
  });

  describe('bodies over the limit (item 6)', () => {
    /**
     * A raw client that writes `write` of `size` bytes (all by default) before it reads, like most HTTP clients, on a
     * connection it would keep alive; errors (EPIPE, ECONNRESET) are collected.
     */
    function send(path: string, headers: Record<string, string>, size: number, declare = true, write = size) {
      const agent = new Agent({ keepAlive: true });
      return new Promise<{ status?: number; body: string; headers: Record<string, unknown>; errors: string[] }>(
        (resolve) => {
          const errors: string[] = [];
          let answer: { status?: number; body: string; headers: Record<string, unknown> } = { body: '', headers: {} };
          const req = request(`${server.url}${path}`, {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              ...headers,
              ...(declare ? { 'content-length': String(size) } : {}),
            },
          });
          req.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
          req.on('response', (res) => {
            res.setEncoding('utf8');
            res.on('data', (text: string) => (answer.body += text));
            res.on('end', () => (answer = { ...answer, status: res.statusCode, headers: res.headers }));
          });
          req.on('close', () => {
            agent.destroy();
            resolve({ ...answer, errors });
          });
          const piece = Buffer.alloc(64 * 1024, 0x20);
          let sent = 0;
          const pump = (): void => {
            while (sent < write) {
              sent += piece.length;
              if (!req.write(piece)) {
                req.once('drain', pump);
                return;
              }
            }
            if (write === size) req.end();
          };
          pump();
        },
      );
    }
    const ingestHeaders = () => ({ 'x-api-key': ingestKey });
    const controlHeaders = () => ({ authorization: `Bearer ${controlKey}` });

    it.each([
      ['declared', true],
      ['chunked', false],
    ])('ingest answers 413 naming SVC_BODY_LIMIT, the client reads it with no reset (%s)', async (_name, declare) => {
      const sent = await send('/otlp/v1/traces', ingestHeaders(), 4 * 1024 * 1024, declare);
      expect(sent.errors).toEqual([]);
      expect(sent.status).toBe(413);
      expect(sent.headers.connection).not.toBe('close');
      const { error } = JSON.parse(sent.body) as ErrorBody;
      expect(error).toMatchObject({ code: 'payload_too_large', details: { limit: BODY_LIMIT } });
      expect(error.message).toContain('SVC_BODY_LIMIT');
      // Past the drain bounds the answer closes the connection: declared 1 GiB, answered at once; sent in chunks by a
      // client that stalls after 1 MiB, answered once the drain's time is up.
      const huge = await send('/otlp/v1/traces', ingestHeaders(), 1024 ** 3, declare, 1024 * 1024);
      expect(huge.status).toBe(413);
      expect(huge.headers.connection).toBe('close');
    });

    it.each([
      ['declared', true],
      ['chunked', false],
    ])('the control plane answers 413 naming its own fixed 1 MiB limit (%s)', async (_name, declare) => {
      const sent = await send('/control-plane/incidents', controlHeaders(), 4 * 1024 * 1024, declare);
      expect(sent.errors).toEqual([]);
      expect(sent.status).toBe(413);
      const { error } = JSON.parse(sent.body) as ErrorBody;
      expect(error).toMatchObject({ code: 'payload_too_large', details: { limit: 1024 * 1024 } });
      expect(error.message).toContain("control plane's fixed limit of 1 MiB");
      expect(error.message).toContain('SVC_BODY_LIMIT applies to ingest only');
    });
  });

  it("keeps an idle connection 65 s, longer than a load balancer's usual 60 s, so a reused connection is not closed under a request", async () => {
    const agent = new Agent({ keepAlive: true });
    const header = await new Promise<string | undefined>((resolve, reject) => {
      request(`${server.url}/healthz`, { agent }, (res) => {
        res.resume();
        resolve(res.headers['keep-alive']?.toString());
      })
        .on('error', reject)
        .end();
    });
    agent.destroy();
    expect(header).toBe('timeout=65');
  });

  describe('nosniff (item 7)', () => {
    it('is on every answer: JSON, errors, not found, ingest, preflight and pages', async () => {
      const answers = [
        await control('/apps'),
        await control('/incidents/nope'),
        await fetch(`${server.url}/control-plane/apps`),
        await fetch(`${server.url}/no-such-path`),
        await fetch(`${server.url}/healthz`),
        await ingest('/otlp/v1/traces', {}),
        await fetch(`${server.url}/otlp/v1/traces`, {
          method: 'OPTIONS',
          headers: {
            origin: 'http://app.test',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type,x-api-key',
          },
        }),
        await fetch(`${server.url}/`),
        await fetch(`${server.url}/viewer/`, { redirect: 'manual' }),
      ];
      expect(answers.map((res) => `${res.url} ${res.status} ${res.headers.get('x-content-type-options')}`)).toEqual(
        answers.map((res) => `${res.url} ${res.status} nosniff`),
      );
    });
  });
});
