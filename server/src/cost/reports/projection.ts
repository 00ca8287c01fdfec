import { usageBurnRate } from './burn-rate';
import { addDays, type DailyCost, type Day, type DayRange, maxDay, minDay, rangeLength, sumRange } from './days';

export interface ProjectionInput {
  /** The calendar period to project to its end, e.g. `monthRange('2024-03')`. */
  range: DayRange;
  /** Usage-category cost per UTC day: the period so far, plus the days before it the burn-rate window may reach. */
  usage: readonly DailyCost[];
  /** Purchase, fee, tax, credit and adjustment cost posted in the period so far (credits negative). */
  non_usage_to_date: number;
  /** The current UTC day: never complete. */
  today: Day;
  /**
   * Last day whose cost is complete; default the day before `today`. Pass an earlier day when the export is known to
   * lag further (capped at the day before `today`).
   */
  complete_through?: Day;
  /** First day there is any data for (usageBurnRate); default the earliest day in `usage`. */
  history_start?: Day;
}

export interface Projection {
  /** Expected cost of the whole period. */
  projected: number;
  /** Usage cost of the complete days of the period. */
  usage_to_date: number;
  non_usage_to_date: number;
  basis: {
    method: 'median_daily_usage';
    description: string;
    daily_rate: number;
    /** Days the rate's median was taken over. */
    rate_days: DailyCost[];
    complete_through: Day;
    /** Complete days of the period counted at their actual cost. */
    complete_days: number;
    /** Days of the period counted at the rate: today and the rest of the period (and any day not yet complete). */
    remaining_days: number;
    /** Usage already recorded on the remaining days: partial, so replaced by the rate rather than added. */
    partial_usage_excluded: number;
  };
}

const DESCRIPTION =
  'usage cost of the complete days so far, plus the median daily usage cost of the last 7 complete days times the ' +
  'days left (today included), plus purchases, fees, tax and credits as posted (never extrapolated)';

/**
 * Projects a period's cost to its end from the usage burn rate (burn-rate.ts):
 *
 *   projected = usage of the complete days + daily_rate × remaining days + non-usage charges so far
 *
 * Only complete days count at their recorded cost: billing exports lag by hours to a day, so today's (and a lagging
 * export's yesterday's) usage is partial and would drag the total down; those days are counted at the rate instead.
 * Non-usage charges (reserved-instance and savings-plan fees, purchases, tax, credits) are lumps posted once or
 * monthly, so they are taken as posted and never extrapolated. A past period (complete through its end) projects to
 * its actual cost.
 */
export function projectPeriod(input: ProjectionInput): Projection {
  const { range } = input;
  const yesterday = addDays(input.today, -1);
  const completeThrough = input.complete_through !== undefined ? minDay(input.complete_through, yesterday) : yesterday;
  const completeRange = { start: range.start, end: minDay(completeThrough, range.end) };
  const remainingRange = { start: maxDay(addDays(completeThrough, 1), range.start), end: range.end };

  const rate = usageBurnRate(input.usage, completeThrough, { history_start: input.history_start });
  const usageToDate = sumRange(input.usage, completeRange);
  const remainingDays = rangeLength(remainingRange);
  return {
    projected: usageToDate + rate.daily_rate * remainingDays + input.non_usage_to_date,
    usage_to_date: usageToDate,
    non_usage_to_date: input.non_usage_to_date,
    basis: {
      method: rate.method,
      description: DESCRIPTION,
      daily_rate: rate.daily_rate,
      rate_days: rate.days,
      complete_through: completeThrough,
      complete_days: rangeLength(completeRange),
      remaining_days: remainingDays,
      partial_usage_excluded: sumRange(input.usage, remainingRange),
    },
  };
}
