import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { invalid } from '../../shared/domain-errors';
import { UNATTRIBUTED } from '../mapping/rules';
import { costRows, firstCostDay, round, splitCurrency, type CostRow } from '../store/costs';
import { detectAnomalies, parseAnomalyCriteria } from './anomalies';
import { chargeBreakdown, isUsage } from './breakdown';
import { addDays, type DailyCost, dayOf, type DayRange, minDay, monthRange, previousMonth } from './days';
import { projectPeriod } from './projection';
import { periodTrend } from './trend';

/** `period` values of the estimate: the calendar month (SPEC 4), or the ISO week (Monday to Sunday, UTC). */
export const ESTIMATE_PERIODS = ['monthly', 'weekly'] as const;
type EstimatePeriod = (typeof ESTIMATE_PERIODS)[number];

function ranges(period: EstimatePeriod, today: string): { current: DayRange; previous: DayRange } {
  if (period === 'monthly') {
    const month = today.slice(0, 7);
    return { current: monthRange(month), previous: monthRange(previousMonth(month)) };
  }
  const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7;
  const start = addDays(today, -weekday);
  return {
    current: { start, end: addDays(start, 6) },
    previous: { start: addDays(start, -7), end: addDays(start, -1) },
  };
}

const daily = (rows: readonly CostRow[]): DailyCost[] => rows.map((r) => ({ day: r.day, cost: r.effective }));
const within = (range: DayRange) => (r: CostRow) => r.day >= range.start && r.day <= range.end;

/** Projection and trend of one slice of the rows (the total, or one service). */
function outlook(rows: readonly CostRow[], current: DayRange, previous: DayRange, today: string, historyStart: string) {
  const inPeriod = within(current);
  const projection = projectPeriod({
    range: current,
    usage: daily(rows.filter(isUsage)),
    non_usage_to_date: rows.filter((r) => !isUsage(r) && inPeriod(r)).reduce((s, r) => s + r.effective, 0),
    today,
    history_start: historyStart,
  });
  const trend = periodTrend({
    current,
    previous,
    daily: daily(rows),
    complete_through: projection.basis.complete_through,
  });
  return {
    to_date: round(rows.filter((r) => inPeriod(r) && r.day <= today).reduce((s, r) => s + r.effective, 0)),
    projected: round(projection.projected),
    projection,
    trend: { ...trend, current: round(trend.current), previous: round(trend.previous), change: round(trend.change) },
  };
}

/**
 * `GET /control-plane/cost/estimate?period=monthly|weekly`: the period's projected cost from the usage burn rate
 * (reports/projection.ts), its trend against the same days of the previous period (reports/trend.ts), the same per
 * service, and anomaly flags (reports/anomalies.ts) of the total and each service over the period's days, judged on
 * usage cost (fees and credits are posted in lumps and would be flagged every month). Services are usage only; the
 * non-usage charges posted in the period are listed by charge type in `charges` (and counted in `projected` as posted).
 */
export async function estimate(db: Kysely<Database>, projectId: string, nowMs: number, query: Record<string, string>) {
  const period = (query.period ?? 'monthly') as EstimatePeriod;
  if (!ESTIMATE_PERIODS.includes(period))
    throw invalid(`period must be one of ${ESTIMATE_PERIODS.join(', ')}`, 'invalid_request', { field: 'period' });
  const criteria = parseAnomalyCriteria(query);
  const today = dayOf(nowMs);
  const { current, previous } = ranges(period, today);
  // Far enough back for the previous period, the burn-rate week and the anomaly baseline of the period's first day.
  const from = minDay(previous.start, minDay(addDays(current.start, -criteria.trailing_days), addDays(today, -8)));
  const split = splitCurrency(await costRows(db, projectId, { from, to: current.end }));
  const historyStart = (await firstCostDay(db, projectId)) ?? today;
  const total = outlook(split.rows, current, previous, today, historyStart);
  const usageRows = split.rows.filter(isUsage);
  const services = [...new Set(usageRows.map((r) => r.service ?? UNATTRIBUTED))].map((service) => {
    const slice = outlook(
      usageRows.filter((r) => (r.service ?? UNATTRIBUTED) === service),
      current,
      previous,
      today,
      historyStart,
    );
    return {
      service,
      to_date: slice.to_date,
      projected: slice.projected,
      daily_rate: round(slice.projection.basis.daily_rate),
      trend: slice.trend,
    };
  });
  services.sort((a, b) => b.projected - a.projected || a.service.localeCompare(b.service));
  const usage = usageRows.map((r) => ({ service: r.service ?? UNATTRIBUTED, day: r.day, cost: r.effective }));
  // Every day of the period so far, 0 where nothing was charged: the series a chart draws and the anomalies mark.
  const daily: DailyCost[] = [];
  for (let day = current.start; day <= minDay(today, current.end); day = addDays(day, 1)) daily.push({ day, cost: 0 });
  const dayIndex = new Map(daily.map((d, i) => [d.day, i]));
  for (const r of usage) {
    const i = dayIndex.get(r.day);
    if (i !== undefined) daily[i]!.cost += r.cost;
  }
  const anomalies = detectAnomalies(usage, criteria, { from: current.start, history_start: historyStart });
  return {
    period,
    range: current,
    currency: split.currency,
    to_date: total.to_date,
    projected: total.projected,
    basis: total.projection.basis,
    trend: total.trend,
    services,
    daily: daily.map((d) => ({ day: d.day, cost: round(d.cost) })),
    charges: chargeBreakdown(split.rows.filter(within(current))),
    anomalies,
    other_currencies: split.other_currencies,
  };
}
