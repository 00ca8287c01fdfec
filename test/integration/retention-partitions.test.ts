import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { openDatabase } from '../../server/src/db/connect';
import { migrateToLatest, migrateUpTo } from '../../server/src/db/migrate';
import { ensurePartitions, PAST_DAYS_PER_RUN } from '../../server/src/db/partitions';
import { applyRetention, createKey, createProject, registerApp } from '../../server/src/index';
import { retentionDefaults } from '../../server/src/retention/signals';
import { API_KEY_HEADER } from '../../wire/paths';
import { createTempDatabase, databaseKinds } from '../support/databases';
import { str, traceBody } from '../support/otlp';
import { controlCall, startTestServer, type TestServer } from '../support/server';

/**
 * Time partitions on PostgreSQL (issue 33, docs/governance.md "Retention"): the server makes each telemetry table's day
 * partitions ahead, a row of any time is stored (the default partition takes what no day holds), a retried span, log
 * record or replay chunk is stored once, retention drops a day no project keeps anything of and deletes in batches
 * within a day some project still keeps, and migration 0032 converts a database that already holds rows.
 */
const kinds = await databaseKinds();
const DAY = 86_400_000;
const TABLES = ['spans', 'logs', 'metric_points', 'replay_chunks', 'recipes'];
const dayName = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

