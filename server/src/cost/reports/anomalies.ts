import { parseNumberParam } from '../../shared/params';
import { costByDay, type DailyCost, type Day, dayNumber, fromDayNumber, historyStart, maxDay, minDay } from './days';

/** The thresholds a day is judged by; each is a query parameter of the estimate (parseAnomalyCriteria). */
export interface AnomalyCriteria {
  /** Days before the judged day whose mean is its baseline. */
  trailing_days: number;
  /** How far above the baseline, in percent of it, a day must be (strictly more). */
  threshold_pct: number;
  /** How far above the baseline, in currency units, a day must be at least: keeps cents-sized services quiet. */
  min_amount: number;
}

export const ANOMALY_DEFAULTS: Readonly<AnomalyCriteria> = { trailing_days: 14, threshold_pct: 50, min_amount: 10 };
/** Fewer days than this before a day and its mean says too little to call the day unusual. */
export const MIN_HISTORY_DAYS = 7;
const MAX_TRAILING_DAYS = 90;

export interface AnomalyScope {
  /** Judge only days from this one on (e.g. the period's start); earlier days still serve as baseline. */
  from?: Day;
  /** First day there is data for; days before it are unknown, not free. Default: the series' earliest day. */
  history_start?: Day;
}

export interface AnomalyFlag {
  day: Day;
  cost: number;
  /** Mean daily cost of the trailing days. */
  baseline: number;
  /** cost − baseline. */
  excess: number;
  /** excess as a percentage of |baseline|; null when the baseline is 0. */
  excess_pct: number | null;
}

/**
 * Flags the days of one series whose cost is unusually high: a day is flagged when its cost exceeds the mean of the
 * `trailing_days` days before it by MORE than `threshold_pct` percent AND by AT LEAST `min_amount` (defaults 14 days,
 * 50 %, 10 currency units). The percentage catches relative jumps, the floor ignores jumps too small to matter: an
 * absolute and a percentage impact joined by AND, as AWS Cost Anomaly Detection's alert thresholds are, and like its
 * TotalImpactPercentage, `excess_pct` is null when the baseline is 0. A day is judged only with at least 7 days of history
 * before it (fewer than `trailing_days` are averaged while the history is short). Days missing from the series within
 * its history cost 0; a day that costs 0 is never flagged. The baseline includes earlier flagged days, so a lasting
 * step up is flagged for its first days and then becomes the new normal.
 */
export function flagAnomalies(
  series: readonly DailyCost[],
  criteria: AnomalyCriteria = ANOMALY_DEFAULTS,
  scope: AnomalyScope = {},
): AnomalyFlag[] {
  const byDay = costByDay(series);
  const first = historyStart(byDay, scope.history_start);
  const from = scope.from !== undefined ? dayNumber(scope.from) : -Infinity;
  const flags: AnomalyFlag[] = [];
  for (const [n, cost] of [...byDay].sort(([a], [b]) => a - b)) {
    const windowStart = Math.max(first, n - criteria.trailing_days);
    const historyDays = n - windowStart;
    if (n < from || cost === 0 || historyDays < MIN_HISTORY_DAYS) continue;
    let sum = 0;
    for (let d = windowStart; d < n; d++) sum += byDay.get(d) ?? 0;
    const baseline = sum / historyDays;
    const excess = cost - baseline;
    if (excess > (Math.abs(baseline) * criteria.threshold_pct) / 100 && excess >= criteria.min_amount) {
      flags.push({
        day: fromDayNumber(n),
        cost,
        baseline,
        excess,
        excess_pct: baseline === 0 ? null : (excess / Math.abs(baseline)) * 100,
      });
    }
  }
  return flags;
}

export interface ServiceDailyCost {
  service: string;
  day: Day;
  cost: number;
}

export interface ServiceAnomalyFlag extends AnomalyFlag {
  service: string;
}

export interface Anomalies {
  criteria: AnomalyCriteria & { min_history_days: number };
  /** Flags of the total (all services summed per day). */
  total: AnomalyFlag[];
  /** Flags of each service, by service then day. */
  by_service: ServiceAnomalyFlag[];
}

/**
 * Anomaly flags for the total and for each service (`Unattributed` is a service here like any other). A service's
 * history starts at its first day with cost (or `history_start` when later), so a new service's first week is not
 * judged on its own; its cost counts in the total from day one, which is judged.
 */
export function detectAnomalies(
  rows: readonly ServiceDailyCost[],
  criteria: AnomalyCriteria = ANOMALY_DEFAULTS,
  scope: AnomalyScope = {},
): Anomalies {
  const services = new Map<string, DailyCost[]>();
  for (const { service, day, cost } of rows) {
    let series = services.get(service);
    if (!series) services.set(service, (series = []));
    series.push({ day, cost });
  }
  const byService: ServiceAnomalyFlag[] = [];
  for (const [service, series] of [...services].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const serviceScope = { from: scope.from, history_start: serviceHistoryStart(series, scope) };
    for (const flag of flagAnomalies(series, criteria, serviceScope)) byService.push({ service, ...flag });
  }
  return {
    criteria: { ...criteria, min_history_days: MIN_HISTORY_DAYS },
    total: flagAnomalies(rows, criteria, scope),
    by_service: byService,
  };
}

function serviceHistoryStart(series: readonly DailyCost[], scope: AnomalyScope): Day {
  const first = series.reduce((min, { day }) => minDay(min, day), series[0]!.day);
  return scope.history_start !== undefined ? maxDay(scope.history_start, first) : first;
}

/** Reads `trailing_days`, `threshold_pct` and `min_amount` query parameters over the defaults; 400 naming a bad one. */
export function parseAnomalyCriteria(query: Readonly<Record<string, string | undefined>>): AnomalyCriteria {
  const number = (field: keyof AnomalyCriteria, min: number, max: number, integer: boolean): number => {
    const raw = query[field];
    return raw === undefined ? ANOMALY_DEFAULTS[field] : parseNumberParam(raw, field, { min, max, integer });
  };
  return {
    trailing_days: number('trailing_days', MIN_HISTORY_DAYS, MAX_TRAILING_DAYS, true),
    threshold_pct: number('threshold_pct', 0, 10_000, false),
    min_amount: number('min_amount', 0, 1_000_000_000, false),
  };
}
