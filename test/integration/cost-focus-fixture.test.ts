import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSts, type FakeSts } from '../support/cost/fake-sts';
import { startLocalS3, type LocalS3 } from '../support/cost/s3';
import { databaseKinds } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Real, anonymized FOCUS 1.0 billing data (../shared/fixtures/cost/focus-1.0-sample.csv, 1,000 rows of September 2024,
 * FinOps Foundation, CC BY 4.0) delivered as an AWS FOCUS Data Export to s3rver, synced by the server and reported.
 * Expected totals are computed here from the CSV by a plain sum (csv-parse), independently of the code under test.
 */
const kinds = await databaseKinds();
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures/cost/focus-1.0-sample.csv');
const ROLE = 'arn:aws:iam::111122223333:role/svc-cost-read';

process.env.AWS_ACCESS_KEY_ID ??= 'AKIDBASECREDENTIALS';
process.env.AWS_SECRET_ACCESS_KEY ??= 'base-secret';

type Row = Record<string, string>;
const rows = parse(readFileSync(FIXTURE), { columns: true, skip_empty_lines: true }) as Row[];
const money = (value: string) => (value === 'NULL' || value === '' ? 0 : Number(value));
const sum = (of: readonly Row[], column: string) => of.reduce((s, r) => s + money(r[column]!), 0);
const tagsOf = (row: Row): Record<string, string> =>
  row.Tags === 'NULL' || row.Tags === '' ? {} : (JSON.parse(row.Tags!) as Record<string, string>);
/** The application tag names the service; a row without one is Unattributed (one rule below). */
const serviceOf = (row: Row) => tagsOf(row).application || 'Unattributed';
/** Usage rows are the services'; the sample's Credit and Adjustment rows are charges of their own. */
const usageRows = rows.filter((row) => row.ChargeCategory === 'Usage');
const chargeRows = rows.filter((row) => row.ChargeCategory !== 'Usage');

describe.each(kinds)('the FOCUS 1.0 sample through an AWS export on %s', (kind) => {
  let t: TestServer;
  let s3: LocalS3;
  let sts: FakeSts;

  const get = async (path: string) => {
    const res = await fetch(`${t.url}/control-plane${path}`, { headers: { authorization: `Bearer ${t.controlKey}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.controlKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    s3 = await startLocalS3();
    sts = await startFakeSts();
    await s3.createBucket('finops-exports');
    // Where a FOCUS Data Export delivers (overwrite mode): <prefix><export>/data/BILLING_PERIOD=YYYY-MM/<export>-00001.csv.gz.
    await s3.admin.send(
      new PutObjectCommand({
        Bucket: 'finops-exports',
        Key: 'exports/focus-daily/data/BILLING_PERIOD=2024-09/focus-daily-00001.csv.gz',
        Body: gzipSync(readFileSync(FIXTURE)),
      }),
    );
    // Early October: the sync reads September (closed less than 14 days ago) and October (empty so far).
    const clock = { now: () => Date.UTC(2024, 9, 5, 9, 0, 0) };
    t = await startTestServer(kind, {
      clock,
      detection: false,
      cost: { endpoints: { s3: s3.endpoint, sts: sts.url }, sync: { pollMs: 3_600_000 } },
    });
    const created = await post('/cost/providers', {
      provider: 'aws',
      config: { role_arn: ROLE, cur_bucket: 'finops-exports', cur_prefix: 'exports/' },
    });
    expect(created.status).toBe(201);
    await t.server.cost.sync.runDue();
    const sync = await get(`/cost/providers/${created.body.id as string}/sync`);
    expect(sync.body).toMatchObject({
      state: 'scheduled',
      last_run: { status: 'succeeded', line_items: rows.length, periods: ['2024-09', '2024-10'] },
    });
  });

  afterAll(async () => {
    await t?.close();
    await sts?.close();
    await s3?.close();
  });

  it('reports the period total as the sum of EffectiveCost, and BilledCost beside it', async () => {
    const summary = await get('/cost/summary?period=2024-09');
    expect(summary.status).toBe(200);
    expect(summary.body.currency).toBe('USD');
    expect(summary.body.period_total).toBeCloseTo(sum(rows, 'EffectiveCost'), 6);
    expect(summary.body.billed_total).toBeCloseTo(sum(rows, 'BilledCost'), 6);
    expect(summary.body.usage_total).toBeCloseTo(sum(usageRows, 'EffectiveCost'), 6);
    expect(summary.body.unattributed).toMatchObject({ share: 1 });
    expect((summary.body.unattributed as { cost: number }).cost).toBeCloseTo(sum(usageRows, 'EffectiveCost'), 6);
  });

  it('reports the Credit and Adjustment rows apart, by charge type, not as Unattributed', async () => {
    const charges = (await get('/cost/summary?period=2024-09')).body.charges as {
      cost: number;
      by_type: { charge_type: string; charge_category: string; cost: number }[];
    };
    expect(charges.cost).toBeCloseTo(sum(chargeRows, 'EffectiveCost'), 6);
    const categories = [...new Set(chargeRows.map((row) => row.ChargeCategory!))].sort();
    expect(categories).toEqual(['Adjustment', 'Credit']);
    expect(charges.by_type.map((t) => t.charge_type).sort()).toEqual(categories);
    for (const type of charges.by_type) {
      expect(type.charge_category).toBe(type.charge_type);
      expect(type.cost, type.charge_type).toBeCloseTo(
        sum(
          chargeRows.filter((row) => row.ChargeCategory === type.charge_type),
          'EffectiveCost',
        ),
        6,
      );
    }
  });

  it('attributes by the application tag: each service is the sum of its usage rows, the rest is Unattributed', async () => {
    const mapped = await post('/cost/mappings', {
      rules: [
        { match: { tag: 'application', pattern: '*' }, attribute_to: 'service' },
        { match: { tag: 'environment', pattern: '*' }, attribute_to: 'env' },
      ],
    });
    expect(mapped.status).toBe(200);
    const expected = new Map<string, number>();
    for (const row of usageRows)
      expected.set(serviceOf(row), (expected.get(serviceOf(row)) ?? 0) + money(row.EffectiveCost!));

    const report = await get('/cost/by-service?period=2024-09');
    const services = report.body.services as { service: string; cost: number; envs: { env: string; cost: number }[] }[];
    expect(services.map((s) => s.service).sort()).toEqual([...expected.keys()].sort());
    for (const s of services) expect(s.cost, s.service).toBeCloseTo(expected.get(s.service)!, 6);
    expect(report.body.total).toBeCloseTo(sum(rows, 'EffectiveCost'), 6);

    // Env of one service, from the environment tag of its rows.
    const busiest = [...expected].filter(([name]) => name !== 'Unattributed').sort((a, b) => b[1] - a[1])[0]![0];
    const envs = new Map<string, number>();
    for (const row of usageRows.filter((r) => serviceOf(r) === busiest)) {
      const env = tagsOf(row).environment || 'Unattributed';
      envs.set(env, (envs.get(env) ?? 0) + money(row.EffectiveCost!));
    }
    const reported = services.find((s) => s.service === busiest)!.envs;
    expect(reported.map((e) => e.env).sort()).toEqual([...envs.keys()].sort());
    for (const e of reported) expect(e.cost, e.env).toBeCloseTo(envs.get(e.env)!, 6);
  });
});
