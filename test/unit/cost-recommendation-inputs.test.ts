/**
 * What the recommendations judge, from rows as the cost store reads them (server/src/cost/reports/recommendations/
 * inputs.ts). The store's queries and the recommendations over HTTP: test/integration/cost-api and
 * cost-recommendation-overlaps.
 */
import { describe, expect, it } from 'vitest';
import {
  appIdsByName,
  groupComputeCost,
  monitoredServiceSpans,
  serviceUtilization,
  type ComputeCostRow,
} from '../../server/src/cost/reports/recommendations/inputs';

const row = (over: Partial<ComputeCostRow>): ComputeCostRow => ({
  resource_key: 'key-1',
  resource_id: 'i-1',
  resource_name: 'web-1',
  service: 'Checkout',
  day: '2024-03-01',
  charge_category: 'Usage',
  pricing_category: 'Standard',
  currency: 'USD',
  effective: 10,
  ...over,
});

describe('groupComputeCost', () => {
  it('nets credits into the resource and its service, and keeps only on-demand usage per day', () => {
    const grouped = groupComputeCost([
      row({}),
      row({ day: '2024-03-02', effective: 12 }),
      row({ day: '2024-03-02', charge_category: 'Credit', pricing_category: '', effective: -2 }),
      row({ day: '2024-03-03', pricing_category: 'Committed', effective: 5 }),
      row({ resource_id: null, resource_key: 'key-2', service: null, effective: 3 }),
    ]);
    expect(grouped.resources).toEqual([
      { resource_id: 'i-1', resource_name: 'web-1', service: 'Checkout', currency: 'USD', compute_cost: 25 },
      { resource_id: 'key-2', resource_name: 'web-1', service: null, currency: 'USD', compute_cost: 3 },
    ]);
    expect(grouped.onDemand.map((r) => [r.resource_id, r.daily])).toEqual([
      [
        'i-1',
        [
          { day: '2024-03-01', cost: 10 },
          { day: '2024-03-02', cost: 12 },
        ],
      ],
      ['key-2', [{ day: '2024-03-01', cost: 3 }]],
    ]);
    expect([...grouped.byService]).toEqual([['Checkout', 25]]);
  });
});

describe('services meet apps', () => {
  const appOf = appIdsByName([
    { id: 'a1', name: 'checkout', aliases: ['Checkout-API'] },
    { id: 'a2', name: 'search', aliases: [] },
  ]);

  it('by name or alias, whatever the case', () => {
    expect([...appOf]).toEqual([
      ['checkout', 'a1'],
      ['checkout-api', 'a1'],
      ['search', 'a2'],
    ]);
  });

  it('counts spans of monitored apps only, 0 for one silent in the window', () => {
    const spans = monitoredServiceSpans(
      ['Checkout', 'Search', 'Billing'],
      appOf,
      new Set(['a1', 'a2']),
      new Map([['a1', 40]]),
    );
    expect([...spans]).toEqual([
      ['Checkout', 40],
      ['Search', 0],
    ]);
    expect(monitoredServiceSpans(['Search'], appOf, new Set(['a1']), new Map()).size).toBe(0);
  });

  it('pairs a service cost with its app utilization, leaving out services whose app reported none', () => {
    const cpu = { metric: 'process.cpu.utilization', days: [{ day: '2024-03-01', p95: 0.1 }] };
    const utilization = serviceUtilization(
      new Map([
        ['CHECKOUT-api', 25],
        ['Search', 4],
        ['Billing', 9],
      ]),
      appOf,
      new Map([['a1', { cpu }]]),
      'USD',
    );
    expect(utilization).toEqual([
      { service: 'CHECKOUT-api', compute_cost: 25, currency: 'USD', cpu, memory: undefined },
    ]);
  });
});
