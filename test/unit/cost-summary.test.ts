import { describe, expect, it } from 'vitest';
import { costByService, periodSummary } from '../../server/src/cost/reports/summary';
import { splitCurrency, type CostRow } from '../../server/src/cost/store/costs';

const row = (over: Partial<CostRow>): CostRow => ({
  day: '2026-11-02',
  billing_period: '2026-11',
  service: null,
  env: null,
  charge_category: 'Usage',
  charge_type: 'Usage',
  currency: 'USD',
  effective: 0,
  billed: 0,
  ...over,
});

const rows = splitCurrency([
  row({ service: 'checkout', env: 'prod', effective: 6, billed: 7 }),
  row({ service: 'checkout', env: 'staging', effective: 1, billed: 1 }),
  row({ effective: 3, billed: 3 }),
  row({ day: '2026-11-30', charge_category: 'Purchase', charge_type: 'Fee', effective: 10, billed: 10 }),
  row({ currency: 'EUR', service: 'search', effective: 2, billed: 2 }),
]);

describe('cost summary', () => {
  it('totals the period, to date, and the shares of usage the rules attribute', () => {
    const now = Date.UTC(2026, 10, 15);
    const summary = periodSummary('2026-11', rows, [], now);
    expect(summary).toMatchObject({
      period: '2026-11',
      currency: 'USD',
      period_total: 20,
      month_to_date: 10,
      billed_total: 21,
      usage_total: 10,
      attributed: { cost: 7, share: 0.7 },
      unattributed: { cost: 3, share: 0.3 },
      other_currencies: [{ currency: 'EUR', cost: 2 }],
      providers: [],
    });
    expect(summary.data.status).toBe('no_data');
  });

  it('breaks usage down by service and env, largest first, Unattributed always listed', () => {
    const byService = costByService('2026-11', rows);
    expect(byService.services.map((s) => [s.service, s.cost, s.share, s.envs.map((e) => e.env)])).toEqual([
      ['checkout', 7, 0.7, ['prod', 'staging']],
      ['Unattributed', 3, 0.3, ['Unattributed']],
    ]);
    expect([byService.total, byService.usage_total]).toEqual([20, 10]);
    const empty = costByService('2026-11', splitCurrency([]));
    expect(empty.services).toEqual([{ service: 'Unattributed', cost: 0, billed_cost: 0, share: 0, envs: [] }]);
  });
});
