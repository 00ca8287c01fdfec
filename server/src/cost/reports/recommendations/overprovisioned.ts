import type { Day } from '../days';
import { DEFAULT_LOOKBACK_DAYS, DEFAULT_MIN_MONTHLY_COST, monthlyCost, type Recommendation } from './recommendation';

/** One utilization gauge of a service: its 95th percentile per UTC day, for the days that had samples. */
export interface UtilizationSeries {
  /** The metric the values come from, e.g. `container.cpu.utilization`; shown as evidence. */
  metric: string;
  /** Fractions of capacity, 0–1. */
  days: readonly { day: Day; p95: number }[];
}

export interface ServiceUtilization {
  service: string;
  /** Effective cost of the service's `Compute` line items over the lookback. */
  compute_cost: number;
  currency: string;
  cpu?: UtilizationSeries;
  memory?: UtilizationSeries;
}

export interface OverprovisionedOptions {
  /** Days the costs and utilization cover (default 30). */
  lookback_days?: number;
  /** Utilization under which a day counts as low (default 0.20, SPEC 8). */
  threshold?: number;
  /** Least number of days with samples for "consistently" (default 7). */
  min_days?: number;
  /** Least compute cost per 30-day month worth flagging (default 20). */
  min_monthly_cost?: number;
}

export interface UtilizationEvidence {
  metric: string;
  /** Days with samples. */
  days: number;
  max_daily_p95: number;
  /** Whether every day's p95 was under the threshold, over at least `min_days` days. */
  consistently_low: boolean;
}

export interface OverprovisionedEvidence {
  threshold: number;
  min_days: number;
  lookback_days: number;
  compute_cost: number;
  monthly_compute_cost: number;
  /** Both gauges when known, so a reader sees whether the other one leaves room to downsize. */
  cpu: UtilizationEvidence | null;
  memory: UtilizationEvidence | null;
}

/** Share of a compute cost that one instance size down saves (see overprovisionedServices). */
export const RIGHTSIZING_SAVING = 0.5;

/**
 * Overprovisioned services (SPEC 8: CPU or memory utilization consistently below 20 %): a service whose CPU OR memory
 * utilization had a daily p95 under `threshold` on EVERY day with samples, with at least `min_days` such days. The p95
 * rather than the mean, so a service busy at peak hours is not called oversized for its quiet nights. Saving: half the
 * service's compute cost per month: one instance size down halves the price across the major instance families
 * (AWS m/c/r sizes, GCP and Azure standard series), a documented rule of thumb, not a pricing lookup.
 */
export function overprovisionedServices(
  services: readonly ServiceUtilization[],
  options: OverprovisionedOptions = {},
): Recommendation<OverprovisionedEvidence>[] {
  const lookbackDays = options.lookback_days ?? DEFAULT_LOOKBACK_DAYS;
  const threshold = options.threshold ?? 0.2;
  const minDays = options.min_days ?? 7;
  const minMonthlyCost = options.min_monthly_cost ?? DEFAULT_MIN_MONTHLY_COST;
  const judge = (series: UtilizationSeries | undefined): UtilizationEvidence | null => {
    if (!series || series.days.length === 0) return null;
    const max = Math.max(...series.days.map((d) => d.p95));
    const days = new Set(series.days.map((d) => d.day)).size;
    return { metric: series.metric, days, max_daily_p95: max, consistently_low: days >= minDays && max < threshold };
  };
  const found: Recommendation<OverprovisionedEvidence>[] = [];
  for (const s of services) {
    const cpu = judge(s.cpu);
    const memory = judge(s.memory);
    const monthly = monthlyCost(s.compute_cost, lookbackDays);
    if (!(cpu?.consistently_low || memory?.consistently_low) || monthly < minMonthlyCost) continue;
    found.push({
      kind: 'overprovisioned_service',
      target: { type: 'service', service: s.service },
      evidence: {
        threshold,
        min_days: minDays,
        lookback_days: lookbackDays,
        compute_cost: s.compute_cost,
        monthly_compute_cost: monthly,
        cpu,
        memory,
      },
      estimated_monthly_saving: monthly * RIGHTSIZING_SAVING,
      currency: s.currency,
    });
  }
  return found;
}
