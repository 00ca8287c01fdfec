import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../support/databases';
import { str } from '../support/otlp';
import { createLastingDatabase, startServerProcess, type ServerProcess } from '../support/server-process';
import type { TempDatabase } from '../support/databases';

/**
 * Two replicas of the built server on one PostgreSQL database, fed the way an OpenTelemetry Collector behind a load
 * balancer feeds them: concurrent batches that each hold several sessions, in no particular order.
 */
const onPostgres = (await databaseKinds()).includes('postgres');
const SECRET = 'replica-ingest-test-secret-0123456789abcd';

describe.skipIf(!onPostgres)('ingest through two replicas on PostgreSQL (built server)', () => {
  let database: TempDatabase;
  let replicas: ServerProcess[] = [];
  let ingestKey: string;
  let controlKey: string;

  beforeAll(async () => {
    database = await createLastingDatabase('postgres');
    const first = await startServerProcess({ 'database-url': database.url, 'secret-key': SECRET });
    replicas = [first, await startServerProcess({ 'database-url': database.url, 'secret-key': SECRET })];
    ingestKey = first.ingestKey!;
    controlKey = first.controlKey!;
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await database?.drop();
  });

  const sql = async <T extends pg.QueryResultRow>(text: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  };

  /** One export request holding `perSession` log records for each session, in the order given. */
  const logsOf = (sessions: string[], perSession: number, tag: string) => ({
    resourceLogs: sessions.map((session) => ({
      resource: { attributes: [str('service.name', 'web-app'), str('session.id', session)] },
      scopeLogs: [
        {
          logRecords: Array.from({ length: perSession }, (_, i) => ({
            body: { stringValue: `${tag} ${session} #${i}` },
            attributes: [str('log.record.uid', randomBytes(16).toString('hex'))],
          })),
        },
      ],
    })),
  });
  const post = (replica: ServerProcess, body: unknown) =>
    fetch(`${replica.url}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ingestKey },
      body: JSON.stringify(body),
    });
  const sessionLogs = async (session: string) => {
    const res = await fetch(`${replicas[0]!.url}/control-plane/sessions/${session}`, {
      headers: { authorization: `Bearer ${controlKey}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { counts: { logs: number } }).counts.logs;
  };

  it('stores every record of concurrent batches that hold the same sessions in opposite orders, with no 500', async () => {
    const [s1, s2] = ['order-s1', 'order-s2'];
    const perSession = 50;
    const requests = Array.from({ length: 12 }, (_, i) => {
      const sessions = i % 2 === 0 ? [s1, s2] : [s2, s1];
      return post(replicas[i % 2]!, logsOf(sessions, perSession, `batch ${i}`));
    });
    const statuses = (await Promise.all(requests)).map((r) => r.status);
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 200));
    const [stored] = await sql<{ n: string }>(`select count(*) as n from logs where session_id in ('${s1}', '${s2}')`);
    expect(Number(stored!.n)).toBe(12 * 2 * perSession);
    expect(await sessionLogs(s1)).toBe(12 * perSession);
    expect(await sessionLogs(s2)).toBe(12 * perSession);
  });

  it('runs a transaction again after a serialization failure, and stores it once', async () => {
    // A trigger fails the first two runs the way a serialization conflict does, then lets them by. A sequence counts
    // the runs: it is not rolled back with them.
    await sql(`create sequence fail_runs;
      create function fail_first() returns trigger language plpgsql as $$
      begin
        if new.session_id = 'retry-serial' and nextval('fail_runs') <= 2 then
          raise exception 'injected serialization failure' using errcode = '40001';
        end if;
        return new;
      end $$;
      create trigger fail_first before insert on logs for each row execute function fail_first();`);
    try {
      const res = await post(replicas[1]!, logsOf(['retry-serial'], 3, 'serial'));
      expect(res.status, await res.text()).toBe(200);
      expect(await sessionLogs('retry-serial')).toBe(3);
      // Two failed runs, then the run that stored the three records.
      expect(Number((await sql<{ last_value: string }>('select last_value from fail_runs'))[0]!.last_value)).toBe(5);
    } finally {
      await sql('drop trigger fail_first on logs; drop function fail_first(); drop sequence fail_runs;');
    }
  });

  it('answers a storage failure with 503 and Retry-After, never 500, and stores nothing', async () => {
    await sql(`create function refuse_logs() returns trigger language plpgsql as $$
      begin
        raise exception 'injected: out of connections' using errcode = '53300';
      end $$;
      create trigger refuse_logs before insert on logs for each row execute function refuse_logs();`);
    try {
      for (const replica of replicas) {
        const res = await post(replica, logsOf(['unavailable'], 2, 'refused'));
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(body.error.code).toBe('storage_unavailable');
        // The cause goes to the server's log, not to whoever holds the public ingest key.
        expect(body.error.message).not.toContain('injected');
        expect(replica.output()).toContain('injected: out of connections');
      }
    } finally {
      await sql('drop trigger refuse_logs on logs; drop function refuse_logs();');
    }
    const [stored] = await sql<{ n: string }>(`select count(*) as n from logs where session_id = 'unavailable'`);
    expect(Number(stored!.n)).toBe(0);
  });
});
