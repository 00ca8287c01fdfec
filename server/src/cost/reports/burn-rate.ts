import { costByDay, type DailyCost, type Day, dayNumber, fromDayNumber, historyStart } from './days';
import { median } from './stats';

/** Complete days the burn rate looks back over: a week, so weekday/weekend cycles weigh as they do in a month. */
export const BURN_RATE_WINDOW_DAYS = 7;

export interface BurnRateOptions {
  /** Days to take the median over (default 7). */
  window_days?: number;
  /**
   * First day there is data for (e.g. the provider's first synced day); days before it are unknown rather than free.
   * Default: the earliest day in the series.
   */
  history_start?: Day;
}

export interface BurnRate {
  method: 'median_daily_usage';
  /** Usage cost per day going forward. */
  daily_rate: number;
  window_days: number;
  /** The complete days the median was taken over, oldest first; a day without cost is there with 0. */
  days: DailyCost[];
}

/**
 * Usage burn rate: the MEDIAN daily usage cost of the last `window_days` complete days up to `completeThrough`
 * (fewer when the history is shorter; none gives 0). A median, not a mean, so one spike day (a batch job, a runaway
 * deploy) or one dip (an outage, a day the export has not filled in yet) does not move the projection; a lasting
 * change moves it once it covers half the window. The window may reach into the previous month: early in a month,
 * last month's last days say more than one or two days of this one.
 *
 * `usage` holds Usage-category cost only: purchases, fees, tax and credits are lumps that do not recur daily.
 */
export function usageBurnRate(
  usage: readonly DailyCost[],
  completeThrough: Day,
  options: BurnRateOptions = {},
): BurnRate {
  const windowDays = options.window_days ?? BURN_RATE_WINDOW_DAYS;
  const byDay = costByDay(usage);
  const last = dayNumber(completeThrough);
  const days: DailyCost[] = [];
  for (let n = Math.max(historyStart(byDay, options.history_start), last - windowDays + 1); n <= last; n++) {
    days.push({ day: fromDayNumber(n), cost: byDay.get(n) ?? 0 });
  }
  return { method: 'median_daily_usage', daily_rate: median(days.map((d) => d.cost)), window_days: windowDays, days };
}
