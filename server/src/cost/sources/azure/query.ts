import type { BillingPeriod } from '../../model';
import { groupsByResource, type ScopeKind } from './scope';

/** Cost Management's two views of the same charges: as invoiced, and with reservation/savings plan purchases spread. */
export type CostType = 'ActualCost' | 'AmortizedCost';

/**
 * The Query API request body (learn.microsoft.com/rest/api/cost-management/query/usage), plus `dataset.include`, which
 * the service accepts and answers with a `Tags` column but the REST spec omits (Azure/azure-rest-api-specs#29719), so the
 * generated SDK models drop it.
 */
export interface CostQueryBody {
  type: CostType;
  timeframe: 'Custom';
  timePeriod: { from: string; to: string };
  dataset: {
    granularity: 'Daily';
    aggregation: { totalCost: { name: 'Cost'; function: 'Sum' } };
    grouping: { type: 'Dimension'; name: Dimension }[];
    include: ['Tags'];
  };
}

export type Dimension =
  | 'ResourceId'
  | 'SubscriptionId'
  | 'ServiceName'
  | 'ResourceLocation'
  | 'ChargeType'
  | 'PricingModel';

/**
 * What a line item needs, as Query API dimensions. The REST spec says a query may group by two; the service takes more
 * (the spec's limit is what SDK validators enforced, Azure/azure-sdk-for-python#12973), and the same rows grouped two
 * dimensions at a time could not be joined back into line items. `ResourceId` is only accepted at subscription scope and
 * below.
 */
export function dimensionsFor(kind: ScopeKind): Dimension[] {
  const common: Dimension[] = ['SubscriptionId', 'ServiceName', 'ResourceLocation', 'ChargeType', 'PricingModel'];
  return groupsByResource(kind) ? ['ResourceId', ...common] : common;
}

/**
 * Daily cost of one calendar month grouped by `dimensions`. Query ranges are inclusive, so the month ends at its last
 * second; Cost Management clamps a range that runs past today.
 */
export function costQuery(type: CostType, period: BillingPeriod, dimensions: Dimension[]): CostQueryBody {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return {
    type,
    timeframe: 'Custom',
    timePeriod: { from: `${period}-01T00:00:00Z`, to: `${period}-${String(lastDay).padStart(2, '0')}T23:59:59Z` },
    dataset: {
      granularity: 'Daily',
      aggregation: { totalCost: { name: 'Cost', function: 'Sum' } },
      grouping: dimensions.map((name) => ({ type: 'Dimension', name })),
      include: ['Tags'],
    },
  };
}
