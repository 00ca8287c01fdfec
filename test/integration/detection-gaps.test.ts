import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDetector, type Detector } from '../../server/src/incidents/detect/detector';
import { DETECTION_DEFAULTS, type DetectionOptions } from '../../server/src/incidents/detect/thresholds';
import type { IncidentStore } from '../../server/src/incidents/store';
import type { IncidentView } from '../../server/src/incidents/types';
import { databaseKinds } from '../support/databases';
import { detectionIncidentStore } from '../support/incident-store';
import { chromeStack, errorLog, type ErrorInput } from '../support/error-logs';
import { createLastingDatabase, startServerProcess, type ServerProcess } from '../support/server-process';
import { startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * Incident detection past id gaps (issue 22 item 2; docs/incidents.md, "Detection"): rows after a gap are counted at
 * once, a row that commits late inside a gap is counted once, and every gap is timed from its first sight, so no
 * number of gaps delays an incident by more than one gap wait. In process with a driven clock on both databases, then
 * with two `svc-server start` processes on one PostgreSQL database, one of them SIGKILLed with ingest in flight.
 */
const kinds = await databaseKinds();

const T0 = 1_800_000_000_000;
const SETTLE = DETECTION_DEFAULTS.holeSettleMs;
/** An info record: a real row that is not an error. */
const INFO = 9;

/**
 * Detection batches of every process on a PostgreSQL database as they commit: each batch's first statement updates the
 * logs cursor's row (incidents/detect/cursor.ts, lockCursor), so the row's xmin names the last batch committed. Only
 * detection batches write that row.
 */
async function detectionBatches(client: pg.Client) {
  const read = async () => {
    const { rows } = await client.query<{ batch: string; lastId: string }>(
      `select xmin::text as batch, last_id::text as "lastId" from detection_cursors where source = 'logs'`,
    );
    return rows[0]!;
  };
  let seen = (await read()).batch;
  return {
    /** The logs cursor once `count` more batches have committed. */
    after(count: number, what: string) {
      let left = count;
      return eventually(what, async () => {
        const cursor = await read();
        if (cursor.batch !== seen) {
          seen = cursor.batch;
          left--;
        }
        return left <= 0 ? cursor : undefined;
      });
    },
  };
}

describe.each(kinds)('incident detection past id gaps on %s', (kind) => {
  let t: TestServer;
  let now = T0;
  const clock = { now: () => now };
  let store: IncidentStore;

  const post = async (body: unknown) => {
    const res = await fetch(`${t.url}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBe(200);
  };
  const sendErrors = async (count: number, e: Omit<ErrorInput, 'atMs'>) => {
    for (let i = 0; i < count; i++) await post(errorLog({ ...e, atMs: now }));
  };
  const detector = (options: Partial<DetectionOptions> = {}): Detector =>
    createDetector({
      db: t.server.database.db,
      clock,
      commands: store,
      publicUrl: t.server.publicUrl,
      box: t.server.notify.box,
      options,
    });
  const logsCursor = async () => {
    const row = await t.server.database.db
      .selectFrom('detection_cursors')
      .select('pending')
      .where('source', '=', 'logs')
      .executeTakeFirstOrThrow();
    return JSON.parse(row.pending) as { gaps: unknown[]; marks: unknown[] };
  };

  /**
   * A row, then an id gap after it. On PostgreSQL an id taken and never committed, as a rolled-back ingest transaction
   * (or a conflicting idempotent insert) leaves it. SQLite gives a rolled-back insert's id to the next row, so there a
   * gap is a deleted row, as retention leaves one among rows the detector has not read.
   */
  const rowThenGap = async () => {
    await post(errorLog({ atMs: now, message: 'Cart updated' }, INFO));
    const db = t.server.database.db;
    if (kind === 'postgres') {
      await sql`select nextval(pg_get_serial_sequence('logs', 'id'))`.execute(db);
    } else {
      const { id } = await db
        .selectFrom('logs')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow();
      await post(errorLog({ atMs: now, message: 'Cart updated' }, INFO));
      await db.deleteFrom('logs').where('id', '=', Number(id)).execute();
    }
  };

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    store = detectionIncidentStore(t, clock);
  });
  afterAll(() => t?.close());

  it.runIf(kind === 'postgres')(
    'counts the errors after a dozen unsettled gaps at once, and an error committing late inside a gap exactly once',
    async () => {
      const message = 'Late commit among gaps';
      const appId = (
        await t.server.database.db
          .selectFrom('apps')
          .select('id')
          .where('project_id', '=', t.projectId)
          .executeTakeFirstOrThrow()
      ).id;
      const late = new pg.Client({ connectionString: t.server.database.displayUrl });
      await late.connect();
      try {
        // An ingest transaction that took its id first and commits after everything below.
        await late.query('begin');
        await late.query(
          `insert into logs (project_id, app_id, time_ms, received_ms, time_ns, observed_ns, severity_number, body, attributes, resource, scope)
         values ($1, $2, $3, $3, $4, '0', 17, $5, $6, $7, '{}')`,
          [
            t.projectId,
            appId,
            now,
            `${now}000000`,
            JSON.stringify(`TypeError: ${message}`),
            JSON.stringify({
              'exception.type': 'TypeError',
              'exception.message': message,
              'exception.stacktrace': chromeStack(message),
            }),
            JSON.stringify({ attributes: { 'service.name': 'web-app', 'deployment.environment.name': 'staging' } }),
          ],
        );
        for (let i = 0; i < 12; i++) await rowThenGap();
        await sendErrors(4, { message });
        // No time passes: nothing has settled, yet the four errors after the thirteen gaps are counted.
        expect(await detector().runOnce()).toMatchObject({ errors: 4, opened: [] });
        expect((await logsCursor()).gaps).toHaveLength(13);
        await late.query('commit');
      } finally {
        await late.end();
      }
      const report = await detector().runOnce();
      expect(report).toMatchObject({ errors: 1 });
      expect(report.opened).toHaveLength(1);
      expect(await store.get(t.projectId, report.opened[0]!)).toMatchObject({ evidence: { error_count: 5 } });
      expect(await detector().runOnce()).toMatchObject({ errors: 0, opened: [] });
      now += SETTLE;
      expect(await detector().runOnce()).toMatchObject({ errors: 0, opened: [] });
      expect(await logsCursor()).toEqual({ gaps: [], marks: [] });
      now += 31 * 60_000;
      expect((await detector().runOnce()).resolved).toEqual(report.opened);
    },
  );

  it('past more open gaps than it keeps, opens the incident after one gap wait, not one per gap', async () => {
    const message = 'Burst behind many gaps';
    const limited = detector({ maxGaps: 3 });
    for (let i = 0; i < 12; i++) await rowThenGap();
    await sendErrors(5, { message });
    expect((await limited.runOnce()).opened).toEqual([]);
    now += SETTLE - 1;
    expect((await limited.runOnce()).opened).toEqual([]);
    now += 1;
    // All twelve were first seen at the first run: they settle together.
    const report = await limited.runOnce();
    expect(report).toMatchObject({ errors: 5 });
    expect(report.opened).toHaveLength(1);
    expect(await logsCursor()).toEqual({ gaps: [], marks: [] });
    now += 31 * 60_000;
    expect((await limited.runOnce()).resolved).toEqual(report.opened);
  });
});

describe.runIf(kinds.includes('postgres'))(
  'incident detection with two svc-server processes on one PostgreSQL database',
  () => {
    const SECRET_KEY = 'detection-gaps-test-secret-key-0123456789';
    const processes: ServerProcess[] = [];
    const cleanups: Array<() => Promise<void>> = [];
    // Processes first, so nothing writes to a dropped database.
    afterAll(async () => {
      await Promise.all(processes.map((p) => p.kill()));
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    // Startup, a kill and three detection intervals; a loaded machine takes longer, so the bound is generous.
    it(
      'counts a burst in the first detection run after it was answered, past a dozen gaps and a replica killed mid-ingest, and opens its incident in that run',
      { timeout: 120_000 },
      async () => {
        const database = await createLastingDatabase('postgres');
        cleanups.push(() => database.drop());
        const start = async () => {
          const started = await startServerProcess({ 'database-url': database.url, 'secret-key': SECRET_KEY });
          processes.push(started);
          return started;
        };
        const doomed = await start();
        const survivor = await start();
        const ingestKey = /ingest key:\s+(\S+)/.exec(doomed.output())![1]!;
        const controlKey = doomed.controlKey!;
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        cleanups.push(() => client.end());
        const ingest = (to: ServerProcess, body: unknown) =>
          fetch(`${to.url}/otlp/v1/logs`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': ingestKey },
            body: JSON.stringify(body),
          });
        const send = async (to: ServerProcess, e: ErrorInput, severity?: number) => {
          const res = await ingest(to, errorLog(e, severity));
          expect(res.status, await res.text()).toBe(200);
        };

        // A dozen gaps between real rows: ids taken and never committed, as rolled-back ingest transactions leave them.
        for (let i = 0; i < 12; i++) {
          await send(survivor, { atMs: Date.now(), message: `Cart updated ${i}` }, INFO);
          await client.query(`select nextval(pg_get_serial_sequence('logs', 'id'))`);
        }

        // Ingest in flight when a replica dies: eight requests, each of which has inserted its log row and waits for the
        // session row this test holds locked (the writer counts the session after the rows, in the same transaction).
        const held = 'held-session';
        await send(doomed, { atMs: Date.now(), message: 'Session started', sessionId: held }, INFO);
        const lock = new pg.Client({ connectionString: database.url });
        await lock.connect();
        await lock.query('begin');
        await lock.query('select 1 from sessions where session_id = $1 for update', [held]);
        const inFlight = Array.from({ length: 8 }, (_, i) =>
          ingest(doomed, errorLog({ atMs: Date.now(), message: `Checkout step ${i} failed`, sessionId: held })).then(
            () => 'answered',
            () => 'cut off',
          ),
        );
        const waiting = await eventually(
          'eight ingest transactions of the doomed process to wait for the session row',
          async () => {
            const { rows } = await client.query<{ pid: number }>(
              `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%insert into "sessions"%'`,
            );
            return rows.length >= 8 ? rows.map((r) => r.pid) : undefined;
          },
        );
        await doomed.kill();
        await lock.query('rollback');
        await lock.end();
        expect(await Promise.all(inFlight)).toEqual(Array(8).fill('cut off'));
        // Their client is gone: each rolls back once it has the row, leaving the ids it took as gaps.
        await eventually("the killed process's transactions to end", async () => {
          const { rows } = await client.query<{ n: number }>(
            'select count(*)::int as n from pg_stat_activity where pid = any($1)',
            [waiting],
          );
          return rows[0]!.n === 0 ? true : undefined;
        });

        const message = 'Payment form crashed';
        for (let i = 0; i < 5; i++) await send(survivor, { atMs: Date.now(), message, sessionId: `buyer-${i}` });
        const answered = await detectionBatches(client);
        const { rows } = await client.query<{ gaps: number; last: string }>(
          `select count(*) filter (where step > 1)::int as gaps, max(id)::text as last from (select id, id - lag(id) over (order by id) as step from logs) s`,
        );
        expect(rows[0]!.gaps, 'id gaps before the burst').toBeGreaterThanOrEqual(13);

        // Counted by the first detection run after the requests were answered, whatever the gaps (docs/incidents.md, "Gaps
        // in row ids"): the second batch to commit from here began its reads after the first committed, so after them.
        const counted = await answered.after(2, 'two detection batches after the burst was answered');
        expect(BigInt(counted.lastId), 'the logs cursor after those batches').toBeGreaterThanOrEqual(
          BigInt(rows[0]!.last),
        );
        // The run that counted the burst opened the incident: one batch later (the survivor runs one at a time) it is there.
        await answered.after(1, 'the detection run after the one that counted the burst');
        const headers = { authorization: `Bearer ${controlKey}` };
        const list = (await (await fetch(`${survivor.url}/control-plane/incidents`, { headers })).json()) as {
          data: IncidentView[];
        };
        const incident = list.data.find((i) => i.title.includes(message));
        expect(incident, 'the incident').toBeDefined();
        const detail = (await (
          await fetch(`${survivor.url}/control-plane/incidents/${incident!.id}`, { headers })
        ).json()) as IncidentView;
        // Exactly the five: none counted twice, none of the killed process's rows.
        expect(detail.evidence).toMatchObject({ error_count: 5 });
      },
    );
  },
);
