import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daily, startAwsCostServer, type AwsCostServer, type Json } from '../support/cost/aws-server';
import type { SampleLineItem } from '../support/cost/report-files';
import { databaseKinds } from '../support/databases';

/**
 * Charges that are not usage — tax, credits, refunds, discounts, fees, support, the Savings Plan negation — through the
 * real server over HTTP: reported apart, by charge type, in the summary, the per-service breakdown and the estimate;
 * "Unattributed" holds untagged usage only.
 *
 * March 2026 (clock: March 11, 12:00 UTC; March 1–10 complete), every line item a day's:
 * - `i-web`, EC2 on demand, tag service=checkout: 10 a day (100), and an EDP discount on it of −1 a day (−10);
 * - `i-legacy`, EC2 on demand, untagged: 5 a day (50);
 * - `i-sp`, EC2 under a Savings Plan, tag service=batch: billed 2 a day at on-demand rates, 1.40 a day amortized (14),
 *   with its Savings Plan negation (billed −2 a day, amortized 0);
 * - account-wide, no resource: tax 12, a credit −20, a refund −4, a bundled discount −3, the unused part of an RI fee
 *   (billed 30, amortized 6) and the Business Support fee 29.
 * Usage: 164 amortized (114 tagged, 50 untagged), 170 billed. Charges: 10 amortized, 14 billed. Total 174, billed 184.
 */
const kinds = await databaseKinds();
const NOW = Date.UTC(2026, 2, 11, 12, 0, 0);
const ACCOUNT = '111122223333';
const ec2 = {
  productCode: 'AmazonEC2',
  productFamily: 'Compute Instance',
  region: 'us-east-1',
  accountId: ACCOUNT,
} as const;
const account = { resourceId: null, productCode: 'AmazonEC2', region: null, accountId: ACCOUNT } as const;
const checkout = { service: 'checkout' };

const MARCH: SampleLineItem[] = [
  ...daily('2026-03-01', '2026-03-10', {
    ...ec2,
    resourceId: 'i-web',
    type: 'Usage',
    unblendedCost: 10,
    tags: checkout,
  }),
  ...daily('2026-03-01', '2026-03-10', {
    ...ec2,
    resourceId: 'i-web',
    type: 'EdpDiscount',
    unblendedCost: -1,
    tags: checkout,
  }),
  ...daily('2026-03-01', '2026-03-10', { ...ec2, resourceId: 'i-legacy', type: 'Usage', unblendedCost: 5 }),
  ...daily('2026-03-01', '2026-03-10', {
    ...ec2,
    resourceId: 'i-sp',
    type: 'SavingsPlanCoveredUsage',
    unblendedCost: 2,
    effectiveCost: 1.4,
    tags: { service: 'batch' },
  }),
  ...daily('2026-03-01', '2026-03-10', {
    ...ec2,
    resourceId: 'i-sp',
    type: 'SavingsPlanNegation',
    unblendedCost: -2,
    effectiveCost: 0,
    tags: { service: 'batch' },
  }),
  { ...account, day: '2026-03-01', type: 'Tax', unblendedCost: 12 },
  { ...account, day: '2026-03-01', type: 'Credit', unblendedCost: -20 },
  { ...account, day: '2026-03-05', type: 'Refund', unblendedCost: -4 },
  { ...account, day: '2026-03-02', type: 'BundledDiscount', unblendedCost: -3 },
  { ...account, day: '2026-03-01', type: 'RIFee', unblendedCost: 30, effectiveCost: 6 },
  { ...account, day: '2026-03-01', productCode: 'AWSSupportBusiness', type: 'Fee', unblendedCost: 29 },
];

/** What every report lists apart from usage, largest amount first. */
const CHARGES = {
  cost: 10,
  billed_cost: 14,
  by_type: [
    { charge_type: 'Support', charge_category: 'Purchase', cost: 29, billed_cost: 29 },
    { charge_type: 'Credit', charge_category: 'Credit', cost: -20, billed_cost: -20 },
    { charge_type: 'Tax', charge_category: 'Tax', cost: 12, billed_cost: 12 },
    { charge_type: 'EdpDiscount', charge_category: 'Credit', cost: -10, billed_cost: -10 },
    { charge_type: 'RIFee', charge_category: 'Purchase', cost: 6, billed_cost: 30 },
    { charge_type: 'Refund', charge_category: 'Adjustment', cost: -4, billed_cost: -4 },
    { charge_type: 'BundledDiscount', charge_category: 'Credit', cost: -3, billed_cost: -3 },
    { charge_type: 'SavingsPlanNegation', charge_category: 'Credit', cost: 0, billed_cost: -20 },
  ],
};

describe.each(kinds)('non-usage charges on %s', (kind) => {
  let server: AwsCostServer;
  const get = async (path: string): Promise<Json> => {
    const res = await server.api.get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    server = await startAwsCostServer(kind, { clock: { now: () => NOW }, periods: { '2026-03': MARCH } });
    await server.connect();
    const mapped = await server.api.call('POST', '/cost/mappings', {
      rules: [{ match: { tag: 'service', pattern: '*' }, attribute_to: 'service' }],
    });
    expect(mapped.status).toBe(200);
  });
  afterAll(() => server?.close());

  it('summary: Unattributed is the untagged usage only; the charges are listed by type', async () => {
    expect(await get('/cost/summary')).toMatchObject({
      period: '2026-03',
      currency: 'USD',
      period_total: 174,
      billed_total: 184,
      usage_total: 164,
      attributed: { cost: 114, share: 0.695122 },
      unattributed: { cost: 50, share: 0.304878 },
      charges: CHARGES,
    });
  });

  it('by-service: each service is its usage, the EDP discount on a tagged instance included in the charges instead', async () => {
    expect(await get('/cost/by-service')).toMatchObject({
      total: 174,
      usage_total: 164,
      services: [
        {
          service: 'checkout',
          cost: 100,
          billed_cost: 100,
          share: 0.609756,
          envs: [{ env: 'Unattributed', cost: 100, billed_cost: 100 }],
        },
        {
          service: 'Unattributed',
          cost: 50,
          billed_cost: 50,
          share: 0.304878,
          envs: [{ env: 'Unattributed', cost: 50, billed_cost: 50 }],
        },
        // Billed at on-demand rates; the negation that cancels that is a charge.
        {
          service: 'batch',
          cost: 14,
          billed_cost: 20,
          share: 0.085366,
          envs: [{ env: 'Unattributed', cost: 14, billed_cost: 20 }],
        },
      ],
      charges: CHARGES,
    });
  });

  it('estimate: services project their usage; the charges are listed by type and counted once, as posted', async () => {
    const estimate = await get('/cost/estimate?period=monthly');
    // Usage of March 1–10 (164), 21 more days at the median daily usage (16.40), and the charges as posted (10).
    expect(estimate).toMatchObject({ currency: 'USD', to_date: 174, projected: 518.4, charges: CHARGES });
    expect((estimate.services as Json[]).map((s) => [s.service, s.to_date, s.projected])).toEqual([
      ['checkout', 100, 310],
      ['Unattributed', 50, 155],
      ['batch', 14, 43.4],
    ]);
    // The usage of each day of the period so far, charges left out: March 1–10, and the 11th (today) with nothing yet.
    expect(estimate.daily).toEqual([
      ...Array.from({ length: 10 }, (_, i) => ({ day: `2026-03-${String(i + 1).padStart(2, '0')}`, cost: 16.4 })),
      { day: '2026-03-11', cost: 0 },
    ]);
  });
});
