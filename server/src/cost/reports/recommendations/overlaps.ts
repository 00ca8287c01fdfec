import type { IdleEvidence, ResourceComputeCost } from './idle';
import { RIGHTSIZING_SAVING, type OverprovisionedEvidence } from './overprovisioned';
import {
  DEFAULT_LOOKBACK_DAYS,
  DEFAULT_MIN_MONTHLY_COST,
  monthlyCost,
  type Recommendation,
  type RecommendationKind,
} from './recommendation';
import type { ReservedEvidence } from './reserved';

/** What each kind found on its own, and the resources' compute cost they were judged on, over one lookback. */
export interface RecommendationCandidates {
  idle: readonly Recommendation<IdleEvidence>[];
  overprovisioned: readonly Recommendation<OverprovisionedEvidence>[];
  reserved: readonly Recommendation<ReservedEvidence>[];
  resources: readonly ResourceComputeCost[];
  /** Default 30, as the kinds'. */
  lookback_days?: number;
  /** Default 20, as the kinds'. */
  min_monthly_cost?: number;
}

/** A rightsizing once its service's resources that another recommendation counts are taken out of it. */
export interface RightsizingEvidence extends OverprovisionedEvidence {
  /** The resources whose compute cost the saving is half of. */
  resources: string[];
  /** The service's resources another recommendation counts (stopping an idle one, or a reservation that saves more). */
  left_out: { resource_id: string; kind: RecommendationKind }[];
}

const resourceOf = (r: Recommendation): string => (r.target.type === 'resource' ? r.target.resource_id : '');

/**
 * One recommendation per resource, so that no resource's saving is claimed twice and the savings add up, as AWS Cost
 * Optimization Hub de-duplicates overlapping recommendations:
 *
 * 1. An idle resource is to be stopped: it is no reservation candidate, and no part of its service's rightsizing.
 * 2. Each other resource of an overprovisioned service gets the rightsizing or its reservation, whichever saves more
 *    (the two are not added: the reservation was priced for the size the rightsizing gives up). A rightsizing left
 *    with less than `min_monthly_cost` of compute a month is dropped, as it would not have been made.
 * 3. No saving exceeds what its resources cost a month (the compute cost net of their credits and discounts).
 */
export function resolveOverlaps(c: RecommendationCandidates): Recommendation[] {
  const lookbackDays = c.lookback_days ?? DEFAULT_LOOKBACK_DAYS;
  const minMonthlyCost = c.min_monthly_cost ?? DEFAULT_MIN_MONTHLY_COST;
  const monthlyOf = new Map(c.resources.map((r) => [r.resource_id, monthlyCost(r.compute_cost, lookbackDays)]));
  const idle = new Set(c.idle.map(resourceOf));
  const reserved = new Map(c.reserved.filter((r) => !idle.has(resourceOf(r))).map((r) => [resourceOf(r), r]));

  const rightsizings: Recommendation<RightsizingEvidence>[] = [];
  for (const rec of c.overprovisioned) {
    if (rec.target.type !== 'service') continue;
    const { service } = rec.target;
    const covered: ResourceComputeCost[] = [];
    const leftOut: RightsizingEvidence['left_out'] = [];
    for (const r of c.resources.filter((resource) => resource.service === service)) {
      const reservation = reserved.get(r.resource_id);
      const rightsizing = (monthlyOf.get(r.resource_id) ?? 0) * RIGHTSIZING_SAVING;
      if (idle.has(r.resource_id)) leftOut.push({ resource_id: r.resource_id, kind: 'idle_resource' });
      else if (reservation && reservation.estimated_monthly_saving > rightsizing)
        leftOut.push({ resource_id: r.resource_id, kind: 'reserved_instance' });
      else covered.push(r);
    }
    const computeCost = covered.reduce((sum, r) => sum + r.compute_cost, 0);
    const monthly = monthlyCost(computeCost, lookbackDays);
    if (covered.length === 0 || monthly < minMonthlyCost) continue;
    // The rightsizing saves more on these: their reservations go.
    for (const r of covered) reserved.delete(r.resource_id);
    rightsizings.push({
      ...rec,
      evidence: {
        ...rec.evidence,
        compute_cost: computeCost,
        monthly_compute_cost: monthly,
        resources: covered.map((r) => r.resource_id),
        left_out: leftOut,
      },
      estimated_monthly_saving: monthly * RIGHTSIZING_SAVING,
    });
  }

  const capped = (r: Recommendation): Recommendation => {
    const cost = monthlyOf.get(resourceOf(r));
    return cost !== undefined && r.estimated_monthly_saving > cost ? { ...r, estimated_monthly_saving: cost } : r;
  };
  // A resource whose credits leave nothing to save has no recommendation.
  return [...c.idle.map(capped), ...rightsizings, ...[...reserved.values()].map(capped)].filter(
    (r) => r.estimated_monthly_saving > 0,
  );
}
