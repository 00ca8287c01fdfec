import { expect, test } from '@playwright/test';
import { putLegacyCur } from '../../support/cost/aws-exports';
import {
  COST_BUCKET,
  COST_ROLE,
  controlPlane,
  daily,
  type ControlPlane,
  type Json,
} from '../../support/cost/aws-server';
import { startFakeSts, type FakeSts } from '../../support/cost/fake-sts';
import type { SampleLineItem } from '../../support/cost/report-files';
import { startLocalS3, type LocalS3 } from '../../support/cost/s3';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';

/**
 * The Cost page (`/cost`) on cost data a real sync read: a legacy CUR delivered to a local S3 (s3rver) and read by
 * `svc-server start` with a role assumed from a local STS, both named to the server the way an operator names them, in
 * the AWS SDK's own variables (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL_STS`). The connection is made and synced over
 * HTTP. The page must show what the API computes: the period total, usage per service, the daily trend with the
 * anomalous day marked and listed, the charges that are not usage, and the recommendations with their total.
 *
 * The server runs on the real clock, so the bill covers the 45 days before today: three steady EC2 instances of
 * services checkout, orders and batch (batch spiking three days ago) and S3 storage of search; tax, a credit, a refund
 * and the support fee on today. (On the first three days of a month the spike falls in the previous period.)
 */

const ACCOUNT = '111122223333';
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const TODAY = dayOf(Date.now());
const FIRST = dayOf(Date.now() - 45 * DAY_MS);
const YESTERDAY = dayOf(Date.now() - DAY_MS);
const SPIKE = dayOf(Date.now() - 3 * DAY_MS);
const ec2 = {
  productCode: 'AmazonEC2',
  productFamily: 'Compute Instance',
  region: 'us-east-1',
  accountId: ACCOUNT,
  type: 'Usage',
} as const;
const account = { resourceId: null, productCode: 'AmazonEC2', region: null, accountId: ACCOUNT } as const;

const ITEMS: SampleLineItem[] = [
  ...daily(FIRST, YESTERDAY, {
    ...ec2,
    resourceId: 'i-web',
    resourceName: 'web-1',
    unblendedCost: 10,
    tags: { service: 'checkout' },
  }),
  ...daily(FIRST, YESTERDAY, {
    ...ec2,
    resourceId: 'i-orders',
    resourceName: 'orders-db',
    unblendedCost: 6,
    tags: { service: 'orders' },
  }),
  ...daily(FIRST, YESTERDAY, { ...ec2, resourceId: 'i-batch', unblendedCost: 2, tags: { service: 'batch' } }).map(
    (item) => (item.day === SPIKE ? { ...item, unblendedCost: 80 } : item),
  ),
  ...daily(FIRST, YESTERDAY, {
    productCode: 'AmazonS3',
    productFamily: 'Storage',
    region: 'us-east-1',
    accountId: ACCOUNT,
    type: 'Usage',
    resourceId: 'search-index',
    unblendedCost: 3,
    tags: { service: 'search' },
  }),
  { ...account, day: TODAY, type: 'Tax', unblendedCost: 12 },
  { ...account, day: TODAY, type: 'Credit', unblendedCost: -20 },
  { ...account, day: TODAY, type: 'Refund', unblendedCost: -4 },
  { ...account, day: TODAY, productCode: 'AWSSupportBusiness', type: 'Fee', unblendedCost: 29 },
];

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

