import { round } from '../../store/costs';

/**
 * What every savings recommendation looks like (SPEC 2.3, 8). Each kind is its own pure module (idle.ts,
 * overprovisioned.ts, reserved.ts) taking inputs the caller aggregated over a lookback window, and returning only
 * what qualifies, with the evidence it was judged on.
 */
export type RecommendationKind = 'idle_resource' | 'overprovisioned_service' | 'reserved_instance';

export type RecommendationTarget =
  | { type: 'resource'; resource_id: string; resource_name: string | null; service: string | null }
  | { type: 'service'; service: string };

export interface Recommendation<Evidence extends object = object> {
  kind: RecommendationKind;
  target: RecommendationTarget;
  evidence: Evidence;
  /** Per 30-day month, in `currency`. */
  estimated_monthly_saving: number;
  currency: string;
}

export const RECOMMENDATION_NOTE =
  'Recommendations are heuristic and advisory: estimated from the synced billing data and the telemetry this service ' +
  'ingests, not from provider pricing APIs. Nothing is changed in the cloud; review each one before acting.';

export const DEFAULT_LOOKBACK_DAYS = 30;
/** Below this monthly cost a recommendation saves too little to be worth a reader's time (every kind). */
export const DEFAULT_MIN_MONTHLY_COST = 20;

/** Cost over a lookback of `lookbackDays` days, scaled to a 30-day month. */
export const monthlyCost = (cost: number, lookbackDays: number): number => (cost * 30) / lookbackDays;

export interface RecommendationList {
  note: string;
  recommendations: Recommendation[];
  /** The sum of the savings: each resource is counted by one recommendation at most (overlaps.ts), so they add up. */
  total_estimated_monthly_saving: number;
}

/** A recommendation list as the API shows it: the advisory note, largest saving first, and the total. */
export function recommendationList(items: readonly Recommendation[]): RecommendationList {
  const total = items.reduce((sum, r) => sum + r.estimated_monthly_saving, 0);
  return {
    note: RECOMMENDATION_NOTE,
    recommendations: [...items].sort((a, b) => b.estimated_monthly_saving - a.estimated_monthly_saving),
    total_estimated_monthly_saving: round(total),
  };
}
