import { describe, expect, it } from 'vitest';
import { addDays, type DailyCost } from '../../server/src/cost/reports/days';
import { idleResources, type ResourceComputeCost } from '../../server/src/cost/reports/recommendations/idle';
import { overprovisionedServices, type ServiceUtilization } from '../../server/src/cost/reports/recommendations/overprovisioned';
import { RECOMMENDATION_NOTE, recommendationList } from '../../server/src/cost/reports/recommendations/recommendation';
import { reservedInstanceOpportunities, type OnDemandCompute } from '../../server/src/cost/reports/recommendations/reserved';

const series = (start: string, costs: number[]): DailyCost[] => costs.map((cost, i) => ({ day: addDays(start, i), cost }));
const p95s = (start: string, values: number[]) => values.map((p95, i) => ({ day: addDays(start, i), p95 }));
const ids = (list: { target: { type: string } & Record<string, unknown> }[]) => list.map((r) => r.target.resource_id ?? r.target.service);

describe('idle resources', () => {
  const resource = (id: string, service: string | null, compute_cost: number): ResourceComputeCost => ({
    resource_id: id,
    resource_name: `${id}-name`,
    service,
    compute_cost,
    currency: 'USD',
  });
  // Spans over 30 days: 60 is 2 a day, 300 is exactly 10 a day.
  const spans = new Map([
    ['reports', 60],
    ['checkout', 300],
    ['ghost', 0],
  ]);

  it('flags notable compute of a monitored service with under 10 requests a day; saving is the monthly compute cost', () => {
    const found = idleResources(
      [
        resource('i-reports', 'reports', 45),
        resource('i-ghost', 'ghost', 20),
        resource('i-checkout', 'checkout', 500),
        resource('i-unmonitored', 'legacy', 900),
        resource('i-unattributed', null, 900),
        resource('i-cheap', 'reports', 19.99),
      ],
      spans,
    );
    expect(ids(found)).toEqual(['i-reports', 'i-ghost']);
    expect(found[0]).toEqual({
      kind: 'idle_resource',
      target: { type: 'resource', resource_id: 'i-reports', resource_name: 'i-reports-name', service: 'reports' },
      evidence: {
        service: 'reports',
        lookback_days: 30,
        compute_cost: 45,
        monthly_compute_cost: 45,
        spans: 60,
        requests_per_day: 2,
        max_requests_per_day: 10,
      },
      estimated_monthly_saving: 45,
      currency: 'USD',
    });
  });

  it('scales a shorter lookback to a 30-day month and takes other thresholds', () => {
    // 14 over 14 days is 30 a month; 60 spans over 14 days is 4.29 a day.
    const found = idleResources([resource('i-reports', 'reports', 14)], spans, { lookback_days: 14 });
    expect(found[0]).toMatchObject({ estimated_monthly_saving: 30, evidence: { monthly_compute_cost: 30 } });
    expect(found[0]!.evidence.requests_per_day).toBeCloseTo(60 / 14, 10);
    expect(idleResources([resource('i-reports', 'reports', 45)], spans, { max_requests_per_day: 2 })).toEqual([]);
    expect(idleResources([resource('i-reports', 'reports', 45)], spans, { min_monthly_cost: 50 })).toEqual([]);
  });
});

describe('overprovisioned services', () => {
  const service = (name: string, compute_cost: number, cpu?: number[], memory?: number[]): ServiceUtilization => ({
    service: name,
    compute_cost,
    currency: 'EUR',
    ...(cpu && { cpu: { metric: 'container.cpu.utilization', days: p95s('2024-03-01', cpu) } }),
    ...(memory && { memory: { metric: 'container.memory.utilization', days: p95s('2024-03-01', memory) } }),
  });

  it('flags a service whose CPU or memory p95 stayed under 20 % on every day of at least 7; saving is half its compute', () => {
    const lowCpu = [0.05, 0.12, 0.08, 0.19, 0.1, 0.07, 0.11, 0.09, 0.15, 0.06];
    const found = overprovisionedServices([
      service('api', 600, lowCpu, [0.7, 0.72, 0.69, 0.75, 0.7, 0.71, 0.7, 0.73, 0.7, 0.7]),
      service('worker', 200, undefined, [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]),
      service('one-busy-day', 600, [...lowCpu.slice(0, 9), 0.2]),
      service('six-days', 600, lowCpu.slice(0, 6)),
      service('busy', 600, [0.5, 0.6, 0.55, 0.5, 0.6, 0.5, 0.5], [0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]),
      service('cheap', 19, lowCpu),
      service('no-metrics', 600),
    ]);
    expect(ids(found)).toEqual(['api', 'worker']);
    expect(found[0]).toEqual({
      kind: 'overprovisioned_service',
      target: { type: 'service', service: 'api' },
      evidence: {
        threshold: 0.2,
        min_days: 7,
        lookback_days: 30,
        compute_cost: 600,
        monthly_compute_cost: 600,
        cpu: { metric: 'container.cpu.utilization', days: 10, max_daily_p95: 0.19, consistently_low: true },
        memory: { metric: 'container.memory.utilization', days: 10, max_daily_p95: 0.75, consistently_low: false },
      },
      estimated_monthly_saving: 300,
      currency: 'EUR',
    });
    expect(found[1]).toMatchObject({ estimated_monthly_saving: 100, evidence: { cpu: null, memory: { days: 7, max_daily_p95: 0.1 } } });
  });
});

