import { describe, expect, it } from 'vitest';
import { refusalOf } from '../../server/src/http/errors';
import { DomainError } from '../../server/src/shared/domain-errors';
import {
  ANOMALY_DEFAULTS,
  detectAnomalies,
  flagAnomalies,
  parseAnomalyCriteria,
} from '../../server/src/cost/reports/anomalies';
import { usageBurnRate } from '../../server/src/cost/reports/burn-rate';
import { addDays, type DailyCost, dayNumber, monthRange, previousMonth } from '../../server/src/cost/reports/days';
import { projectPeriod } from '../../server/src/cost/reports/projection';
import { periodTrend } from '../../server/src/cost/reports/trend';

/** Consecutive days from `start`, one cost each. */
const series = (start: string, costs: number[]): DailyCost[] =>
  costs.map((cost, i) => ({ day: addDays(start, i), cost }));
const repeat = (cost: number, n: number): number[] => Array<number>(n).fill(cost);

describe('UTC days and calendar months', () => {
  it('knows month lengths, leap years included', () => {
    expect(monthRange('2024-02')).toEqual({ start: '2024-02-01', end: '2024-02-29' });
    expect(monthRange('2023-02')).toEqual({ start: '2023-02-01', end: '2023-02-28' });
    expect(monthRange('2024-12')).toEqual({ start: '2024-12-01', end: '2024-12-31' });
    expect(previousMonth('2024-01')).toBe('2023-12');
    expect(previousMonth('2024-03')).toBe('2024-02');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2023-12-31', 1)).toBe('2024-01-01');
  });

  it('rejects days and periods that do not exist', () => {
    expect(() => dayNumber('2023-02-29')).toThrow('not a UTC day');
    expect(() => dayNumber('2024-2-01')).toThrow('not a UTC day');
    expect(() => monthRange('2024-13')).toThrow('not a billing period');
  });
});

describe('usage burn rate: median of the last 7 complete days', () => {
  it('ignores one spike day and one dip day', () => {
    const usage = series('2024-03-04', [100, 1000, 100, 100, 100, 5, 100]);
    expect(usageBurnRate(usage, '2024-03-10')).toEqual({
      method: 'median_daily_usage',
      daily_rate: 100,
      window_days: 7,
      days: usage,
    });
  });

  it('takes fewer days when the history is shorter, the mean of the middle two for an even count', () => {
    expect(usageBurnRate(series('2024-03-07', [10, 20, 100, 30]), '2024-03-10').daily_rate).toBe(25);
  });

  it('counts a day without rows inside the history as 0, but not days before the history starts', () => {
    const usage = series('2024-03-08', [20, 40, 30]);
    expect(usageBurnRate(usage, '2024-03-10').daily_rate).toBe(30);
    // With data known since 2024-03-01, 03-04..03-07 really cost nothing: [0, 0, 0, 0, 20, 40, 30] → 0.
    const rate = usageBurnRate(usage, '2024-03-10', { history_start: '2024-03-01' });
    expect(rate.daily_rate).toBe(0);
    expect(rate.days.map((d) => d.cost)).toEqual([0, 0, 0, 0, 20, 40, 30]);
  });

  it('is 0 with no complete day', () => {
    expect(usageBurnRate([], '2024-03-10')).toEqual({
      method: 'median_daily_usage',
      daily_rate: 0,
      window_days: 7,
      days: [],
    });
    expect(usageBurnRate(series('2024-03-11', [50]), '2024-03-10').days).toEqual([]);
  });
});

