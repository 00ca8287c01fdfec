import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { createKey, startServer, type RunningServer } from '../../server/src/index';
import { API_KEY_HEADER, INGEST_PATHS } from '../../wire/paths';
import { createTempDatabase, databaseKinds, type TempDatabase } from '../support/databases';
import { traceBody } from '../support/otlp';
import { adminCliOnServerDatabase } from '../support/admin-cli';
import { controlCall, startTestServer, type TestServer } from '../support/server';

/**
 * Ingest limits (docs/governance.md): a key's token bucket and a project's daily quota refuse a request whole with a
 * 429 naming the limit and a Retry-After, store nothing of it, and show in the usage; bad settings are 400s naming
 * the field. A bucket's rate of 1 a second with a burst of 10,000 makes the second of two 6,000-span requests wait
 * 10,000 s, whatever the machine's speed: no timing window.
 */

type ErrorBody = { error: { code: string; message: string; details?: { field?: string; limit?: number } } };

const spans = (n: number) => JSON.stringify(traceBody(Array.from({ length: n }, () => ({}))));

async function send(url: string, key: string, body: string) {
  const res = await fetch(`${url}${INGEST_PATHS.traces}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [API_KEY_HEADER]: key },
    body,
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as ErrorBody };
}

async function storedSpans(server: RunningServer): Promise<number> {
  const row = await server.database.db
    .selectFrom('spans')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(await databaseKinds())('ingest limits (%s)', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind);
  });
  afterAll(() => t?.close());

  it('answers the defaults and refuses bad settings naming the field, changing nothing', async () => {
    const before = await controlCall<{ signals: Array<{ signal: string; rate: number; burst: number }> }>(
      t,
      'GET',
      '/limits',
    );
    expect(before.status).toBe(200);
    expect(before.body.signals.find((s) => s.signal === 'spans')).toMatchObject({ rate: 50_000, burst: 500_000 });
    const cases: Array<[unknown, string]> = [
      [{ spans: { burst: 10 } }, 'spans.burst'],
      [{ spans: { rate: -1 } }, 'spans.rate'],
      [{ bogus: { rate: 1 } }, 'bogus'],
      [{ logs: { daily: 'a lot' } }, 'logs.daily'],
    ];
    for (const [body, field] of cases) {
      const res = await controlCall<ErrorBody>(t, 'PUT', '/limits', body);
      expect([res.status, res.body.error.details?.field ?? res.body.error.message]).toEqual([
        400,
        expect.stringContaining(field),
      ]);
    }
    expect((await controlCall(t, 'GET', '/limits')).body).toEqual(before.body);
  });

  it("refuses whole what is over a key's rate or the daily quota, with Retry-After, and counts it as throttled", async () => {
    const set = await controlCall(t, 'PUT', '/limits', { spans: { rate: 1, burst: 10_000 } });
    expect(set.status).toBe(200);
    expect((await send(t.url, t.ingestKey, spans(6_000))).status).toBe(200);
    const over = await send(t.url, t.ingestKey, spans(6_000));
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'rate_limited', details: { field: 'spans', limit: 1 } });
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    // Refused before its body is read, now that the bucket is known empty.
    expect((await send(t.url, t.ingestKey, '{not json')).status).toBe(429);

    await controlCall(t, 'PUT', '/limits', { spans: { rate: null, burst: null, daily: 6_010 } });
    expect((await send(t.url, t.ingestKey, spans(10))).status).toBe(200);
    const quota = await send(t.url, t.ingestKey, spans(2));
    expect(quota.status).toBe(429);
    expect(quota.body.error).toMatchObject({ code: 'quota_exceeded', details: { field: 'spans', limit: 6_010 } });
    expect(quota.body.error.message).toContain('daily quota of 6010 spans');
    expect(await storedSpans(t.server)).toBe(6_010);

    const usage = await controlCall<{
      signals: Array<{ signal: string; today: Record<string, number>; daily_quota: number }>;
    }>(t, 'GET', '/usage');
    expect(usage.body.signals.find((s) => s.signal === 'spans')).toMatchObject({
      today: { accepted: 6_010, throttled: 6_002, refused: 0 },
      daily_quota: 6_010,
    });
    await controlCall(t, 'PUT', '/limits', { spans: { daily: null } });
  });
});

describe.runIf((await databaseKinds()).includes('postgres'))('ingest limits across two replicas (postgres)', () => {
  let database: TempDatabase;
  let a: RunningServer;
  let b: RunningServer;
  let key: string;
  /** Moves both replicas' clocks past the usage counts' flush interval, when b reads a's counts anew. */
  let skewMs = 0;
  beforeAll(async () => {
    database = await createTempDatabase('postgres');
    const clock = { now: () => Date.now() + skewMs };
    const options = { port: 0, log: () => undefined, databaseUrl: database.url, detection: false, clock } as const;
    a = await startServer(options);
    b = await startServer(options);
    key = a.bootstrap!.ingestKey.key;
    const res = await fetch(`${a.url}/control-plane/limits`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${a.bootstrap!.controlKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ spans: { rate: 1, burst: 10_000, daily: 9_000 } }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it("shares a key's bucket between replicas, and the quota within one flush interval (5 s)", async () => {
    expect((await send(a.url, key, spans(6_000))).status).toBe(200);
    const other = await send(b.url, key, spans(6_000));
    expect([other.status, other.body.error.code]).toEqual([429, 'rate_limited']);
    // The quota, with another key of the project (a fresh bucket): b reads what a counted once a's usage is written,
    // so it holds across replicas within one flush interval.
    const second = await createKey(a.database.db, systemClock, { projectId: a.bootstrap!.projectId, scope: 'ingest' });
    await a.limits.usage.flush();
    skewMs = 5_000;
    const quota = await send(b.url, second.key, spans(3_001));
    expect([quota.status, quota.body.error.code]).toEqual([429, 'quota_exceeded']);
    expect(await storedSpans(a)).toBe(6_000);
  });
});

describe.each(await databaseKinds())('spike protection (%s)', (kind) => {
  const DAY_MS = 86_400_000;
  let now = Date.UTC(2026, 10, 30, 12, 0, 0);
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { clock: { now: () => now }, detection: false });
  });
  afterAll(() => t?.close());

  it('throttles a project sending far over its usual day, and notifies it once through the rules', async () => {
    // A webhook channel the catch-all rule reaches; the delivery is what is checked, not its sending.
    const channel = await controlCall<{ id: string }>(t, 'POST', '/notifications/channels', {
      type: 'webhook',
      name: 'ops hook',
      config: { url: 'https://hooks.example.com/svc' },
    });
    await controlCall(t, 'POST', '/notifications/rules', { name: 'all', conditions: {}, channels: [channel.body.id] });
    await controlCall(t, 'PUT', '/limits', { spans: { rate: 100 } });
    const at = now;
    now = at - DAY_MS - 3_600_000;
    expect((await send(t.url, t.ingestKey, spans(20))).status).toBe(200);
    now = at;
    expect((await send(t.url, t.ingestKey, spans(3_000))).status).toBe(200);

    const begun = await t.server.limits.checkSpikes();
    expect(begun).toMatchObject([{ signal: 'spans', projectId: t.projectId }]);
    // Another replica's check, or the next minute's, finds it stored: no second notification.
    expect(await t.server.limits.checkSpikes()).toEqual([]);
    const throttled = await send(t.url, t.ingestKey, spans(50));
    expect([throttled.status, throttled.body.error.code]).toEqual([429, 'spike_throttled']);

    const deliveries = await t.server.database.db
      .selectFrom('deliveries')
      .select(['event', 'notice'])
      .where('event', '=', 'ingest.spike')
      .execute();
    expect(deliveries).toHaveLength(1);
    expect(JSON.parse(deliveries[0]!.notice!)).toMatchObject({
      payload: { event: 'ingest.spike', project_id: t.projectId, dashboard_url: `${t.url}/usage` },
      status: 'throttled',
    });
    const usage = await controlCall<{ signals: Array<{ signal: string; spike: unknown }> }>(t, 'GET', '/usage');
    expect(usage.body.signals.find((s) => s.signal === 'spans')?.spike).toMatchObject({
      baseline_per_minute: expect.any(Number),
    });
  });
});

describe('svc-server limits (the CLI, on the server database)', () => {
  const run = adminCliOnServerDatabase('limits');

  it('shows, sets and resets limits, and exits 2 naming a mistake, changing nothing', () => {
    const shown = run(['show'], { SVC_LIMIT_LOGS: 'rate=500,burst=10000' });
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/^ {2}logs +rate 500\/s, burst 10000, daily 100000000 log records \(server default\)$/m);
    const set = run(['set', '--replay-bytes', 'daily=1000000000', '--spans', 'rate=0']);
    expect(set.code, set.err).toBe(0);
    expect(set.out).toMatch(
      /^ {2}replay_bytes +rate 20000000\/s, burst 200000000, daily 1000000000 .*\(project's own: daily\)$/m,
    );
    expect(set.out).toMatch(/^ {2}spans +rate 0\/s/m);
    const before = run(['show']).out;
    for (const [args, message] of [
      [['set', '--logs', 'burst=5'], '--logs: burst must be at least 50000'],
      [['set', '--logs', 'lots'], '--logs: "lots" is not rate=<n>'],
    ] as const) {
      const res = run([...args]);
      expect([res.code, res.err], args.join(' ')).toEqual([2, expect.stringContaining(message)]);
    }
    expect(run(['set', '--replay-bytes', 'daily=default']).out).toBe(
      before.replace(
        /^( {2}replay_bytes .*daily )1000000000(.*)\(project's own: daily\)$/m,
        '$1200000000000$2(server default)',
      ),
    );
  });
});
