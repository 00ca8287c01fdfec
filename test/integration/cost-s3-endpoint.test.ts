import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COST_BUCKET, daily, startAwsCostServer, type AwsCostServer } from '../support/cost/aws-server';
import { databaseKinds } from '../support/databases';

/**
 * An S3-compatible store (MinIO, Ceph, LocalStack) named by host name in the AWS SDK's own variable,
 * `AWS_ENDPOINT_URL_S3=http://localhost:<port>`, as an operator sets it for the `svc-server` process: the sync reads it
 * path-style (`localhost:<port>/acme-billing/...`). Virtual-hosted addressing would ask DNS for
 * `acme-billing.localhost`, which does not resolve, and the sync would fail.
 */
const kinds = await databaseKinds();
const NOW = Date.UTC(2026, 2, 11, 12, 0, 0);
const MARCH = daily('2026-03-01', '2026-03-10', {
  resourceId: 'i-web',
  productCode: 'AmazonEC2',
  region: 'us-east-1',
  accountId: '111122223333',
  type: 'Usage',
  unblendedCost: 10,
});

describe.each(kinds)('an S3 endpoint by host name from AWS_ENDPOINT_URL_S3 on %s', (kind) => {
  let server: AwsCostServer;
  const before = process.env.AWS_ENDPOINT_URL_S3;

  beforeAll(async () => {
    server = await startAwsCostServer(kind, {
      clock: { now: () => NOW },
      periods: { '2026-03': MARCH },
      endpoints: (s3, sts) => {
        // Read by the server at start, like the environment of its process; no S3 endpoint in its options.
        process.env.AWS_ENDPOINT_URL_S3 = `http://localhost:${new URL(s3.endpoint).port}`;
        return { sts: sts.url };
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    if (before === undefined) delete process.env.AWS_ENDPOINT_URL_S3;
    else process.env.AWS_ENDPOINT_URL_S3 = before;
  });

  it('syncs the bucket path-style and reports its cost', async () => {
    const id = await server.connect();
    const status = await server.api.get(`/cost/providers/${id}/sync`);
    expect(status.body, JSON.stringify(status.body)).toMatchObject({
      state: 'scheduled',
      last_run: { status: 'succeeded', error: null },
    });
    expect((await server.api.get('/cost/summary')).body).toMatchObject({ currency: 'USD', period_total: 100 });
    // Every request named the bucket in its path.
    expect(server.s3.requests.length).toBeGreaterThan(0);
    expect(server.s3.requests.filter((r) => !r.path.startsWith(`/${COST_BUCKET}`))).toEqual([]);
  });
});
