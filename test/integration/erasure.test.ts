import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { claimErasure, queueErasure } from '../../server/src/erasure/store';
import { createDetector } from '../../server/src/incidents/detect/detector';
import { createSymbolicator } from '../../server/src/sourcemaps/symbolicate';
import { createKey, openDatabase, startServer, type RunningServer } from '../../server/src/index';
import { createTempDatabase, databaseKinds, type DatabaseKind, type TempDatabase } from '../support/databases';
import { str } from '../support/otlp';
import { eventually } from '../support/until';

/**
 * Deletion on request (issue 32, docs/governance.md "Deletion on request") through the real server over HTTP on SQLite
 * and PostgreSQL: two users' spans, logs, metric points, replay chunk, recipes and sessions ingested through the ingest
 * API; one user erased by id, the job followed through the API to `done`; then the database's files themselves (SQLite:
 * the database and its WAL; PostgreSQL: every table, index and TOAST relation, as the superuser reads them) hold
 * neither the user's id nor e-mail nor session id, while the other user's data is intact and readable. Bad requests are
 * 400s naming the field and queue nothing; the audit entry names the job, never the person.
 */
const kinds = await databaseKinds();

/** The shipped bin, built by the global setup. */
const CLI = resolve(__dirname, '../../server/dist/cli.js');
const T0 = 1_700_000_000_000;
const ALICE = { id: 'u-alice-7f3k2q', email: 'alice.erasure@example.com', session: 'sess-alice-9c1d7e' };
const ALICE_LONE = 'sess-alice-lone-4b8a';
const BOB = { id: 'u-bob-9q2m5w', email: 'bob.keeps@example.com', session: 'sess-bob-2e6f0a' };
const CAROL = { id: 'u-carol-3h8v1x', email: 'carol.cli@example.com', session: 'sess-carol-5d9b3c' };
const ERIN = { id: 'u-erin-8m3q6z', email: 'erin.attribute@example.com', session: 'sess-erin-4f2a9d' };
const DAVE = { id: 'u-dave-6t4n8p', email: 'dave.resumed@example.com', session: 'sess-dave-1a7e4f' };
type Person = typeof ALICE;

type Job = {
  id: string;
  status: string;
  target: { kind: string; key?: string; digest: string };
  counts: Record<string, number>;
  error: string | null;
};
type ErrorBody = { error: { code: string; message: string; details?: { field?: string } } };

const userAttrs = (p: Person) => [str('user.id', p.id), str('user.email', p.email)];
const resource = (session: string) => ({ attributes: [str('service.name', 'web-app'), str('session.id', session)] });

const traces = (p: Person) => ({
  resourceSpans: [
    {
      resource: resource(p.session),
      scopeSpans: [
        {
          scope: { name: '@svc/test' },
          spans: [
            {
              traceId: p === ALICE ? 'a1'.repeat(16) : 'b2'.repeat(16),
              spanId: p === ALICE ? 'a1'.repeat(8) : 'b2'.repeat(8),
              name: 'GET /api/profile',
              kind: 3,
              startTimeUnixNano: `${T0 * 1_000_000}`,
              endTimeUnixNano: `${(T0 + 5) * 1_000_000}`,
              attributes: [...userAttrs(p), str('url.path', '/profile')],
              status: { code: 1 },
            },
          ],
        },
      ],
    },
  ],
});

/** A backend's span in Alice's trace, in no session: it stays, and so does the trace's summary, less her. */
const backendSpan = {
  resourceSpans: [
    {
      resource: { attributes: [str('service.name', 'web-app')] },
      scopeSpans: [
        {
          scope: { name: '@svc/test' },
          spans: [
            {
              traceId: 'a1'.repeat(16),
              spanId: 'c3'.repeat(8),
              parentSpanId: 'a1'.repeat(8),
              name: 'SELECT orders',
              kind: 2,
              startTimeUnixNano: `${(T0 + 1) * 1_000_000}`,
              endTimeUnixNano: `${(T0 + 3) * 1_000_000}`,
              status: { code: 1 },
            },
          ],
        },
      ],
    },
  ],
};