describe('reserved-instance opportunities', () => {
  const resource = (id: string, daily: DailyCost[]): OnDemandCompute => ({
    resource_id: id,
    resource_name: null,
    service: 'api',
    currency: 'USD',
    daily,
  });
  const alternating = (a: number, b: number, n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? a : b));

  it('flags steady on-demand compute on at least 90 % of the days; saving is 30 % of the monthly on-demand cost', () => {
    const found = reservedInstanceOpportunities([
      resource('i-steady', series('2024-03-01', Array(30).fill(10))),
      // 27 of 30 days, the other three without rows or at 0.
      resource('i-27-days', [...series('2024-03-01', Array(26).fill(10)), { day: '2024-03-29', cost: 10 }, { day: '2024-03-30', cost: 0 }]),
      resource('i-26-days', series('2024-03-01', Array(26).fill(10))),
      // 8 and 12: mean 10, standard deviation 2, CV 0.2. 7 and 13: CV 0.3.
      resource('i-wobbly', series('2024-03-01', alternating(8, 12, 30))),
      resource('i-spiky', series('2024-03-01', alternating(7, 13, 30))),
      resource('i-tiny', series('2024-03-01', Array(30).fill(0.5))),
    ]);
    expect(ids(found)).toEqual(['i-steady', 'i-27-days', 'i-wobbly']);
    expect(found[0]).toEqual({
      kind: 'reserved_instance',
      target: { type: 'resource', resource_id: 'i-steady', resource_name: null, service: 'api' },
      evidence: {
        lookback_days: 30,
        days_with_usage: 30,
        coverage: 1,
        mean_daily_cost: 10,
        cv: 0,
        on_demand_cost: 300,
        monthly_on_demand_cost: 300,
        commitment_discount: 0.3,
      },
      estimated_monthly_saving: 90,
      currency: 'USD',
    });
    expect(found[1]).toMatchObject({ estimated_monthly_saving: 81, evidence: { days_with_usage: 27, coverage: 0.9, on_demand_cost: 270 } });
    expect(found[2]!.evidence.cv).toBeCloseTo(0.2, 12);
  });

  it('takes another discount and thresholds', () => {
    const daily = series('2024-03-01', alternating(7, 13, 30));
    const [found] = reservedInstanceOpportunities([resource('i-spiky', daily)], { max_cv: 0.3, commitment_discount: 0.4 });
    expect(found!.estimated_monthly_saving).toBeCloseTo(120, 10);
    expect(reservedInstanceOpportunities([resource('i-spiky', daily)], { max_cv: 0.3, min_coverage: 1.01 })).toEqual([]);
  });
});

describe('recommendation list', () => {
  it('carries the advisory note and puts the largest saving first', () => {
    const idle = idleResources(
      [{ resource_id: 'i-1', resource_name: null, service: 'reports', compute_cost: 40, currency: 'USD' }],
      new Map([['reports', 0]]),
    );
    const reserved = reservedInstanceOpportunities([
      { resource_id: 'i-2', resource_name: null, service: 'api', currency: 'USD', daily: series('2024-03-01', Array(30).fill(10)) },
    ]);
    const list = recommendationList([...idle, ...reserved]);
    expect(list.note).toBe(RECOMMENDATION_NOTE);
    expect(list.note).toMatch(/heuristic and advisory/);
    expect(list.recommendations.map((r) => [r.kind, r.estimated_monthly_saving])).toEqual([
      ['reserved_instance', 90],
      ['idle_resource', 40],
    ]);
  });
});
