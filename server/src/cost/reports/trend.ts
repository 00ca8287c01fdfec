import { addDays, type DailyCost, type Day, type DayRange, minDay, rangeLength, sumRange } from './days';

export interface TrendInput {
  /** The current period, e.g. `monthRange('2024-03')`. */
  current: DayRange;
  /** The period before it, e.g. `monthRange(previousMonth('2024-03'))`. */
  previous: DayRange;
  /** Cost per UTC day covering both periods (whatever the caller compares: the total, or one service). */
  daily: readonly DailyCost[];
  /** Last complete day (projection.ts): the current period's days after it are partial and left out. */
  complete_through: Day;
}

export interface Trend {
  /** Days compared: the complete days of the current period so far. */
  days: number;
  current: number;
  previous: number;
  /** current − previous. */
  change: number;
  /** change as a percentage of |previous|; null when previous is 0 (no base to compare with). */
  change_pct: number | null;
  /** The days summed on each side; null when no day is complete yet. */
  current_range: DayRange | null;
  previous_range: DayRange | null;
}

/**
 * Trend versus the previous period on equal footing: the cost of the first N days of this period against the first
 * N days of the previous one, N being the complete days so far (the month-to-date comparison Cost Explorer and most
 * FinOps tools show). Comparing a half month with a whole one would always show a drop. When the previous period is
 * shorter than N (31 days of March against February) it counts whole.
 */
export function periodTrend(input: TrendInput): Trend {
  const currentEnd = minDay(input.complete_through, input.current.end);
  const days = rangeLength({ start: input.current.start, end: currentEnd });
  if (days === 0)
    return { days: 0, current: 0, previous: 0, change: 0, change_pct: null, current_range: null, previous_range: null };
  const currentRange = { start: input.current.start, end: currentEnd };
  const previousRange = {
    start: input.previous.start,
    end: minDay(addDays(input.previous.start, days - 1), input.previous.end),
  };
  const current = sumRange(input.daily, currentRange);
  const previous = sumRange(input.daily, previousRange);
  const change = current - previous;
  return {
    days,
    current,
    previous,
    change,
    // |previous|: a period that ended in credit (negative) still reads as "up" when cost rose.
    change_pct: previous === 0 ? null : (change / Math.abs(previous)) * 100,
    current_range: currentRange,
    previous_range: previousRange,
  };
}