describe('projection to the end of the period', () => {
  const march = monthRange('2024-03');

  it('adds complete days at cost, the median rate for the days left, and non-usage charges as posted', () => {
    // March 1-10 cost 100 a day except a 1000 spike on the 5th; today (the 11th) has 30 so far.
    const usage = series('2024-03-01', [100, 100, 100, 100, 1000, 100, 100, 100, 100, 100, 30]);
    const p = projectPeriod({ range: march, usage, non_usage_to_date: 250, today: '2024-03-11' });
    // 1900 so far + 100 × 21 days (11th..31st) + 250 (a 300 fee less a 50 credit).
    expect(p.projected).toBe(4250);
    expect(p.usage_to_date).toBe(1900);
    expect(p.non_usage_to_date).toBe(250);
    expect(p.basis).toMatchObject({
      method: 'median_daily_usage',
      daily_rate: 100,
      complete_through: '2024-03-10',
      complete_days: 10,
      remaining_days: 21,
      partial_usage_excluded: 30,
    });
    expect(p.basis.rate_days.map((d) => d.day)).toEqual([
      '2024-03-04',
      '2024-03-05',
      '2024-03-06',
      '2024-03-07',
      '2024-03-08',
      '2024-03-09',
      '2024-03-10',
    ]);
  });

  it('early in a month takes the rate from the last days of the previous one', () => {
    const usage = [...series('2024-02-25', [50, 50, 50, 50, 50]), ...series('2024-03-01', [60, 70, 10])];
    const p = projectPeriod({ range: march, usage, non_usage_to_date: 0, today: '2024-03-03' });
    // Rate: median(50, 50, 50, 50, 50, 60, 70) = 50. 130 so far + 50 × 29 days (3rd..31st).
    expect(p.basis.daily_rate).toBe(50);
    expect(p.usage_to_date).toBe(130);
    expect(p.projected).toBe(1580);
  });

  it('projects February to its 28th or 29th', () => {
    const feb23 = projectPeriod({
      range: monthRange('2023-02'),
      usage: series('2023-02-01', repeat(10, 14)),
      non_usage_to_date: 0,
      today: '2023-02-15',
    });
    expect(feb23.projected).toBe(280);
    expect(feb23.basis.remaining_days).toBe(14);
    const feb24 = projectPeriod({
      range: monthRange('2024-02'),
      usage: series('2024-02-01', repeat(10, 14)),
      non_usage_to_date: 0,
      today: '2024-02-15',
    });
    expect(feb24.projected).toBe(290);
  });

  it("counts a lagging export's last day at the rate when told it is not complete", () => {
    const usage = series('2024-03-01', [...repeat(100, 9), 40]);
    const p = projectPeriod({
      range: march,
      usage,
      non_usage_to_date: 0,
      today: '2024-03-11',
      complete_through: '2024-03-09',
    });
    // 9 × 100 + 100 × 22 days (10th..31st); the 40 of the 10th is partial.
    expect(p.projected).toBe(3100);
    expect(p.basis).toMatchObject({ complete_days: 9, remaining_days: 22, partial_usage_excluded: 40 });
    // A complete_through of today or later is capped at yesterday: today is never complete.
    expect(
      projectPeriod({ range: march, usage, non_usage_to_date: 0, today: '2024-03-11', complete_through: '2024-03-20' })
        .basis.complete_through,
    ).toBe('2024-03-10');
  });

  it('with no history projects only the charges posted', () => {
    const p = projectPeriod({ range: march, usage: [], non_usage_to_date: 120, today: '2024-03-01' });
    expect(p).toMatchObject({
      projected: 120,
      usage_to_date: 0,
      basis: { daily_rate: 0, complete_days: 0, remaining_days: 31, rate_days: [] },
    });
  });

  it('projects a closed period to its actual cost', () => {
    const usage = series('2024-03-01', repeat(10, 31));
    const p = projectPeriod({ range: march, usage, non_usage_to_date: -5, today: '2024-04-05' });
    expect(p).toMatchObject({
      projected: 305,
      usage_to_date: 310,
      basis: { remaining_days: 0, complete_days: 31, partial_usage_excluded: 0 },
    });
  });
});

describe('trend versus the same days of the previous period', () => {
  const feb = monthRange('2024-02');
  const march = monthRange('2024-03');
  const daily = [...series('2024-02-01', repeat(10, 29)), ...series('2024-03-01', repeat(12, 31))];

  it('compares the first N complete days of each period', () => {
    expect(periodTrend({ current: march, previous: feb, daily, complete_through: '2024-03-10' })).toEqual({
      days: 10,
      current: 120,
      previous: 100,
      change: 20,
      change_pct: 20,
      current_range: { start: '2024-03-01', end: '2024-03-10' },
      previous_range: { start: '2024-02-01', end: '2024-02-10' },
    });
  });

  it('clamps to a shorter previous month', () => {
    const t = periodTrend({ current: march, previous: feb, daily, complete_through: '2024-03-31' });
    expect(t).toMatchObject({
      days: 31,
      current: 372,
      previous: 290,
      change: 82,
      previous_range: { start: '2024-02-01', end: '2024-02-29' },
    });
    expect(t.change_pct).toBeCloseTo((82 / 290) * 100, 10);
    // complete_through past the period's end still compares whole periods.
    expect(periodTrend({ current: march, previous: feb, daily, complete_through: '2024-04-03' }).days).toBe(31);
  });

  it('has no percentage against a previous period without cost, and nothing before the first complete day', () => {
    const t = periodTrend({
      current: march,
      previous: feb,
      daily: series('2024-03-01', [5, 5]),
      complete_through: '2024-03-02',
    });
    expect(t).toMatchObject({ current: 10, previous: 0, change: 10, change_pct: null });
    expect(periodTrend({ current: march, previous: feb, daily, complete_through: '2024-02-29' })).toEqual({
      days: 0,
      current: 0,
      previous: 0,
      change: 0,
      change_pct: null,
      current_range: null,
      previous_range: null,
    });
  });

  it('reads a rise from a credit balance as a rise', () => {
    const t = periodTrend({
      current: march,
      previous: feb,
      daily: [
        { day: '2024-02-01', cost: -50 },
        { day: '2024-03-01', cost: 50 },
      ],
      complete_through: '2024-03-01',
    });
    expect(t).toMatchObject({ change: 100, change_pct: 200 });
  });
});

