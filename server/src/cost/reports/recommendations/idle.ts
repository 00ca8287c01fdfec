import { DEFAULT_LOOKBACK_DAYS, DEFAULT_MIN_MONTHLY_COST, monthlyCost, type Recommendation } from './recommendation';

/** A resource's compute cost over the lookback window. */
export interface ResourceComputeCost {
  resource_id: string;
  resource_name: string | null;
  /** The service the mapping attributes the resource to; null when unattributed. */
  service: string | null;
  /** Effective cost of the resource's `Compute` usage over the lookback, net of the credits and discounts billed on it. */
  compute_cost: number;
  currency: string;
}

export interface IdleOptions {
  /** Days the costs and span counts cover (default 30). */
  lookback_days?: number;
  /** Least compute cost per 30-day month worth flagging (default 20). */
  min_monthly_cost?: number;
  /** A service handling fewer requests than this per day on average is idle (default 10). */
  max_requests_per_day?: number;
}

export interface IdleEvidence {
  service: string;
  lookback_days: number;
  compute_cost: number;
  monthly_compute_cost: number;
  /** Server and client spans of the service over the lookback. */
  spans: number;
  requests_per_day: number;
  max_requests_per_day: number;
}

/**
 * Idle resources: a resource with notable compute cost (at least `min_monthly_cost` per 30-day month) attributed to a
 * monitored service that handled fewer than `max_requests_per_day` requests a day on average over the lookback
 * (requests: its server and client spans). Saving: the resource's whole compute cost per month, as an idle resource
 * can be stopped. Resources of services that send no telemetry are never judged: silence there says nothing.
 *
 * `spans` maps each monitored service (one that sent telemetry) to its server+client span count over the lookback,
 * 0 included.
 */
export function idleResources(
  resources: readonly ResourceComputeCost[],
  spans: ReadonlyMap<string, number>,
  options: IdleOptions = {},
): Recommendation<IdleEvidence>[] {
  const lookbackDays = options.lookback_days ?? DEFAULT_LOOKBACK_DAYS;
  const minMonthlyCost = options.min_monthly_cost ?? DEFAULT_MIN_MONTHLY_COST;
  const maxRequestsPerDay = options.max_requests_per_day ?? 10;
  const found: Recommendation<IdleEvidence>[] = [];
  for (const r of resources) {
    const { service } = r;
    const serviceSpans = service === null ? undefined : spans.get(service);
    if (service === null || serviceSpans === undefined) continue;
    const monthly = monthlyCost(r.compute_cost, lookbackDays);
    const requestsPerDay = serviceSpans / lookbackDays;
    if (monthly < minMonthlyCost || requestsPerDay >= maxRequestsPerDay) continue;
    found.push({
      kind: 'idle_resource',
      target: { type: 'resource', resource_id: r.resource_id, resource_name: r.resource_name, service },
      evidence: {
        service,
        lookback_days: lookbackDays,
        compute_cost: r.compute_cost,
        monthly_compute_cost: monthly,
        spans: serviceSpans,
        requests_per_day: requestsPerDay,
        max_requests_per_day: maxRequestsPerDay,
      },
      estimated_monthly_saving: monthly,
      currency: r.currency,
    });
  }
  return found;
}
