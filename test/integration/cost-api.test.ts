import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../server/src/projects/apps-store';
import { putLegacyCur, type ExportTarget } from '../support/cost/aws-exports';
import { startFakeSts, type FakeSts } from '../support/cost/fake-sts';
import type { SampleLineItem } from '../support/cost/report-files';
import { startLocalS3, type LocalS3 } from '../support/cost/s3';
import { databaseKinds } from '../support/databases';
import { traceBody } from '../support/otlp';
import { startTestServer, type TestServer } from '../support/server';

/**
 * Cost tracking through the real server over HTTP, on SQLite and PostgreSQL, reading a legacy CUR from s3rver through
 * the AWS SDK (role assumed from a local STS): connections, sync and its status, mapping and re-attribution, every
 * report with hand-computed figures, recommendations from ingested spans and metrics, an incident's cost impact, and
 * bad input for every endpoint.
 *
 * The constructed month (clock: 2026-11-21 12:00 UTC; Nov 21 has its first 12 hours only, as a lagging export would):
 * - `i-web1`, EC2 on demand, tags service=checkout env=production: 1.00 an hour (24 a day);
 * - `i-batch`, EC2 on demand, tags service=batch env=staging: 0.50 an hour (12 a day), 5.00 an hour on Nov 18 (120);
 * - `db-1`, RDS, tag Name=shared-db-1 (no service tag): 0.25 an hour (6 a day);
 * - tax of 30 on Nov 1, no resource.
 * October has the same usage without the spike and without tax.
 */
const kinds = await databaseKinds();
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const HOUR = 3_600_000;
const ROLE = 'arn:aws:iam::111122223333:role/svc-cost-read';
const ACCOUNT = '111122223333';

process.env.AWS_ACCESS_KEY_ID ??= 'AKIDBASECREDENTIALS';
process.env.AWS_SECRET_ACCESS_KEY ??= 'base-secret';

type Json = Record<string, unknown> & { error?: { code: string; message: string; details?: { field?: string } } };

function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += 24 * HOUR)
    out.push(new Date(ms).toISOString().slice(0, 10));
  return out;
}

function hourly(
  day: string,
  hours: number,
  item: Omit<SampleLineItem, 'day' | 'hour' | 'unblendedCost'>,
  perHour: number,
): SampleLineItem[] {
  return Array.from({ length: hours }, (_, hour) => ({ ...item, day, hour, unblendedCost: perHour }));
}

const web = {
  resourceId: 'i-web1',
  productCode: 'AmazonEC2',
  region: 'us-east-1',
  accountId: ACCOUNT,
  type: 'Usage' as const,
  tags: { service: 'checkout', env: 'production' },
};
const batch = {
  resourceId: 'i-batch',
  productCode: 'AmazonEC2',
  region: 'us-east-1',
  accountId: ACCOUNT,
  type: 'Usage' as const,
  tags: { service: 'batch', env: 'staging' },
};
const db = {
  resourceId: 'db-1',
  resourceName: 'shared-db-1',
  productCode: 'AmazonRDS',
  region: 'us-east-1',
  accountId: ACCOUNT,
  type: 'Usage' as const,
};

function monthRows(first: string, last: string, partialLast: boolean, spikeDay?: string): SampleLineItem[] {
  return days(first, last).flatMap((day) => {
    const hours = partialLast && day === last ? 12 : 24;
    return [
      ...hourly(day, hours, web, 1),
      ...hourly(day, hours, batch, day === spikeDay ? 5 : 0.5),
      ...hourly(day, hours, db, 0.25),
    ];
  });
}

const tax: SampleLineItem = {
  day: '2026-11-01',
  resourceId: null,
  productCode: 'AmazonEC2',
  region: null,
  accountId: ACCOUNT,
  type: 'Tax',
  unblendedCost: 30,
};

