import { costByDay, type DailyCost } from '../days';
import { coefficientOfVariation, mean } from '../stats';
import { DEFAULT_LOOKBACK_DAYS, DEFAULT_MIN_MONTHLY_COST, monthlyCost, type Recommendation } from './recommendation';

export interface OnDemandCompute {
  resource_id: string;
  resource_name: string | null;
  service: string | null;
  currency: string;
  /** The resource's on-demand (pricing category `Standard`) `Compute` usage cost per UTC day over the lookback. */
  daily: readonly DailyCost[];
}

export interface ReservedOptions {
  /** Days the daily costs cover (default 30). */
  lookback_days?: number;
  /** Least share of the lookback days with on-demand usage (default 0.9). */
  min_coverage?: number;
  /** Most coefficient of variation of the daily cost on those days (default 0.25). */
  max_cv?: number;
  /** Assumed saving of a commitment over on-demand (default 0.30). */
  commitment_discount?: number;
  /** Least on-demand cost per 30-day month worth flagging (default 20). */
  min_monthly_cost?: number;
}

export interface ReservedEvidence {
  lookback_days: number;
  days_with_usage: number;
  coverage: number;
  mean_daily_cost: number;
  /** Coefficient of variation (population standard deviation / mean) of the daily cost on the days with usage. */
  cv: number;
  on_demand_cost: number;
  monthly_on_demand_cost: number;
  commitment_discount: number;
}

/**
 * Reserved-instance (commitment) opportunities: a resource running on demand nearly every day (`min_coverage` of the
 * lookback days) at a steady cost (coefficient of variation of its daily cost, over the days it ran, at most
 * `max_cv`) would cost less under a reservation or savings plan. Saving: its on-demand cost per 30-day month times
 * `commitment_discount`, 0.30 by default: a conservative 1-year, no-upfront rate (such commitments on the common
 * instance families save roughly 25–40 %, compute savings plans at the low end, standard reserved instances at the
 * high end); a heuristic, not a pricing API lookup.
 */
export function reservedInstanceOpportunities(
  resources: readonly OnDemandCompute[],
  options: ReservedOptions = {},
): Recommendation<ReservedEvidence>[] {
  const lookbackDays = options.lookback_days ?? DEFAULT_LOOKBACK_DAYS;
  const minCoverage = options.min_coverage ?? 0.9;
  const maxCv = options.max_cv ?? 0.25;
  const discount = options.commitment_discount ?? 0.3;
  const minMonthlyCost = options.min_monthly_cost ?? DEFAULT_MIN_MONTHLY_COST;
  const found: Recommendation<ReservedEvidence>[] = [];
  for (const r of resources) {
    const costs = [...costByDay(r.daily).values()].filter((c) => c > 0);
    const coverage = costs.length / lookbackDays;
    const cv = coefficientOfVariation(costs);
    const onDemand = costs.reduce((a, b) => a + b, 0);
    const monthly = monthlyCost(onDemand, lookbackDays);
    if (coverage < minCoverage || cv > maxCv || monthly < minMonthlyCost) continue;
    found.push({
      kind: 'reserved_instance',
      target: { type: 'resource', resource_id: r.resource_id, resource_name: r.resource_name, service: r.service },
      evidence: {
        lookback_days: lookbackDays,
        days_with_usage: costs.length,
        coverage,
        mean_daily_cost: mean(costs),
        cv,
        on_demand_cost: onDemand,
        monthly_on_demand_cost: monthly,
        commitment_discount: discount,
      },
      estimated_monthly_saving: monthly * discount,
      currency: r.currency,
    });
  }
  return found;
}