const logs = (p: Person, session: string, attributes: ReturnType<typeof str>[], severityNumber = 9) => ({
  resourceLogs: [
    {
      resource: resource(session),
      scopeLogs: [
        {
          scope: { name: '@svc/test' },
          logRecords: [
            {
              timeUnixNano: `${(T0 + 10) * 1_000_000}`,
              severityNumber,
              body: { stringValue: `profile saved for ${p.email}` },
              attributes,
            },
          ],
        },
      ],
    },
  ],
});

const metrics = (p: Person) => ({
  resourceMetrics: [
    {
      resource: resource(p.session),
      scopeMetrics: [
        {
          scope: { name: '@svc/test' },
          metrics: [
            {
              name: 'web_vital_lcp_ms',
              unit: 'ms',
              gauge: { dataPoints: [{ timeUnixNano: `${T0 * 1_000_000}`, asDouble: 900, attributes: userAttrs(p) }] },
            },
          ],
        },
      ],
    },
  ],
});

/** An error naming the person: the detector makes an issue of it, with the session, the user and the message. */
const failure = (p: Person) =>
  logs(
    p,
    p.session,
    [...userAttrs(p), str('exception.type', 'PaymentError'), str('exception.message', `card declined for ${p.email}`)],
    17,
  );

/** A replay chunk sent as JSON text, stored as sent: the page shows the person's e-mail. */
const replayChunk = (p: Person) => {
  const events = [
    { type: 4, timestamp: T0, data: { href: 'http://shop.test/profile', width: 1280, height: 720 } },
    {
      type: 2,
      timestamp: T0 + 1,
      data: {
        initialOffset: { top: 0, left: 0 },
        node: { type: 0, id: 1, childNodes: [{ type: 3, id: 2, textContent: `Signed in as ${p.email}` }] },
      },
    },
  ];
  return {
    serviceName: 'web-app',
    sessionId: p.session,
    replayId: `r-${p.session}`,
    seq: 0,
    startTs: T0,
    endTs: T0 + 1,
    eventCount: events.length,
    encoding: 'json',
    data: JSON.stringify(events),
  };
};

const recipe = (p: Person) => ({
  serviceName: 'web-app',
  sessionId: p.session,
  replayId: `r-${p.session}`,
  steps: [
    {
      ts: T0 + 3,
      method: 'GET',
      url: `http://shop.test/api/users/${p.id}`,
      requestHeaders: {},
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: JSON.stringify({ id: p.id }),
      durationMs: 5,
    },
  ],
});

