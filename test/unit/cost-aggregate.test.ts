import { describe, expect, it } from 'vitest';
import type { CostLineItem } from '../../server/src/cost/model';
import { createAggregator, resourceSeen, updateSeen } from '../../server/src/cost/sync/aggregate';

const HOUR = 3_600_000;
const item = (over: Partial<CostLineItem>): CostLineItem => ({
  chargePeriodStartMs: Date.UTC(2026, 10, 2),
  chargePeriodEndMs: Date.UTC(2026, 10, 2) + HOUR,
  billingPeriod: '2026-11',
  billedCost: 1,
  effectiveCost: 0.5,
  currency: 'USD',
  resourceId: 'i-1',
  resourceName: null,
  serviceName: 'AmazonEC2',
  serviceCategory: null,
  region: 'us-east-1',
  accountId: '1234',
  chargeCategory: 'Usage',
  chargeType: 'Usage',
  pricingCategory: 'Standard',
  tags: { team: 'a' },
  ...over,
});

describe('cost aggregation', () => {
  it('remembers a resource as first seen and takes a later name, category and tags', () => {
    const seen = resourceSeen('i-1', item({}));
    expect(seen).toEqual({
      key: 'i-1',
      resourceId: 'i-1',
      resourceName: null,
      serviceName: 'AmazonEC2',
      serviceCategory: null,
      region: 'us-east-1',
      accountId: '1234',
      tags: { team: 'a' },
    });
    updateSeen(seen, item({ resourceName: 'web', serviceCategory: 'Compute', tags: { team: 'b', env: 'prod' } }));
    updateSeen(seen, item({ serviceCategory: 'Storage', tags: {} }));
    expect(seen).toMatchObject({ resourceName: 'web', serviceCategory: 'Compute', tags: { team: 'b', env: 'prod' } });
  });

  it('sums hourly rows into one row per day, resource and kind of charge', () => {
    const aggregator = createAggregator();
    const day = Date.UTC(2026, 10, 2);
    aggregator.add([
      item({}),
      item({ chargePeriodStartMs: day + HOUR }),
      item({ chargePeriodStartMs: day + 25 * HOUR }),
    ]);
    aggregator.add([item({ chargeCategory: 'Tax', chargeType: 'Tax', pricingCategory: null, resourceId: null })]);
    const result = aggregator.result();
    expect(result.lineItems).toBe(4);
    expect(result.resources.size).toBe(2);
    expect(
      result.daily.map((d) => [
        d.day,
        d.resourceKey.startsWith('~') ? 'charge' : d.resourceKey,
        d.chargeCategory,
        d.billedCost,
        d.lineItems,
      ]),
    ).toEqual([
      ['2026-11-02', 'i-1', 'Usage', 2, 2],
      ['2026-11-03', 'i-1', 'Usage', 1, 1],
      ['2026-11-02', 'charge', 'Tax', 1, 1],
    ]);
  });
});
