import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalContext } from '../../server/src/alerts/query/context';
import { percentile } from '../../server/src/alerts/query/read';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { nearestRank } from '../../server/src/vitals/summary';
import { createTempDatabase, databaseKinds, type TempDatabase } from '../support/databases';
import { str } from '../support/otlp';
import { controlCall, postIngest, startNotifyingServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * Alert rules' aggregates are exact over every row of the window (docs/alerts.md, "Cost"), computed in the database:
 * a window of 60,000 spans, more than the 50,000 the query layer once read, sent through the ingest API in big
 * batches, with the oldest sixth failing and slow so that a read of the newest rows only would miss them; and the
 * database's percentile by nearest rank against vitals/summary.ts's on both databases.
 */
const kinds = await databaseKinds();
const SPANS = 60_000;
const OLD_SLOW_FAILING = 10_000;
const PER_REQUEST = 10_000;

describe.each(kinds)('alert rule aggregates over a big window on %s', (kind) => {
  let t: TestServer;
  const now = Date.UTC(2026, 10, 30, 12, 0, 0);

  /** Spans `from`…`to` (0 the newest), 2 ms apart before `now`; the oldest ones fail and take 1,000 ms, the rest 10. */
  const spansBody = (from: number, to: number) =>
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'web-app'), str('deployment.environment', 'production')] },
          scopeSpans: [
            {
              spans: Array.from({ length: to - from }, (_, k) => {
                const i = from + k;
                const start = now - 1000 - 2 * i;
                const old = i >= SPANS - OLD_SLOW_FAILING;
                return {
                  traceId: `${(i + 1).toString(16).padStart(8, '0')}${'cd'.repeat(12)}`,
                  spanId: `${(i + 1).toString(16).padStart(16, '0')}`,
                  name: 'GET /api/cart',
                  kind: 3,
                  startTimeUnixNano: `${start}000000`,
                  endTimeUnixNano: `${start + (old ? 1000 : 10)}000000`,
                  status: { code: old ? 2 : 1 },
                };
              }),
            },
          ],
        },
      ],
    });

  beforeAll(async () => {
    t = await startNotifyingServer(kind, { now: () => now }, { detection: false });
    for (let from = 0; from < SPANS; from += PER_REQUEST)
      await postIngest(t, '/otlp/v1/traces', spansBody(from, from + PER_REQUEST));
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('counts, error rate and percentiles are of all 60,000 spans, and a count rule over 50,000 fires', async () => {
    // Ingest stores in the background.
    const { db } = t.server.database;
    await eventually(`${SPANS} spans stored`, async () => {
      const { n } = await db
        .selectFrom('spans')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(n) >= SPANS || undefined;
    });
    const create = async (name: string, aggregate: string, value: number) => {
      const res = await controlCall<{ id: string }>(t, 'POST', '/alert-rules', {
        name,
        severity: 'high',
        signal: 'spans',
        query: { aggregate, filter: { app: ['web-app'] } },
        window_seconds: 300,
        condition: { type: 'threshold', op: 'above', value },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id;
    };
    const ids = {
      count: await create('More than 50,000 spans', 'count', 50_000),
      errorRate: await create('Failing spans', 'error_rate', 0.1),
      p95: await create('Slow spans', 'p95', 500),
      p50: await create('Median span', 'p50', 500),
    };
    const report = await t.server.alerts.runOnce();
    expect(report.evaluated).toEqual(expect.arrayContaining(Object.values(ids)));
    const rule = async (id: string) =>
      (await controlCall<{ state: string; last_value: number }>(t, 'GET', `/alert-rules/${id}`)).body;
    expect(await rule(ids.count)).toMatchObject({ state: 'firing', last_value: SPANS });
    // 10,000 failing of 60,000; the newest 50,000 alone have none.
    expect(await rule(ids.errorRate)).toMatchObject({ state: 'firing', last_value: OLD_SLOW_FAILING / SPANS });
    // Rank ceil(0.95 × 60,000) = 57,000 of the durations in ascending order: among the 10,000 slow ones.
    expect(await rule(ids.p95)).toMatchObject({ state: 'firing', last_value: 1000 });
    expect(await rule(ids.p50)).toMatchObject({ state: 'ok', last_value: 10 });
  });
});

describe.each(kinds)('percentiles in the database on %s', (kind) => {
  let temp: TempDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    temp = await createTempDatabase(kind);
    handle = openDatabase(temp.url);
    await sql`create table pv (n integer not null, v double precision not null)`.execute(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await temp?.drop();
  });

  it('equal nearest rank (vitals/summary.ts) for every count from 1 to 120 and every percentile a rule names', async () => {
    const { db } = handle;
    // Set n holds n values, shuffled, with repeats: a tie at a rank must answer the same value.
    const sets = Array.from({ length: 120 }, (_, k) =>
      Array.from({ length: k + 1 }, (_, i) => ((i * 7919) % 53) + (i % 3) / 4),
    );
    for (const [k, values] of sets.entries())
      await db
        .insertInto('pv' as never)
        .values(values.map((v) => ({ n: k + 1, v })) as never)
        .execute();
    const ctx = await signalContext(db, 'p', undefined, Date.now());
    for (const [k, values] of sets.entries())
      for (const p of [50, 75, 90, 95, 99]) {
        const got = await percentile(ctx, 'pv', sql.ref('r.v'), [sql`r.n = ${k + 1}`], p);
        expect(got, `p${p} of ${k + 1} values`).toBe(nearestRank(values, p));
      }
    expect(await percentile(ctx, 'pv', sql.ref('r.v'), [sql`r.n = 0`], 95)).toBeNull();
  });
});

describe("PostgreSQL's percentile_disc rank", () => {
  it('PostgreSQL ranks by ceil(f × n) in doubles: the same rank as nearest rank for every n up to 20 million', () => {
    // percentile_disc's rank (orderedsetaggs.c): ceil(percentile * number_of_rows), both as C doubles, which
    // JavaScript's numbers are; nearest rank computes ceil(p × n / 100) with an exact integer product.
    for (const p of [50, 75, 90, 95, 99]) {
      const f = p / 100;
      let differ = 0;
      for (let n = 1; n <= 20_000_000; n++) if (Math.ceil(f * n) !== Math.ceil((p * n) / 100)) differ += 1;
      expect(differ, `p${p}`).toBe(0);
    }
  });
});
