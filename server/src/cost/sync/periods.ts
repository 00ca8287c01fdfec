import type { BillingPeriod } from '../model';
import { previousMonth } from '../reports/days';

/** Days after a month closes during which its late adjustments (credits, refunds, RI true-ups) are read again. */
export const LATE_ADJUSTMENT_DAYS = 14;

export const periodOf = (ms: number): BillingPeriod => new Date(ms).toISOString().slice(0, 7);

/**
 * What a sync reads: the month to date, and the previous month while it may still change (the first
 * {@link LATE_ADJUSTMENT_DAYS} days after it closes) or when nothing was ever read, so trends and anomaly baselines
 * have a previous period to compare with from the first day.
 */
export function periodsToSync(nowMs: number, everSucceeded: boolean): BillingPeriod[] {
  const current = periodOf(nowMs);
  const dayOfMonth = new Date(nowMs).getUTCDate();
  const previous = previousMonth(current);
  return everSucceeded && dayOfMonth > LATE_ADJUSTMENT_DAYS ? [current] : [previous, current];
}
