import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp } from '../../server/src/projects/apps-store';
import { daily, startAwsCostServer, type AwsCostServer, type Json } from '../support/cost/aws-server';
import { databaseKinds } from '../support/databases';
import { traceBody } from '../support/otlp';

/**
 * Recommendations through the real server over HTTP when the kinds overlap on the same resources: at most one
 * recommendation counts a resource, no saving exceeds what its resource costs, and the total adds up.
 *
 * March 2026, on demand every day (clock: April 1, 12:00 UTC; the window is March 2–31):
 * - `i-quiet` (service quiet: 3 requests in the window, CPU under 12 %): 24 a day. Idle (720 a month), and on its own
 *   also a reservation (216) and, as quiet's only instance, a rightsizing (360).
 * - `i-api-1`, `i-api-2` (service api: 600 requests, CPU under 12 %): 30 a day each. A rightsizing of api (900), and on
 *   their own also reservations (270 each).
 * - `i-db` (service orders, no telemetry): 24 a day with a credit of 20 a day on it. A reservation (216 of on-demand
 *   cost), but the instance costs 4 a day net: 120 a month.
 */
const kinds = await databaseKinds();
const NOW = Date.UTC(2026, 3, 1, 12, 0, 0);
const HOUR = 3_600_000;
const ec2 = {
  productCode: 'AmazonEC2',
  productFamily: 'Compute Instance',
  region: 'us-east-1',
  accountId: '111122223333',
  type: 'Usage',
} as const;
const march = (item: Parameters<typeof daily>[2]) => daily('2026-03-01', '2026-03-31', item);

const MARCH = [
  ...march({ ...ec2, resourceId: 'i-quiet', unblendedCost: 24, tags: { service: 'quiet' } }),
  ...march({ ...ec2, resourceId: 'i-api-1', unblendedCost: 30, tags: { service: 'api' } }),
  ...march({ ...ec2, resourceId: 'i-api-2', unblendedCost: 30, tags: { service: 'api' } }),
  ...march({ ...ec2, resourceId: 'i-db', unblendedCost: 24, tags: { service: 'orders' } }),
  ...march({ ...ec2, resourceId: 'i-db', type: 'Credit', unblendedCost: -20, tags: { service: 'orders' } }),
];

describe.each(kinds)('overlapping recommendations on %s', (kind) => {
  let server: AwsCostServer;

  const ingest = async (path: string, body: unknown) => {
    const res = await fetch(`${server.t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  };
  /** An hourly CPU sample for 8 days before the clock, never above 12 %. */
  const lowCpu = (service: string) => ({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeMetrics: [
          {
            scope: { name: 'test' },
            metrics: [
              {
                name: 'container.cpu.utilization',
                unit: '1',
                gauge: {
                  dataPoints: Array.from({ length: 8 * 24 }, (_, i) => ({
                    timeUnixNano: `${(NOW - 9 * 24 * HOUR + i * HOUR) * 1_000_000}`,
                    asDouble: 0.05 + (i % 8) / 100,
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  });

  beforeAll(async () => {
    const clock = { now: () => NOW };
    server = await startAwsCostServer(kind, { clock, periods: { '2026-03': MARCH } });
    for (const name of ['quiet', 'api'])
      await registerApp(server.t.server.database.db, clock, server.t.projectId, name);
    await server.connect();
    expect(
      (
        await server.api.call('POST', '/cost/mappings', {
          rules: [{ match: { tag: 'service', pattern: '*' }, attribute_to: 'service' }],
        })
      ).status,
    ).toBe(200);
    const spans = (service: string, count: number) =>
      traceBody(Array.from({ length: count }, (_, i) => ({ serviceName: service, startMs: NOW - 30 * HOUR + i })));
    await ingest('/otlp/v1/traces', spans('quiet', 3));
    await ingest('/otlp/v1/traces', spans('api', 600));
    for (const service of ['quiet', 'api']) await ingest('/otlp/v1/metrics', lowCpu(service));
  });
  afterAll(() => server?.close());

  it('counts each resource once: the idle one only stopped, the rightsized ones not also reserved, a saving at most its cost', async () => {
    const res = await server.api.get('/cost/recommendations');
    expect(res.status).toBe(200);
    const list = res.body.recommendations as (Json & { target: Json; evidence: Json })[];
    expect(
      list.map((r) => [
        r.kind,
        r.target.type === 'service' ? r.target.service : r.target.resource_id,
        r.estimated_monthly_saving,
      ]),
    ).toEqual([
      ['overprovisioned_service', 'api', 900],
      ['idle_resource', 'i-quiet', 720],
      ['reserved_instance', 'i-db', 120],
    ]);
    expect(res.body.total_estimated_monthly_saving).toBe(1740);
    const api = list[0]!.evidence;
    expect([...(api.resources as string[])].sort()).toEqual(['i-api-1', 'i-api-2']);
    expect(api).toMatchObject({ compute_cost: 1800, monthly_compute_cost: 1800, left_out: [] });
    // The reservation's own figures stay as judged; only the saving is held to what the instance costs net.
    expect(list[2]!.evidence).toMatchObject({ monthly_on_demand_cost: 720, commitment_discount: 0.3 });
  });
});