let server: CliServer;
let s3: LocalS3;
let sts: FakeSts;
let api: ControlPlane;
const restoreEnv: Record<string, string | undefined> = {};

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  s3 = await startLocalS3();
  sts = await startFakeSts();
  await s3.createBucket(COST_BUCKET);
  const periods = new Map<string, SampleLineItem[]>();
  for (const item of ITEMS) periods.set(item.day.slice(0, 7), [...(periods.get(item.day.slice(0, 7)) ?? []), item]);
  for (const [period, rows] of periods)
    await putLegacyCur(
      { s3: s3.admin, bucket: COST_BUCKET, prefix: 'cur/' },
      { name: 'hourly', period, assemblies: [[rows]] },
    );
  // The server process inherits these: where S3 and STS are, and base credentials (never instance metadata).
  const env = {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_STS: sts.url,
    AWS_ACCESS_KEY_ID: 'AKIDBASECREDENTIALS',
    AWS_SECRET_ACCESS_KEY: 'base-secret',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  for (const [name, value] of Object.entries(env)) {
    restoreEnv[name] = process.env[name];
    process.env[name] = value;
  }
  server = await startCliServer();
  api = controlPlane(server);
  expect(
    (
      await api.call('POST', '/cost/mappings', {
        rules: [{ match: { tag: 'service', pattern: '*' }, attribute_to: 'service' }],
      })
    ).status,
  ).toBe(200);
  const created = await api.call('POST', '/cost/providers', {
    provider: 'aws',
    name: 'acme billing',
    config: { role_arn: COST_ROLE, cur_bucket: COST_BUCKET, cur_prefix: 'cur/' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // The first sync is due at once; wait for its run to be recorded.
  await expect
    .poll(
      async () =>
        ((await api.get(`/cost/providers/${String(created.body.id)}/sync`)).body.last_run as Json | null)?.status ??
        null,
      { timeout: 60_000 },
    )
    .toBe('succeeded');
});
test.afterAll(async () => {
  await server?.close();
  await Promise.all([s3?.close(), sts?.close()]);
  for (const [name, value] of Object.entries(restoreEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

test('the period total, per-service bars, the trend with its anomaly, the non-usage charges and the recommendations', async ({
  page,
}, testInfo) => {
  const summary = (await api.get('/cost/summary')).body;
  const byService = (await api.get('/cost/by-service')).body;
  const estimate = (await api.get('/cost/estimate?period=monthly')).body;
  const recommendations = (await api.get('/cost/recommendations')).body;
  expect(summary.currency).toBe('USD');

  await signIn(page, server, { path: '/cost' });
  await expect(page.getByRole('heading', { level: 1, name: 'Cost' })).toBeVisible();
  const kpis = page.getByRole('group', { name: 'Cost figures' });
  await expect(kpis.getByLabel(`Period total (${String(summary.period)})`)).toHaveText(
    usd.format(summary.period_total as number),
  );
  await expect(kpis).toContainText(usd.format(estimate.projected as number));
  await expect(kpis).toContainText('fresh');
  await expect(kpis).toContainText(/synced (just now|\d+ min ago) from acme billing/);

  const bars = page.getByRole('list', { name: /Usage cost by service/ });
  const services = byService.services as Json[];
  await expect(bars.getByRole('listitem')).toHaveCount(services.length);
  for (const s of services)
    await expect(bars.getByRole('listitem').filter({ hasText: String(s.service) })).toContainText(
      usd.format(s.cost as number),
    );

  // The anomaly: batch's spike, marked on the chart (its accessible name counts the marks) and listed in text.
  const flagged = (estimate.anomalies as { total: Json[]; by_service: Json[] }).total;
  if (Number(TODAY.slice(8)) > 3) expect(flagged.map((f) => f.day)).toContain(SPIKE);
  await expect(page.getByRole('img', { name: new RegExp(`${flagged.length} anomalous day`) })).toBeVisible();
  await expect(page.locator('.chart canvas').first()).toBeVisible();
  const anomalies = page.getByRole('list', { name: 'Anomalous days' });
  if (flagged.length > 0) {
    await expect(anomalies).toContainText('total: ');
    await expect(anomalies).toContainText('batch: ');
  }

  const charges = page.getByRole('table', { name: 'Non-usage charges by charge type' });
  for (const type of ['Support', 'Credit', 'Tax', 'Refund'])
    await expect(charges.getByRole('row', { name: new RegExp(`^${type} `) })).toBeVisible();
  await expect(charges.getByRole('row', { name: /^Credit / })).toContainText(usd.format(-20));
  await expect(charges.getByRole('row', { name: /^Total / })).toContainText(
    usd.format((summary.charges as Json).cost as number),
  );

  const recs = page.getByRole('table', { name: 'Savings recommendations, largest saving first' });
  const listed = recommendations.recommendations as Json[];
  expect(listed.length).toBeGreaterThan(0);
  const savingCells = recs.locator('tbody tr td:last-child');
  await expect(savingCells).toHaveText(listed.map((r) => usd.format(r.estimated_monthly_saving as number)));
  await expect(recs.locator('tbody tr').first()).toContainText('web-1 (i-web) · checkout');
  await expect(recs.getByRole('row', { name: /Total estimated saving/ })).toContainText(
    usd.format(recommendations.total_estimated_monthly_saving as number),
  );

  // Keyboard: "Sync now" is reachable and works from the keyboard.
  const syncNow = page.getByRole('button', { name: 'Sync now: acme billing' });
  await syncNow.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Sync of acme billing started.')).toBeVisible();

  await expectAccessible(page);
  await screenshot(page, testInfo, 'cost');
});

test('a read key sees the figures without "Sync now"', async ({ page }) => {
  const out = await server.admin('keys', 'create', '--scope', 'read', '--name', 'viewer');
  await signIn(page, server, { key: /svc_read_\S+/.exec(out)?.[0], path: '/cost' });
  await expect(page.getByRole('group', { name: 'Cost figures' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Cloud billing connections' })).toContainText('acme billing');
  await expect(page.getByRole('button', { name: /Sync/ })).toHaveCount(0);
});

test('a project with no connection is told how to connect one', async ({ page }) => {
  const project = await server.newProject();
  await signIn(page, project, { path: '/cost' });
  await expect(page.getByRole('heading', { name: 'No cloud billing connected' })).toBeVisible();
  await expect(page.getByText(/POST \$SVC_URL\/control-plane\/cost\/providers/)).toBeVisible();
  await expectAccessible(page);
});
