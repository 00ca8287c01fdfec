import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COST_ROLE, daily, startAwsCostServer, type AwsCostServer, type Json } from '../support/cost/aws-server';
import { databaseKinds } from '../support/databases';

/**
 * Every report says how fresh its data is, through the real server over HTTP: no connection, a sync that never
 * succeeded (the role cannot be assumed: no working cloud access), a successful one, and data left a day and a half
 * behind. Without it, a failed sync reads as a month that cost nothing.
 */
const kinds = await databaseKinds();
const NOW = Date.UTC(2026, 2, 11, 12, 0, 0);
const HOUR = 3_600_000;
const ISO_NOW = new Date(NOW).toISOString();
const REPORTS = ['/cost/summary', '/cost/by-service', '/cost/estimate?period=monthly', '/cost/recommendations'];
const MARCH = daily('2026-03-01', '2026-03-10', {
  resourceId: 'i-web',
  productCode: 'AmazonEC2',
  region: 'us-east-1',
  accountId: '111122223333',
  type: 'Usage',
  unblendedCost: 10,
});

describe.each(kinds)('data freshness in every report on %s', (kind) => {
  let server: AwsCostServer;
  let now = NOW;
  let providerId = '';

  /** The `data` of every report, which must be the same in each. */
  const dataOfReports = async (): Promise<Json> => {
    const all = await Promise.all(REPORTS.map((path) => server.api.get(path)));
    for (const res of all) expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const res of all.slice(1)) expect(res.body.data).toEqual(all[0]!.body.data);
    return all[0]!.body.data as Json;
  };

  beforeAll(async () => {
    server = await startAwsCostServer(kind, { clock: { now: () => now }, periods: { '2026-03': MARCH } });
  });
  afterAll(() => server?.close());

  it('says there is no data when no provider is connected', async () => {
    expect(await dataOfReports()).toEqual({
      status: 'no_data',
      message: 'No cost provider is connected: there is no cost data.',
      stale_after_hours: 36,
      providers: [],
    });
  });

  it('says no sync ever succeeded, with the error and when it happened, when the cloud cannot be reached', async () => {
    server.sts.denied.add(COST_ROLE);
    providerId = await server.connect();
    const data = await dataOfReports();
    expect(data).toMatchObject({
      status: 'no_data',
      message: 'No sync has succeeded yet, so there is no cost data: see providers[].last_error.',
    });
    expect(data.providers).toEqual([
      {
        id: providerId,
        provider: 'aws',
        name: null,
        status: 'no_data',
        last_success_at: null,
        last_error: {
          message: expect.stringMatching(/could not assume config\.role_arn with STS \(AccessDenied/),
          at: ISO_NOW,
        },
        consecutive_failures: 1,
        next_sync_at: new Date(NOW + 5 * 60_000).toISOString(),
      },
    ]);
    // The zeros of the estimate are explained by `data`, not a month that cost nothing.
    expect((await server.api.get('/cost/estimate?period=monthly')).body).toMatchObject({
      currency: null,
      projected: 0,
    });
  });

  it('is fresh once a sync succeeds, and stale when the last success is more than 36 hours old', async () => {
    server.sts.denied.delete(COST_ROLE);
    expect((await server.api.call('POST', `/cost/providers/${providerId}/sync`)).status).toBe(202);
    await server.t.server.cost.sync.runDue();
    const fresh = await dataOfReports();
    expect(fresh).toEqual({
      status: 'fresh',
      message: 'Every connection synced in the last 36 hours.',
      stale_after_hours: 36,
      providers: [
        {
          id: providerId,
          provider: 'aws',
          name: null,
          status: 'fresh',
          last_success_at: ISO_NOW,
          last_error: null,
          consecutive_failures: 0,
          next_sync_at: new Date(NOW + 24 * HOUR).toISOString(),
        },
      ],
    });
    expect((await server.api.get('/cost/summary')).body).toMatchObject({ currency: 'USD', period_total: 100 });

    // No sync has run since (the worker is not asked to): 36 hours on, the data is still as it was, but not fresh.
    now = NOW + 36 * HOUR;
    expect((await dataOfReports()).status).toBe('fresh');
    now = NOW + 37 * HOUR;
    expect(await dataOfReports()).toMatchObject({
      status: 'stale',
      message: 'The data of 1 of 1 connections is older than 36 hours or missing: see providers.',
      providers: [{ id: providerId, status: 'stale', last_success_at: ISO_NOW }],
    });
  });
});