describe.runIf(kinds.includes('postgres'))('time partitions on PostgreSQL', () => {
  let t: TestServer;
  const start = Date.now();
  let now = start;
  const clock = { now: () => now };
  let other: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await startTestServer('postgres', { clock, detection: false, retentionDays: 30 });
    const { db } = t.server.database;
    const tenantId = t.server.bootstrap!.tenantId;
    other = await createProject(db, systemClock, tenantId, 'other');
    await registerApp(db, systemClock, other, 'web-app');
    otherKey = (await createKey(db, systemClock, { projectId: other, scope: 'ingest' })).key;
  });
  afterAll(async () => t?.close());

  const ingest = async (path: string, body: unknown, key = t.ingestKey) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [API_KEY_HEADER]: key },
      body: JSON.stringify(body),
    });
    expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  };
  const query = async <R>(text: ReturnType<typeof sql<R>>) => (await text.execute(t.server.database.db)).rows;
  const partitionsOf = async (table: string) =>
    (
      await query<{ name: string }>(sql`select c.relname as name from pg_inherits i
        join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
        where p.relname = ${table} order by c.relname`)
    ).map((r) => r.name);
  /** Where each span of `session` lies: its partition's name. */
  const spansOf = async (session: string) =>
    (
      await query<{ part: string }>(sql`select tableoid::regclass::text as part from spans
        where session_id = ${session} order by time_ms`)
    ).map((r) => r.part);

  it('makes every telemetry table partitioned, with today and the days ahead made by the server', async () => {
    for (const table of TABLES) {
      const kind = await query<{ kind: string }>(sql`select relkind as kind from pg_class where relname = ${table}`);
      expect(kind, table).toEqual([{ kind: 'p' }]);
      const parts = await partitionsOf(table);
      expect(parts).toEqual(expect.arrayContaining([`${table}_default`, `${table}_before`]));
      for (let d = 0; d <= 7; d++) expect(parts, table).toContain(`${table}_p${dayName(start + d * DAY)}`);
    }
  });

  it('stores a row of any time: a day without a partition goes to the default one, and moves out when it comes', async () => {
    const far = start + 40 * DAY;
    await ingest('/otlp/v1/traces', traceBody([{ sessionId: 'skewed', startMs: far }]));
    await ingest('/otlp/v1/traces', traceBody([{ sessionId: 'skewed', startMs: 1_000 }]));
    // The time before the migration's days has a partition of its own.
    expect(await spansOf('skewed')).toEqual(['spans_before', 'spans_default']);
    // 36 days on, the maintenance job makes the far day's partition, and the row sent early moves into it.
    await applyRetention(t.server.database.db, { now: () => far - 4 * DAY }, retentionDefaults(0));
    expect(await spansOf('skewed')).toEqual(['spans_before', `spans_p${dayName(far)}`]);
  });

  it('stores a retried span, log record and replay chunk once', async () => {
    const span = traceBody([{ sessionId: 'retried', spanId: 'aaaaaaaaaaaaaaaa', startMs: start }]);
    const log = (timeNs: string) => ({
      resourceLogs: [
        {
          resource: { attributes: [str('service.name', 'web-app'), str('session.id', 'retried')] },
          scopeLogs: [
            {
              scope: { name: '@svc/test' },
              logRecords: [
                {
                  timeUnixNano: timeNs,
                  body: { stringValue: `timed ${timeNs}` },
                  attributes: [str('log.record.uid', `uid-${timeNs}`)],
                },
              ],
            },
          ],
        },
      ],
    });
    const chunk = {
      serviceName: 'web-app',
      sessionId: 'retried',
      replayId: 'r-1',
      seq: 0,
      startTs: start,
      endTs: start + 1,
      eventCount: 1,
      encoding: 'json',
      data: JSON.stringify([{ type: 4, timestamp: start, data: { href: 'http://a.test/', width: 1, height: 1 } }]),
    };
    for (let i = 0; i < 2; i++) {
      await ingest('/otlp/v1/traces', span);
      await ingest('/otlp/v1/logs', log(`${start * 1_000_000}`));
      // No time at all: stored at its receipt, which a retry does not repeat.
      now += 1_000;
      await ingest('/otlp/v1/logs', log('0'));
      await ingest('/ingest/replay/chunk', chunk);
    }
    const counts = await query<{ spans: number; logs: number; chunks: number }>(sql`select
      (select count(*) from spans where session_id = 'retried') as spans,
      (select count(*) from logs where session_id = 'retried') as logs,
      (select count(*) from replay_chunks where session_id = 'retried') as chunks`);
    expect(counts).toEqual([{ spans: 1, logs: 2, chunks: 1 }]);
    now = start;
  });

  it('makes the partitions of past days the default partition holds, moving their rows once, a run at a time', async () => {
    const { db } = t.server.database;
    // Backfilled telemetry of the 10 days before today, and of a day long ago received 60 days back (expired).
    const backDays = Array.from({ length: PAST_DAYS_PER_RUN + 2 }, (_, i) => start - (i + 1) * DAY);
    await ingest('/otlp/v1/traces', traceBody(backDays.map((ms) => ({ sessionId: 'backfill', startMs: ms }))));
    now = start - 60 * DAY;
    await ingest('/otlp/v1/traces', traceBody([{ sessionId: 'expired', startMs: start - 55 * DAY }]));
    now = start;
    expect(new Set(await spansOf('backfill'))).toEqual(new Set(['spans_default']));
    const partOf = (ms: number) => `spans_p${dayName(ms)}`;

    // One run makes the newest days' partitions, within its bound, and moves their rows in.
    await applyRetention(db, clock, retentionDefaults(30));
    const newest = backDays.slice(0, PAST_DAYS_PER_RUN).map(partOf);
    const oldest = backDays.slice(PAST_DAYS_PER_RUN);
    expect(await spansOf('backfill')).toEqual([...oldest.map(() => 'spans_default'), ...newest.reverse()]);

    // Two replicas' runs at once: the rest move, each row once; the expired day gets no partition and its row goes.
    await Promise.all([0, 1].map(() => applyRetention(db, clock, retentionDefaults(30))));
    expect(await spansOf('backfill')).toEqual([...backDays].reverse().map(partOf));
    expect(await spansOf('expired')).toEqual([]);
    expect(await partitionsOf('spans')).not.toContain(partOf(start - 55 * DAY));
    // A run that finds every day made makes nothing (bench:scale runs the job until then).
    expect(await ensurePartitions(db, now)).toBe(0);
  });

  it('drops a day no project keeps, deletes in batches within a day a project keeps, keeps younger days', async () => {
    const { db } = t.server.database;
    // Today's spans of both projects, received today; tomorrow's, received in two days.
    for (const key of [t.ingestKey, otherKey])
      await ingest('/otlp/v1/traces', traceBody([{ sessionId: 'today', startMs: start }]), key);
    now = start + 2 * DAY;
    for (const key of [t.ingestKey, otherKey])
      await ingest('/otlp/v1/traces', traceBody([{ sessionId: 'tomorrow', startMs: start + DAY }]), key);
    // This project keeps spans 7 days, the other the server's 30.
    expect((await controlCall(t, 'PUT', '/retention', { spans: 7 })).status).toBe(200);
    const today = `spans_p${dayName(start)}`;
    const tomorrow = `spans_p${dayName(start + DAY)}`;

    now = start + 10 * DAY;
    const early = await applyRetention(db, clock, retentionDefaults(30), { batchSize: 1 });
    // This project's rows went one batch at a time; the other keeps its own, so both days stay.
    expect(await partitionsOf('spans')).toEqual(expect.arrayContaining([today, tomorrow]));
    const left = await query<{ project_id: string; session_id: string }>(sql`select project_id, session_id from spans
      where session_id in ('today', 'tomorrow') order by session_id`);
    expect(left).toEqual([
      { project_id: other, session_id: 'today' },
      { project_id: other, session_id: 'tomorrow' },
    ]);
    expect(early.deleted.spans).toBeGreaterThanOrEqual(2);

    now = start + 31 * DAY;
    const late = await applyRetention(db, clock, retentionDefaults(30));
    const parts = await partitionsOf('spans');
    // Today's day held only rows received before every cutoff: dropped whole. Tomorrow's other rows arrived later.
    expect(parts).not.toContain(today);
    expect(parts).toContain(tomorrow);
    expect(await spansOf('tomorrow')).toEqual([tomorrow]);
    expect(await spansOf('today')).toEqual([]);
    expect(late.deleted.spans).toBeGreaterThanOrEqual(1);
  });
});

