import { describe, expect, it } from 'vitest';
import { addDays, type DailyCost } from '../../server/src/cost/reports/days';
import { idleResources, type ResourceComputeCost } from '../../server/src/cost/reports/recommendations/idle';
import { resolveOverlaps } from '../../server/src/cost/reports/recommendations/overlaps';
import {
  overprovisionedServices,
  type ServiceUtilization,
} from '../../server/src/cost/reports/recommendations/overprovisioned';
import { RECOMMENDATION_NOTE, recommendationList } from '../../server/src/cost/reports/recommendations/recommendation';
import {
  reservedInstanceOpportunities,
  type OnDemandCompute,
} from '../../server/src/cost/reports/recommendations/reserved';

const series = (start: string, costs: number[]): DailyCost[] =>
  costs.map((cost, i) => ({ day: addDays(start, i), cost }));
const p95s = (start: string, values: number[]) => values.map((p95, i) => ({ day: addDays(start, i), p95 }));
const ids = (list: { target: { type: string } & Record<string, unknown> }[]) =>
  list.map((r) => r.target.resource_id ?? r.target.service);

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
    expect(found[1]).toMatchObject({
      estimated_monthly_saving: 100,
      evidence: { cpu: null, memory: { days: 7, max_daily_p95: 0.1 } },
    });
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
      resource('i-27-days', [
        ...series('2024-03-01', Array(26).fill(10)),
        { day: '2024-03-29', cost: 10 },
        { day: '2024-03-30', cost: 0 },
      ]),
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
    expect(found[1]).toMatchObject({
      estimated_monthly_saving: 81,
      evidence: { days_with_usage: 27, coverage: 0.9, on_demand_cost: 270 },
    });
    expect(found[2]!.evidence.cv).toBeCloseTo(0.2, 12);
  });

  it('takes another discount and thresholds', () => {
    const daily = series('2024-03-01', alternating(7, 13, 30));
    const [found] = reservedInstanceOpportunities([resource('i-spiky', daily)], {
      max_cv: 0.3,
      commitment_discount: 0.4,
    });
    expect(found!.estimated_monthly_saving).toBeCloseTo(120, 10);
    expect(reservedInstanceOpportunities([resource('i-spiky', daily)], { max_cv: 0.3, min_coverage: 1.01 })).toEqual(
      [],
    );
  });
});

describe('recommendation list', () => {
  it('carries the advisory note and puts the largest saving first', () => {
    const idle = idleResources(
      [{ resource_id: 'i-1', resource_name: null, service: 'reports', compute_cost: 40, currency: 'USD' }],
      new Map([['reports', 0]]),
    );
    const reserved = reservedInstanceOpportunities([
      {
        resource_id: 'i-2',
        resource_name: null,
        service: 'api',
        currency: 'USD',
        daily: series('2024-03-01', Array(30).fill(10)),
      },
    ]);
    const list = recommendationList([...idle, ...reserved]);
    expect(list.note).toBe(RECOMMENDATION_NOTE);
    expect(list.note).toMatch(/heuristic and advisory/);
    expect(list.recommendations.map((r) => [r.kind, r.estimated_monthly_saving])).toEqual([
      ['reserved_instance', 90],
      ['idle_resource', 40],
    ]);
    expect(list.total_estimated_monthly_saving).toBe(130);
  });
});