describe('anomaly flags', () => {
  it('flags a day more than 50 % and at least 10 above the mean of the 14 days before it', () => {
    const costs = [...repeat(100, 20), 160, 149];
    // 03-21: baseline 100 → excess 60 (60 %). 03-22: baseline (13 × 100 + 160) / 14 = 104.29; 149 is under 156.43.
    expect(flagAnomalies(series('2024-03-01', costs))).toEqual([
      { day: '2024-03-21', cost: 160, baseline: 100, excess: 60, excess_pct: 60 },
    ]);
  });

  it('needs strictly more than the percentage and at least the floor', () => {
    expect(flagAnomalies(series('2024-03-01', [...repeat(100, 14), 150]))).toEqual([]);
    expect(flagAnomalies(series('2024-03-01', [...repeat(10, 14), 20]))).toEqual([
      { day: '2024-03-15', cost: 20, baseline: 10, excess: 10, excess_pct: 100 },
    ]);
    expect(flagAnomalies(series('2024-03-01', [...repeat(10, 14), 19.99]))).toEqual([]);
  });

  it('judges a day only with 7 days of history, averaging what there is', () => {
    // 03-07 has 6 days before it: not judged. 03-08 has 7: baseline (6 × 1 + 1000) / 7.
    const flags = flagAnomalies(series('2024-03-01', [...repeat(1, 6), 1000, 1000]));
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({ day: '2024-03-08', cost: 1000 });
    expect(flags[0]!.baseline).toBeCloseTo(1006 / 7, 10);
  });

  it('counts missing days in the history as 0 and has no percentage over a 0 baseline', () => {
    expect(flagAnomalies([{ day: '2024-03-10', cost: 50 }], ANOMALY_DEFAULTS, { history_start: '2024-03-01' })).toEqual(
      [{ day: '2024-03-10', cost: 50, baseline: 0, excess: 50, excess_pct: null }],
    );
    // Without a history start the series starts on its first day: nothing to judge against.
    expect(flagAnomalies([{ day: '2024-03-10', cost: 50 }])).toEqual([]);
  });

  it('uses the criteria given and judges only from the given day', () => {
    const data = series('2024-03-01', [...repeat(100, 10), 130, 100, 100, 100, 100, 125]);
    expect(flagAnomalies(data, { trailing_days: 7, threshold_pct: 20, min_amount: 5 })).toEqual([
      { day: '2024-03-11', cost: 130, baseline: 100, excess: 30, excess_pct: 30 },
      // 03-16: baseline (130 + 6 × 100) / 7 = 104.29, excess 20.71 (19.9 %): under 20 %.
    ]);
    expect(flagAnomalies(data, { trailing_days: 7, threshold_pct: 20, min_amount: 5 }, { from: '2024-03-12' })).toEqual(
      [],
    );
  });

  it('judges each service and the total; a new service waits for its own history', () => {
    const rows = [
      ...series('2024-03-01', repeat(50, 20)).map((d) => ({ ...d, service: 'checkout' })),
      ...series('2024-03-01', [...repeat(20, 19), 45]).map((d) => ({ ...d, service: 'search' })),
      { service: 'batch', day: '2024-03-18', cost: 400 },
    ];
    const result = detectAnomalies(rows);
    expect(result.criteria).toEqual({ trailing_days: 14, threshold_pct: 50, min_amount: 10, min_history_days: 7 });
    // search 03-20: 45 against 20 (125 %, +25). batch on 03-18 has no history of its own.
    expect(result.by_service).toEqual([
      { service: 'search', day: '2024-03-20', cost: 45, baseline: 20, excess: 25, excess_pct: 125 },
    ]);
    // The total on 03-18: 70 + 400 = 470 against 70.
    expect(result.total).toHaveLength(1);
    expect(result.total[0]).toMatchObject({ day: '2024-03-18', cost: 470, baseline: 70, excess: 400 });
    expect(result.total[0]!.excess_pct).toBeCloseTo((400 / 70) * 100, 10);
  });

  it('reads the criteria from query parameters, naming a bad one', () => {
    expect(parseAnomalyCriteria({})).toEqual(ANOMALY_DEFAULTS);
    expect(parseAnomalyCriteria({ trailing_days: '21', threshold_pct: '25.5', min_amount: '0' })).toEqual({
      trailing_days: 21,
      threshold_pct: 25.5,
      min_amount: 0,
    });
    const bad = (query: Record<string, string>) => {
      try {
        parseAnomalyCriteria(query);
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        const e = refusalOf(err)!;
        expect(e.status).toBe(400);
        return [e.message, (e.details as { field: string }).field];
      }
      throw new Error('expected a 400');
    };
    expect(bad({ trailing_days: '6' })).toEqual([
      'trailing_days must be an integer from 7 to 90 (got "6")',
      'trailing_days',
    ]);
    expect(bad({ trailing_days: '7.5' })[1]).toBe('trailing_days');
    expect(bad({ threshold_pct: '-1' })).toEqual([
      'threshold_pct must be a number from 0 to 10000 (got "-1")',
      'threshold_pct',
    ]);
    expect(bad({ min_amount: '' })[1]).toBe('min_amount');
    expect(bad({ min_amount: 'ten' })[1]).toBe('min_amount');
  });
});