describe.runIf(kinds.includes('postgres'))('migration 0032 on a database that holds rows', () => {
  it('converts each table, keeping its rows, ids, sequence and indexes', async () => {
    const database = await createTempDatabase('postgres');
    const handle = openDatabase(database.url);
    try {
      await migrateUpTo(handle, '0029-erasures');
      const { db } = handle;
      const now = Date.now();
      const span = (spanId: string, timeMs: number) => sql`insert into spans (project_id, app_id, time_ms, received_ms,
        trace_id, trace_key, span_id, name, kind, start_ns, end_ns, duration_ms, status_code, session_id, attributes,
        events, links, resource, scope) values ('p', 'a', ${timeMs}, ${now}, ${'ab'.repeat(16)}, 7, ${spanId}, 'n', 1,
        '1', '2', 1, 0, 's', '{}', '[]', '[]', '{}', '{}')`;
      await span('0000000000000001', now).execute(db);
      await span('0000000000000002', now - 3 * DAY).execute(db);
      await span('0000000000000003', 1_000).execute(db);
      await sql`insert into logs (project_id, app_id, time_ms, received_ms, time_ns, observed_ns, severity_number,
        body, attributes, resource, scope, record_uid) values ('p', 'a', ${now}, ${now}, '1', '1', 9, '"x"', '{}', '{}',
        '{}', 'u1')`.execute(db);

      await migrateToLatest(handle);
      const rows = await sql<{ id: number; span_id: string; part: string }>`select id, span_id,
        tableoid::regclass::text as part from spans order by span_id`.execute(db);
      expect(rows.rows).toEqual([
        { id: 1, span_id: '0000000000000001', part: `spans_p${dayName(now)}` },
        { id: 2, span_id: '0000000000000002', part: `spans_p${dayName(now - 3 * DAY)}` },
        { id: 3, span_id: '0000000000000003', part: 'spans_before' },
      ]);
      // The sequence went with the table: the next span gets the next id, and a retried one is refused.
      await span('0000000000000004', now).execute(db);
      await expect(span('0000000000000004', now).execute(db)).rejects.toThrow(/duplicate key/);
      const next = await sql<{ id: number }>`select id from spans where span_id = '0000000000000004'`.execute(db);
      expect(next.rows).toEqual([{ id: 4 }]);
      const indexes = await sql<{ name: string; def: string }>`select indexname as name, indexdef as def
        from pg_indexes where tablename = 'logs' order by indexname`.execute(db);
      // Made again on the partitioned table by the same names (later migrations may replace others).
      expect(indexes.rows.map((r) => r.name)).toEqual(
        expect.arrayContaining(['logs_pkey', 'logs_project_received', 'logs_project_time', 'logs_record_uid']),
      );
      expect(indexes.rows.find((r) => r.name === 'logs_record_uid')!.def).toMatch(
        /\(project_id, record_uid, time_ms\) WHERE \(record_uid IS NOT NULL\)$/,
      );
      const logs = await sql<{ n: number }>`select count(*) as n from logs where record_uid = 'u1'`.execute(db);
      expect(logs.rows).toEqual([{ n: 1 }]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