describe.each(kinds)('cost tracking on %s', (kind) => {
  let t: TestServer;
  let s3: LocalS3;
  let sts: FakeSts;
  let target: ExportTarget;
  let now = NOW;
  const clock = { now: () => now };

  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
  };
  const get = (path: string) => call('GET', path);
  const expectBad = async (method: string, path: string, body: unknown, field: string, status = 400) => {
    const res = await call(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error?.details?.field).toBe(field);
    return res.body.error!;
  };

  let providerId = '';

  beforeAll(async () => {
    s3 = await startLocalS3();
    sts = await startFakeSts();
    await s3.createBucket('acme-billing');
    target = { s3: s3.admin, bucket: 'acme-billing', prefix: 'cur/' };
    await putLegacyCur(target, {
      name: 'hourly',
      period: '2026-10',
      assemblies: [[monthRows('2026-10-01', '2026-10-31', false)]],
    });
    await putLegacyCur(target, {
      name: 'hourly',
      period: '2026-11',
      assemblies: [[[...monthRows('2026-11-01', '2026-11-21', true, '2026-11-18'), tax]]],
    });
    t = await startTestServer(kind, {
      clock,
      detection: false,
      cost: { endpoints: { s3: s3.endpoint, sts: sts.url }, sync: { pollMs: 3_600_000 } },
    });
    for (const name of ['checkout', 'batch']) await registerApp(t.server.database.db, clock, t.projectId, name);
  });

  afterAll(async () => {
    await t?.close();
    await sts?.close();
    await s3?.close();
  });

  it('connects an AWS account: the role is assumed, the CUR read, and neither the role nor the external id is shown', async () => {
    const created = await call('POST', '/cost/providers', {
      provider: 'aws',
      name: 'production account',
      config: { role_arn: ROLE, cur_bucket: 'acme-billing', cur_prefix: 'cur/', external_id: 'svc-ext-42' },
    });
    expect(created.status).toBe(201);
    providerId = created.body.id as string;
    expect(created.body).toMatchObject({
      provider: 'aws',
      name: 'production account',
      config: { cur_bucket: 'acme-billing', cur_prefix: 'cur/' },
    });
    expect(JSON.stringify(created.body)).not.toContain('role');
    expect(JSON.stringify(created.body)).not.toContain('svc-ext-42');
    // Due at once; a worker woken by the creation may already have taken it.
    expect(['due', 'running']).toContain((created.body.sync as Json).state);

    await t.server.cost.sync.runDue();
    const status = await get(`/cost/providers/${providerId}/sync`);
    expect(status.body).toMatchObject({
      state: 'scheduled',
      consecutive_failures: 0,
      next_run_at: new Date(NOW + 24 * HOUR).toISOString(),
      last_success_at: new Date(NOW).toISOString(),
      last_run: { status: 'succeeded', periods: ['2026-10', '2026-11'], error: null },
    });
    // October: 31 days × 24 hours × 3 resources; November: 20 days and 12 hours × 3, and the tax line.
    expect((status.body.last_run as Json).line_items).toBe(31 * 24 * 3 + (20 * 24 + 12) * 3 + 1);
    expect(sts.calls.at(-1)).toMatchObject({
      roleArn: ROLE,
      externalId: 'svc-ext-42',
      roleSessionName: 'svc-cost-sync',
    });
    // Read-only: the server only listed and fetched.
    expect(s3.requests.length).toBeGreaterThan(0);
    expect(s3.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD')).toEqual([]);

    const listed = await get('/cost/providers');
    expect((listed.body.data as Json[]).map((p) => p.id)).toEqual([providerId]);
    expect(JSON.stringify(listed.body)).not.toContain(ROLE);
  });

  it('summarizes the month: totals, attributed share of usage (none before a mapping), the tax apart, last sync per provider', async () => {
    const summary = await get('/cost/summary');
    expect(summary.status).toBe(200);
    // 492 (web) + 354 (batch) + 123 (db) of usage, + 30 (tax).
    expect(summary.body).toMatchObject({
      period: '2026-11',
      currency: 'USD',
      period_total: 999,
      month_to_date: 999,
      billed_total: 999,
      usage_total: 969,
    });
    expect(summary.body.attributed).toEqual({ cost: 0, share: 0 });
    expect(summary.body.unattributed).toEqual({ cost: 969, share: 1 });
    expect(summary.body.charges).toEqual({
      cost: 30,
      billed_cost: 30,
      by_type: [{ charge_type: 'Tax', charge_category: 'Tax', cost: 30, billed_cost: 30 }],
    });
    expect(summary.body.providers).toEqual([
      {
        id: providerId,
        provider: 'aws',
        name: 'production account',
        last_successful_sync_at: new Date(NOW).toISOString(),
        last_sync_status: 'succeeded',
        last_sync_error: null,
      },
    ]);
    expect(summary.body.data).toMatchObject({
      status: 'fresh',
      providers: [{ id: providerId, status: 'fresh', last_success_at: new Date(NOW).toISOString(), last_error: null }],
    });
    const october = await get('/cost/summary?period=2026-10');
    expect(october.body).toMatchObject({ period: '2026-10', period_total: 31 * 42 });
  });

  it('maps resources to services by ordered rules and re-attributes what is stored', async () => {
    const rules = [
      { match: { resource_name_prefix: 'shared-db' }, attribute_to_service: 'checkout' },
      { match: { tag: 'service', pattern: '*' }, attribute_to: 'service' },
      { match: { tag: 'env', pattern: 'prod*' }, attribute_to: 'env' },
      { match: { tag: 'env', pattern: '*' }, attribute_to: 'env' },
    ];
    const saved = await call('POST', '/cost/mappings', { rules });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ rules, resources_reattributed: 4 });
    expect((await get('/cost/mappings')).body.rules).toEqual(rules);

    const byService = await get('/cost/by-service');
    expect(byService.body).toMatchObject({ period: '2026-11', currency: 'USD', total: 999, usage_total: 969 });
    // Shares of usage; the tax is no service's, and no usage is left unattributed.
    expect(byService.body.services).toEqual([
      {
        service: 'checkout',
        cost: 615,
        billed_cost: 615,
        share: 0.634675,
        envs: [
          { env: 'production', cost: 492, billed_cost: 492 },
          { env: 'Unattributed', cost: 123, billed_cost: 123 },
        ],
      },
      {
        service: 'batch',
        cost: 354,
        billed_cost: 354,
        share: 0.365325,
        envs: [{ env: 'staging', cost: 354, billed_cost: 354 }],
      },
      { service: 'Unattributed', cost: 0, billed_cost: 0, share: 0, envs: [] },
    ]);
    expect(byService.body.charges).toEqual({
      cost: 30,
      billed_cost: 30,
      by_type: [{ charge_type: 'Tax', charge_category: 'Tax', cost: 30, billed_cost: 30 }],
    });
    const summary = await get('/cost/summary');
    expect(summary.body.attributed).toEqual({ cost: 969, share: 1 });
    expect(summary.body.unattributed).toEqual({ cost: 0, share: 0 });

    // A narrower rule list moves the database back to Unattributed at once.
    await call('POST', '/cost/mappings', { rules: rules.slice(1) });
    const after = await get('/cost/by-service');
    expect((after.body.services as Json[]).find((s) => s.service === 'Unattributed')?.cost).toBe(123);
    await call('POST', '/cost/mappings', { rules });
  });

  it('projects the month from the median burn rate, with the trend and the spike day flagged', async () => {
    const estimate = await get('/cost/estimate?period=monthly');
    expect(estimate.status).toBe(200);
    // Usage per complete day is 42 (150 on Nov 18); the median of Nov 14–20 is 42. 20 complete days of usage (948),
    // 10 days left at 42, and the tax as posted: 948 + 420 + 30.
    expect(estimate.body).toMatchObject({
      period: 'monthly',
      range: { start: '2026-11-01', end: '2026-11-30' },
      currency: 'USD',
      to_date: 999,
      projected: 1398,
    });
    expect(estimate.body.basis).toMatchObject({
      method: 'median_daily_usage',
      daily_rate: 42,
      complete_through: '2026-11-20',
      complete_days: 20,
      remaining_days: 10,
      partial_usage_excluded: 21,
    });
    // Nov 1–20 (948 usage + 30 tax) against Oct 1–20 (20 × 42).
    expect(estimate.body.trend).toMatchObject({ days: 20, current: 978, previous: 840, change: 138 });
    expect((estimate.body.trend as Json).change_pct).toBeCloseTo((138 / 840) * 100, 6);
    const services = estimate.body.services as Json[];
    // Usage only: the tax is listed with the charges, not as a service.
    expect(services.map((s) => [s.service, s.projected, s.daily_rate])).toEqual([
      ['checkout', 30 * 30, 30],
      ['batch', 19 * 12 + 120 + 10 * 12, 12],
    ]);
    expect(estimate.body.charges).toEqual({
      cost: 30,
      billed_cost: 30,
      by_type: [{ charge_type: 'Tax', charge_category: 'Tax', cost: 30, billed_cost: 30 }],
    });
    const anomalies = estimate.body.anomalies as { total: Json[]; by_service: Json[]; criteria: Json };
    expect(anomalies.criteria).toMatchObject({ trailing_days: 14, threshold_pct: 50, min_amount: 10 });
    expect(anomalies.total).toEqual([
      { day: '2026-11-18', cost: 150, baseline: 42, excess: 108, excess_pct: (108 / 42) * 100 },
    ]);
    expect(anomalies.by_service).toEqual([
      { service: 'batch', day: '2026-11-18', cost: 120, baseline: 12, excess: 108, excess_pct: 900 },
    ]);

    // A threshold above the spike's 900 % flags nothing for batch; the weekly period runs Monday to Sunday.
    const strict = await get('/cost/estimate?period=monthly&threshold_pct=1000');
    expect((strict.body.anomalies as { by_service: Json[] }).by_service).toEqual([]);
    const weekly = await get('/cost/estimate?period=weekly');
    expect(weekly.body).toMatchObject({ period: 'weekly', range: { start: '2026-11-16', end: '2026-11-22' } });
  });

  it('recommends: the idle batch host, and the overprovisioned checkout service rather than a reservation of its steady web host', async () => {
    // checkout handled 400 requests over the window (13.3 a day); batch 3 (0.1 a day).
    const spanAt = NOW - 30 * HOUR;
    // A trace of its own per service: spans are stored once per (trace id, span id).
    const spans = (service: string, count: number) => {
      const traceId = randomBytes(16).toString('hex');
      return traceBody(
        Array.from({ length: count }, (_, i) => ({
          serviceName: service,
          traceId,
          spanId: (i + 1).toString(16).padStart(16, '0'),
          startMs: spanAt + i,
        })),
      );
    };
    for (const [service, count] of [
      ['checkout', 400],
      ['batch', 3],
    ] as const) {
      const res = await fetch(`${t.url}/otlp/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
        body: JSON.stringify(spans(service, count)),
      });
      expect(res.status).toBe(200);
    }
    // checkout's CPU: a sample an hour for 8 days, never above 12 %.
    const points = Array.from({ length: 8 * 24 }, (_, i) => ({
      timeUnixNano: `${(NOW - 9 * 24 * HOUR + i * HOUR) * 1_000_000}`,
      asDouble: 0.05 + (i % 8) / 100,
    }));
    const metrics = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
          scopeMetrics: [
            {
              scope: { name: 'test' },
              metrics: [{ name: 'container.cpu.utilization', unit: '1', gauge: { dataPoints: points } }],
            },
          ],
        },
      ],
    };
    const res = await fetch(`${t.url}/otlp/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(metrics),
    });
    expect(res.status).toBe(200);

    const recs = await get('/cost/recommendations');
    expect(recs.status).toBe(200);
    expect(recs.body.note).toMatch(/heuristic and advisory/);
    // Window Oct 22 – Nov 20: batch's compute is 29 × 12 + 120 = 468; web's is 30 × 24 = 720.
    expect(recs.body.window).toEqual({ start: '2026-10-22', end: '2026-11-20' });
    const list = recs.body.recommendations as (Json & { target: Json; evidence: Json })[];
    // i-web1 would also be a reservation (216), but one recommendation counts a resource: the rightsizing saves more.
    expect(
      list.map((r) => [
        r.kind,
        r.target.type === 'service' ? r.target.service : r.target.resource_id,
        r.estimated_monthly_saving,
      ]),
    ).toEqual([
      ['idle_resource', 'i-batch', 468],
      ['overprovisioned_service', 'checkout', 360],
    ]);
    expect(recs.body.total_estimated_monthly_saving).toBe(828);
    expect(list[0]!.evidence).toMatchObject({ service: 'batch', spans: 3, requests_per_day: 0.1 });
    expect(list[1]!.evidence).toMatchObject({
      cpu: { metric: 'container.cpu.utilization', days: expect.any(Number), consistently_low: true },
      resources: ['i-web1'],
      left_out: [],
    });
    expect(recs.body.data).toMatchObject({ status: 'fresh' });
  });

  it("puts a cost impact in an incident's detail: the service's hourly cost over the incident's duration", async () => {
    const opened = await call('POST', '/incidents', {
      title: 'Checkout errors',
      severity: 'high',
      env: 'production',
      services: ['checkout'],
    });
    expect(opened.status).toBe(201);
    const id = opened.body.id as string;
    now = NOW + 2.5 * HOUR;
    try {
      await call('POST', `/incidents/${id}/resolve`);
      const detail = await get(`/incidents/${id}`);
      // Nov 14–20 in production: web's 24 a day (the database has no env, so it is not counted): 1.00 an hour.
      expect(detail.body.cost_impact).toEqual({
        currency: 'USD',
        hourly_cost: 1,
        duration_hours: 2.5,
        estimated_cost: 2.5,
        ongoing: false,
        services: [{ service: 'checkout', hourly_cost: 1, env_specific: true }],
        basis: expect.objectContaining({
          method: 'trailing_daily_average',
          days: 7,
          from: '2026-11-14',
          to: '2026-11-20',
        }),
      });
      const page = await (await fetch(detail.body.dashboard_url as string)).text();
      expect(page).toContain('About USD 2.50 in all: the affected services cost USD 1.00 an hour, over 2.5 h.');
      const other = await call('POST', '/incidents', { title: 'Search down', severity: 'low', services: ['search'] });
      expect(other.body.cost_impact).toBeNull();
    } finally {
      now = NOW;
    }
  });

  it('keeps the last good data when a sync fails, shows the error and retries with backoff', async () => {
    const before = await get('/cost/summary');
    sts.denied.add(ROLE);
    try {
      const triggered = await call('POST', `/cost/providers/${providerId}/sync`);
      expect(triggered.status).toBe(202);
      await t.server.cost.sync.runDue();
      const status = await get(`/cost/providers/${providerId}/sync`);
      expect(status.body).toMatchObject({
        state: 'retrying',
        consecutive_failures: 1,
        next_run_at: new Date(NOW + 5 * 60_000).toISOString(),
        last_success_at: new Date(NOW).toISOString(),
      });
      expect((status.body.last_run as Json).status).toBe('failed');
      expect((status.body.last_run as Json).error).toMatch(/AccessDenied|not authorized|denied/i);
      expect((await get('/cost/summary')).body).toEqual({
        ...before.body,
        providers: [expect.objectContaining({ last_sync_status: 'failed' })],
        // The data is the last good sync's, as fresh as before; the error shows beside it.
        data: {
          ...(before.body.data as Json),
          providers: [
            expect.objectContaining({
              status: 'fresh',
              last_error: { message: (status.body.last_run as Json).error, at: new Date(NOW).toISOString() },
            }),
          ],
        },
      });
    } finally {
      sts.denied.delete(ROLE);
    }
    // Fixed: the manual trigger runs it again, and re-reading the same export changes nothing (idempotent).
    await call('POST', `/cost/providers/${providerId}/sync`);
    await t.server.cost.sync.runDue();
    expect((await get(`/cost/providers/${providerId}/sync`)).body).toMatchObject({
      state: 'scheduled',
      consecutive_failures: 0,
    });
    expect((await get('/cost/summary')).body).toEqual(before.body);
  });

  it('answers bad input with a 400 naming the field, and changes nothing', async () => {
    await expectBad('POST', '/cost/providers', { config: {} }, 'provider');
    await expectBad('POST', '/cost/providers', { provider: 'oracle', config: {} }, 'provider');
    await expectBad('POST', '/cost/providers', { provider: 'aws' }, 'config');
    await expectBad('POST', '/cost/providers', { provider: 'aws', config: [] }, 'config');
    await expectBad(
      'POST',
      '/cost/providers',
      { provider: 'aws', config: { cur_bucket: 'b-1', cur_prefix: '' } },
      'config.role_arn',
    );
    await expectBad(
      'POST',
      '/cost/providers',
      { provider: 'aws', config: { role_arn: 'arn:aws:iam::1:user/x', cur_bucket: 'b-1', cur_prefix: '' } },
      'config.role_arn',
    );
    await expectBad(
      'POST',
      '/cost/providers',
      { provider: 'aws', config: { role_arn: ROLE, cur_bucket: 'Bad_Bucket', cur_prefix: '' } },
      'config.cur_bucket',
    );
    await expectBad(
      'POST',
      '/cost/providers',
      { provider: 'aws', config: { role_arn: ROLE, cur_bucket: 'b-1', secret_key: 'x' } },
      'config.secret_key',
    );
    await expectBad(
      'POST',
      '/cost/providers',
      { provider: 'aws', config: { role_arn: ROLE, cur_bucket: 'b-1' }, owner: 'me' },
      'owner',
    );
    await expectBad(
      'POST',
      '/cost/providers',
      { provider: 'gcp', config: { dataset: 'billing' } },
      'config.project_id',
    );
    await expectBad('POST', '/cost/providers', { provider: 'azure', config: {} }, 'config.scope');
    const notJson = await fetch(`${t.url}/control-plane/cost/providers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.controlKey}` },
      body: 'provider=aws',
    });
    expect(notJson.status).toBe(415);
    expect((await get('/cost/providers')).body.data).toHaveLength(1);

    expect((await get('/cost/providers/cp_missing')).status).toBe(404);
    expect((await call('DELETE', '/cost/providers/cp_missing')).status).toBe(404);
    expect((await call('POST', '/cost/providers/cp_missing/sync')).status).toBe(404);

    const rules = (await get('/cost/mappings')).body.rules;
    await expectBad('POST', '/cost/mappings', {}, 'rules');
    await expectBad(
      'POST',
      '/cost/mappings',
      {
        rules: [
          { match: { tag: 'a', pattern: '*' }, attribute_to: 'service' },
          { match: { tag: 'team' }, attribute_to: 'service' },
        ],
      },
      'rules[1].match',
    );
    await expectBad(
      'POST',
      '/cost/mappings',
      { rules: [{ match: { resource_name_prefix: 'x' }, attribute_to: 'service' }] },
      'rules[0].attribute_to',
    );
    await expectBad(
      'POST',
      '/cost/mappings',
      { rules: [{ match: { tag: 'a', pattern: '*' }, attribute_to: 'service', attribute_to_service: 'x' }] },
      'rules[0]',
    );
    await expectBad(
      'POST',
      '/cost/mappings',
      { rules: [{ match: { tag: 'a', pattern: '*' }, attribute_to: 'team' }] },
      'rules[0].attribute_to',
    );
    expect((await get('/cost/mappings')).body.rules).toEqual(rules);

    await expectBad('GET', '/cost/summary?period=2026-13', undefined, 'period');
    await expectBad('GET', '/cost/summary?month=2026-11', undefined, 'month');
    await expectBad('GET', '/cost/by-service?period=november', undefined, 'period');
    await expectBad('GET', '/cost/estimate?period=yearly', undefined, 'period');
    await expectBad('GET', '/cost/estimate?threshold_pct=-5', undefined, 'threshold_pct');
    await expectBad('GET', '/cost/estimate?trailing_days=3', undefined, 'trailing_days');
    await expectBad('GET', '/cost/recommendations?lookback_days=365', undefined, 'lookback_days');

    const unauthorized = await fetch(`${t.url}/control-plane/cost/summary`, {
      headers: { authorization: `Bearer ${t.ingestKey}` },
    });
    expect([401, 403]).toContain(unauthorized.status);
  });

  it('deletes a connection with the cost read through it', async () => {
    expect((await call('DELETE', `/cost/providers/${providerId}`)).status).toBe(204);
    expect((await get(`/cost/providers/${providerId}`)).status).toBe(404);
    const summary = await get('/cost/summary');
    expect(summary.body).toMatchObject({ currency: null, period_total: 0, providers: [] });
    expect((await get('/cost/by-service')).body.services).toEqual([
      { service: 'Unattributed', cost: 0, billed_cost: 0, share: 0, envs: [] },
    ]);
  });
});