/** A database for the server whose files the test can read: a SQLite file, or a fresh PostgreSQL database. */
async function databaseFor(kind: DatabaseKind): Promise<TempDatabase> {
  if (kind === 'postgres') return createTempDatabase(kind);
  const dir = mkdtempSync(join(tmpdir(), 'svc-erasure-'));
  return { url: join(dir, 'svc.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Every byte the database keeps in files: SQLite's database and WAL; PostgreSQL's tables, indexes and TOAST of the
 * database, read as the superuser after a checkpoint wrote every changed page to them.
 */
async function storedBytes(kind: DatabaseKind, url: string): Promise<Buffer> {
  if (kind === 'sqlite') {
    const files = [url, `${url}-wal`].map((f) => {
      try {
        return readFileSync(f);
      } catch {
        return Buffer.alloc(0);
      }
    });
    return Buffer.concat(files);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('checkpoint');
    const { rows } = await client.query<{ bytes: Buffer }>(`
      select pg_read_binary_file(pg_relation_filepath(c.oid)) as bytes
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('public', 'pg_toast') and c.relkind in ('r', 'i', 't') and pg_relation_filepath(c.oid) is not null`);
    expect(rows.length).toBeGreaterThan(50);
    return Buffer.concat(rows.map((r) => r.bytes));
  } finally {
    await client.end();
  }
}

describe.each(kinds)('deletion on request on %s', (kind) => {
  let database: TempDatabase;
  let server: RunningServer;
  let controlKey: string;
  let ingestKey: string;
  let adminKey: string;

  const call = async <T>(method: string, path: string, body?: unknown, key = controlKey) => {
    const res = await fetch(`${server.url}/control-plane${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const ingest = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, `POST ${path}: ${await res.clone().text()}`).toBe(200);
  };
  const jobs = async () => (await call<{ data: Job[] }>('GET', '/erasures')).body.data;
  const auditOf = async () =>
    (
      await call<{ data: Array<{ operation: string; target: unknown; changes: unknown }> }>(
        'GET',
        `/audit?operation=${encodeURIComponent('POST /control-plane/erasures')}`,
        undefined,
        adminKey,
      )
    ).body.data;

  const waitFor = (id: string) =>
    eventually(`erasure ${id} to finish`, async () => {
      const { body } = await call<Job>('GET', `/erasures/${id}`);
      return body.status === 'done' || body.status === 'failed' ? body : undefined;
    });

  beforeAll(async () => {
    database = await databaseFor(kind);
    // Jobs start when woken (a request's commit, the tests below): no poll claims one behind a test's back.
    server = await startServer({
      port: 0,
      log: () => undefined,
      detection: false,
      databaseUrl: database.url,
      erasure: { pollMs: 3_600_000 },
    });
    const boot = server.bootstrap!;
    controlKey = boot.controlKey.key;
    ingestKey = boot.ingestKey.key;
    adminKey = (await createKey(server.database.db, systemClock, { projectId: boot.projectId, scope: 'admin' })).key;
    for (const p of [CAROL, DAVE]) await ingest('/otlp/v1/logs', logs(p, p.session, userAttrs(p)));
    await ingest('/otlp/v1/logs', logs(ERIN, ERIN.session, [...userAttrs(ERIN), str('customer.ref', 'cust-erin-77')]));
    for (const p of [ALICE, BOB]) {
      await ingest('/otlp/v1/traces', traces(p));
      await ingest('/otlp/v1/logs', logs(p, p.session, userAttrs(p)));
      await ingest('/otlp/v1/metrics', metrics(p));
      await ingest('/ingest/replay/chunk', replayChunk(p));
      await ingest('/ingest/replay/recipes', recipe(p));
    }
    await ingest('/otlp/v1/traces', backendSpan);
    // Alice's error last: the issue's last event names her session.
    for (const p of [BOB, ALICE]) await ingest('/otlp/v1/logs', failure(p));
    // Alice's second session, named only through her id on one record: it goes whole too.
    await ingest('/otlp/v1/logs', logs(ALICE, ALICE_LONE, [str('user.id', ALICE.id)]));
    // Issues of the errors, with their sessions, user breakdown and sample messages, as the server's detector makes them.
    const { db } = server.database;
    const commands = server.notify.incidents;
    const detector = createDetector({
      db,
      clock: systemClock,
      commands,
      publicUrl: server.publicUrl,
      box: server.notify.box,
      symbolicator: createSymbolicator({ db }),
    });
    await detector.runOnce();
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it('refuses a request naming no target, two, or a bad one with a 400 naming the field, and queues nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'user_id'],
      [{ user_id: ALICE.id, session_id: ALICE.session }, 'session_id'],
      [{ user_id: '' }, 'user_id'],
      [{ user_id: 42 }, 'user_id'],
      [{ session_id: 'x'.repeat(1025) }, 'session_id'],
      [{ attribute: { key: 'user id', value: ALICE.id } }, 'attribute.key'],
      [{ attribute: { key: 'user.email' } }, 'attribute.value'],
      [{ email: ALICE.email }, 'email'],
    ];
    for (const [body, field] of cases) {
      const res = await call<ErrorBody>('POST', '/erasures', body);
      expect([JSON.stringify(body), res.status, res.body.error.code, res.body.error.details?.field]).toEqual([
        JSON.stringify(body),
        400,
        'invalid_request',
        field,
      ]);
    }
    expect(await jobs()).toEqual([]);
    expect(await auditOf()).toEqual([]);
    expect((await call<ErrorBody>('GET', '/erasures/era_none')).status).toBe(404);
  });

  it("erases one user everywhere, down to the database's files, and keeps the other's", async () => {
    const before = await storedBytes(kind, database.url);
    // The search finds what it looks for: before the job, the files hold the person (her e-mail in clear in the replay).
    expect(before.includes(ALICE.email)).toBe(true);
    expect(before.includes(ALICE.id)).toBe(true);

    const queued = await call<Job>('POST', '/erasures', { user_id: ALICE.id });
    expect(queued.status).toBe(202);
    expect(queued.body.target).toEqual({ kind: 'user_id', digest: expect.stringMatching(/^sha256:[0-9a-f]{16}$/) });
    expect(JSON.stringify(queued.body)).not.toContain(ALICE.id);
    const done = await waitFor(queued.body.id);
    expect(done).toMatchObject({ status: 'done', error: null });
    expect(done.counts).toMatchObject({
      spans: 1,
      logs: 3,
      metric_points: 1,
      replay_chunks: 1,
      recipes: 1,
      sessions: 2,
      issue_sessions: 1,
      detection_sessions: 1,
      issue_facets: 1,
      detection_groups: 1,
    });

    const after = await storedBytes(kind, database.url);
    for (const gone of [ALICE.id, ALICE.email, ALICE.session, ALICE_LONE])
      expect(after.includes(gone), `${gone} is still stored`).toBe(false);
    for (const kept of [BOB.id, BOB.email, BOB.session]) expect(after.includes(kept), `${kept} is gone`).toBe(true);

    // Through the API: Alice's sessions are gone, Bob's whole, with his replay and recipe.
    for (const session of [ALICE.session, ALICE_LONE])
      expect((await call<ErrorBody>('GET', `/sessions/${session}`)).status).toBe(404);
    const bob = await call<Record<string, unknown>>('GET', `/sessions/${BOB.session}`);
    expect(bob.status).toBe(200);
    expect(bob.body).toMatchObject({ session_id: BOB.session, user: { id: BOB.id, email: BOB.email } });
    const counts = await call<{ data: unknown[] }>('GET', `/sessions/${BOB.session}/recipes`);
    expect(counts.body.data).toHaveLength(1);
    const replay = await call<{ events: unknown[] }>('GET', `/sessions/${BOB.session}/replay`);
    expect(JSON.stringify(replay.body.events)).toContain(BOB.email);
    const spans = await call<{ data: unknown[] }>('GET', '/spans');
    expect(spans.body.data).toHaveLength(2);
    // Alice's trace keeps its backend span and its summary, without her session or her root span.
    const trace = await call<{ data: Array<Record<string, unknown>> }>('GET', `/traces?trace_id=${'a1'.repeat(16)}`);
    expect(trace.body.data).toEqual([expect.objectContaining({ trace_id: 'a1'.repeat(16), session_id: null })]);
    // The issue stays, with Bob's session and user in it.
    const issues = await call<{ data: Array<{ id: string }> }>('GET', '/issues');
    const sessionsOf = await Promise.all(
      issues.body.data.map(async (i) => JSON.stringify((await call('GET', `/issues/${i.id}`)).body)),
    );
    expect(sessionsOf.join('')).toContain(BOB.id);

    // The audit entry names the job and the masked target; the files above already hold no copy of the id.
    expect(await auditOf()).toEqual([
      expect.objectContaining({
        target: { type: 'erasure', id: queued.body.id },
        changes: { after: { target: queued.body.target } },
      }),
    ]);
    expect(await jobs()).toEqual([done]);
  });

  it('svc-server erase queues a job with its audit entry and, with --wait, works it and prints the counts', async () => {
    const erase = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((done) => {
        const env = { ...process.env, SVC_DATABASE_URL: database.url };
        execFile(process.execPath, [CLI, 'erase', ...args], { env }, (error, out, err) =>
          done({ code: error ? Number(error.code) : 0, out, err }),
        );
      });
    const both = await erase('--user-id', CAROL.id, '--session-id', CAROL.session);
    expect([both.code, both.err]).toEqual([2, expect.stringContaining('name exactly one of --user-id')]);
    const bad = await erase('--attribute', 'user.email');
    expect([bad.code, bad.err]).toEqual([2, expect.stringContaining('--attribute must be KEY=VALUE')]);
    expect(await jobs()).toHaveLength(1);

    const { code, out, err } = await erase('--session-id', CAROL.session, '--wait');
    expect(code, err).toBe(0);
    expect(out.trim().split('\n')).toEqual([
      expect.stringMatching(/^erasure era_\S+ \(session_id sha256:[0-9a-f]{16}\): queued$/),
      expect.stringMatching(/^erasure era_\S+ \(session_id sha256:[0-9a-f]{16}\): done, logs 1, sessions 1$/),
    ]);
    expect(out + err).not.toContain(CAROL.session);
    expect((await call<ErrorBody>('GET', `/sessions/${CAROL.session}`)).status).toBe(404);
    expect((await auditOf())[0]).toMatchObject({ actor: { kind: 'system', id: 'cli', label: 'cli' } });
  });

  it('a job left running by a process that died is taken over once its lease ran out', async () => {
    const { db, dialect } = server.database;
    const project = { tenantId: server.bootstrap!.tenantId, projectId: server.bootstrap!.projectId };
    const row = await queueErasure(db, systemClock, project, { kind: 'user_id', value: DAVE.id }, 'test');
    // Claimed by a process that stopped renewing its lease a minute ago.
    const [claimed] = await claimErasure(db, dialect, { owner: 'e_dead', nowMs: Date.now() - 60_000, leaseMs: 1_000 });
    expect(claimed).toMatchObject({ id: row.id, status: 'running', lease_owner: 'e_dead' });
    server.erasures.wake();
    expect(await waitFor(row.id)).toMatchObject({ status: 'done', counts: { logs: 1, sessions: 1 } });
    const stored = await storedBytes(kind, database.url);
    for (const gone of [DAVE.id, DAVE.email, DAVE.session]) expect(stored.includes(gone), gone).toBe(false);
  });

  it('two processes claiming at once: one gets the job, the other nothing', async () => {
    const { db, dialect } = server.database;
    const project = { tenantId: server.bootstrap!.tenantId, projectId: server.bootstrap!.projectId };
    const row = await queueErasure(db, systemClock, project, { kind: 'user_id', value: 'u-nobody-2w8r' }, 'test');
    const other = openDatabase(database.url, { create: false });
    try {
      // Leases that ran out at once, so this server's worker finishes the job afterwards.
      const lease = (owner: string) => ({ owner, nowMs: Date.now() - 60_000, leaseMs: 1_000 });
      const claims = await Promise.all([
        claimErasure(db, dialect, lease('e_one')),
        claimErasure(other.db, dialect, lease('e_two')),
      ]);
      expect(claims.flat().map((r) => r.id)).toEqual([row.id]);
    } finally {
      await other.close();
    }
    server.erasures.wake();
    expect(await waitFor(row.id)).toMatchObject({ status: 'done', counts: {} });
  });

  it('erases by an attribute value: the records naming it and their sessions whole', async () => {
    const queued = await call<Job>('POST', '/erasures', { attribute: { key: 'customer.ref', value: 'cust-erin-77' } });
    expect(queued.status).toBe(202);
    expect(queued.body.target).toMatchObject({ kind: 'attribute', key: 'customer.ref' });
    expect(await waitFor(queued.body.id)).toMatchObject({ status: 'done', counts: { logs: 1, sessions: 1 } });
    expect((await call<ErrorBody>('GET', `/sessions/${ERIN.session}`)).status).toBe(404);
    const stored = await storedBytes(kind, database.url);
    for (const gone of [ERIN.id, ERIN.email, 'cust-erin-77']) expect(stored.includes(gone), gone).toBe(false);
  });
});