describe('overlapping recommendations', () => {
  // Over 30 days: i-idle (service quiet) 300, i-a and i-b (service api) 300 each, i-db (no service) 300.
  const resources: ResourceComputeCost[] = [
    { resource_id: 'i-idle', resource_name: null, service: 'quiet', compute_cost: 300, currency: 'USD' },
    { resource_id: 'i-a', resource_name: null, service: 'api', compute_cost: 300, currency: 'USD' },
    { resource_id: 'i-b', resource_name: null, service: 'api', compute_cost: 300, currency: 'USD' },
    { resource_id: 'i-db', resource_name: null, service: null, compute_cost: 300, currency: 'USD' },
  ];
  const steady = (id: string, service: string | null, cost = 10): OnDemandCompute => ({
    resource_id: id,
    resource_name: null,
    service,
    currency: 'USD',
    daily: series('2024-03-01', Array(30).fill(cost)),
  });
  const lowCpu = { metric: 'container.cpu.utilization', days: p95s('2024-03-01', Array(10).fill(0.05)) };
  const candidates = (options: { commitment_discount?: number } = {}) => ({
    idle: idleResources(
      resources,
      new Map([
        ['quiet', 0],
        ['api', 3000],
      ]),
    ),
    overprovisioned: overprovisionedServices([
      { service: 'quiet', compute_cost: 300, currency: 'USD', cpu: lowCpu },
      { service: 'api', compute_cost: 600, currency: 'USD', cpu: lowCpu },
    ]),
    reserved: reservedInstanceOpportunities(
      [steady('i-idle', 'quiet'), steady('i-a', 'api'), steady('i-b', 'api'), steady('i-db', null)],
      options,
    ),
    resources,
  });
  const summary = (list: ReturnType<typeof resolveOverlaps>) =>
    list.map((r) => [
      r.kind,
      r.target.type === 'service' ? r.target.service : r.target.resource_id,
      r.estimated_monthly_saving,
    ]);

  it('keeps one recommendation per resource: idle over everything, a rightsizing over the reservations it beats', () => {
    const found = candidates();
    // On their own: idle i-idle 300; rightsizing quiet 150 and api 300; reservations of 90 on all four.
    expect(found.idle).toHaveLength(1);
    expect(found.overprovisioned).toHaveLength(2);
    expect(found.reserved).toHaveLength(4);
    const resolved = resolveOverlaps(found);
    expect(summary(resolved)).toEqual([
      ['idle_resource', 'i-idle', 300],
      ['overprovisioned_service', 'api', 300],
      ['reserved_instance', 'i-db', 90],
    ]);
    expect(resolved[1]!.evidence).toMatchObject({
      compute_cost: 600,
      monthly_compute_cost: 600,
      resources: ['i-a', 'i-b'],
      left_out: [],
    });
    expect(recommendationList(resolved).total_estimated_monthly_saving).toBe(690);
  });

  it('gives a resource its reservation when that saves more than its share of the rightsizing, and says so', () => {
    // A 60 % commitment discount: 180 a month per instance, more than half of its 300.
    const resolved = resolveOverlaps(candidates({ commitment_discount: 0.6 }));
    expect(summary(resolved)).toEqual([
      ['idle_resource', 'i-idle', 300],
      ['reserved_instance', 'i-a', 180],
      ['reserved_instance', 'i-b', 180],
      ['reserved_instance', 'i-db', 180],
    ]);
    // With every api instance reserved, its rightsizing has nothing left: it is dropped.
    expect(resolved.some((r) => r.kind === 'overprovisioned_service')).toBe(false);
  });

  it('takes out of a rightsizing the instances another recommendation counts, and keeps the rest', () => {
    const found = candidates();
    const resolved = resolveOverlaps({
      ...found,
      reserved: reservedInstanceOpportunities([steady('i-a', 'api')], { commitment_discount: 0.6 }),
    });
    expect(summary(resolved)).toEqual([
      ['idle_resource', 'i-idle', 300],
      ['overprovisioned_service', 'api', 150],
      ['reserved_instance', 'i-a', 180],
    ]);
    expect(resolved[1]!.evidence).toMatchObject({
      compute_cost: 300,
      resources: ['i-b'],
      left_out: [{ resource_id: 'i-a', kind: 'reserved_instance' }],
    });
  });

  it('never claims more than a resource costs net of its credits', () => {
    // i-db ran 10 a day on demand, but credits on it leave 50 over the 30 days.
    const resolved = resolveOverlaps({
      ...candidates(),
      resources: resources.map((r) => (r.resource_id === 'i-db' ? { ...r, compute_cost: 50 } : r)),
    });
    expect(resolved.find((r) => r.kind === 'reserved_instance')).toMatchObject({
      target: { resource_id: 'i-db' },
      estimated_monthly_saving: 50,
    });
  });
});
