/**
 * Web Vitals figures from the SDK's vital points: the 75th percentile per page and over time, rated with web.dev's
 * thresholds (https://web.dev/articles/vitals), and how many points fell in each rating.
 */

export const VITAL_NAMES = ['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const;
export type VitalName = (typeof VITAL_NAMES)[number];
export type Rating = 'good' | 'needs_improvement' | 'poor';

interface Vital {
  /** The metric name the SDK records it under (src/signals/vitals.ts). */
  metric: string;
  /** Good up to and including this value; poor above `poor`. */
  good: number;
  poor: number;
  unit: 'ms' | '';
}

export const VITALS: Record<VitalName, Vital> = {
  LCP: { metric: 'web_vital_lcp_ms', good: 2500, poor: 4000, unit: 'ms' },
  INP: { metric: 'web_vital_inp_ms', good: 200, poor: 500, unit: 'ms' },
  CLS: { metric: 'web_vital_cls', good: 0.1, poor: 0.25, unit: '' },
  FCP: { metric: 'web_vital_fcp_ms', good: 1800, poor: 3000, unit: 'ms' },
  TTFB: { metric: 'web_vital_ttfb_ms', good: 800, poor: 1800, unit: 'ms' },
};

export const VITAL_OF_METRIC = new Map(VITAL_NAMES.map((name) => [VITALS[name].metric, name]));

/** The route of points that name no page (sent before the SDK added `url.path`, or by another producer). */
export const UNKNOWN_ROUTE = '(unknown)';
/** Most pages an answer lists. */
export const MAX_PAGES = 100;

export type Bucket = 'hour' | 'day';
export const BUCKET_MS: Record<Bucket, number> = { hour: 3_600_000, day: 86_400_000 };

export interface VitalPoint {
  vital: VitalName;
  value: number;
  timeMs: number;
  route: string;
}

export function rate(vital: VitalName, value: number): Rating {
  const { good, poor } = VITALS[vital];
  return value <= good ? 'good' : value > poor ? 'poor' : 'needs_improvement';
}

/**
 * The `percent`th percentile (an integer, 1 to 100) by nearest rank: the smallest value at least `percent` % of the
 * values are at or below. Alert rules compute theirs with it too, so a rule's p75 is the page's.
 */
export function nearestRank(values: ArrayLike<number>, percent: number): number | null {
  if (values.length === 0) return null;
  // A typed array sorts numerically without a comparator: about ten times faster on the 200,000 points a summary reads.
  const sorted = Float64Array.from(values).sort();
  // The rank in integer arithmetic: a fraction times the count could land a hair above a whole rank (0.07 * 100).
  return sorted[Math.ceil((percent * sorted.length) / 100) - 1]!;
}

/** The 75th percentile by nearest rank. */
export const p75 = (values: number[]): number | null => nearestRank(values, 75);

export type PerVital<T> = Record<VitalName, T>;
/** One value per vital, in {@link VITAL_NAMES} order. */
export const perVital = <T>(make: (name: VitalName) => T): PerVital<T> =>
  Object.fromEntries(VITAL_NAMES.map((n) => [n, make(n)])) as PerVital<T>;

/** The thresholds as the API states them. */
export const THRESHOLDS = perVital((n) => {
  const { good, poor, unit } = VITALS[n];
  return { good, poor, unit };
});

/** Values of each vital. */
function valuesByVital(points: readonly VitalPoint[]): PerVital<number[]> {
  const values = perVital<number[]>(() => []);
  for (const p of points) values[p.vital].push(p.value);
  return values;
}

/** Appends `item` to the list under `key`. */
function push<K, V>(lists: Map<K, V[]>, key: K, item: V): void {
  const list = lists.get(key);
  if (list) list.push(item);
  else lists.set(key, [item]);
}

/** Sample count, p75 and rating of each vital over `points`. */
function figures(points: readonly VitalPoint[]) {
  const values = valuesByVital(points);
  const percentiles = perVital((n) => p75(values[n]));
  return {
    samples: points.length,
    p75: percentiles,
    rating: perVital((n) => {
      const value = percentiles[n];
      return value === null ? null : rate(n, value);
    }),
  };
}

function series(points: readonly VitalPoint[], bucket: Bucket) {
  return perVital((name) => {
    const buckets = new Map<number, number[]>();
    for (const p of points) {
      if (p.vital !== name) continue;
      const t = Math.floor(p.timeMs / BUCKET_MS[bucket]) * BUCKET_MS[bucket];
      push(buckets, t, p.value);
    }
    return [...buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([t, values]) => ({ t: new Date(t).toISOString(), p75: p75(values)!, samples: values.length }));
  });
}

function distribution(points: readonly VitalPoint[]) {
  const counts = perVital<Record<Rating, number>>(() => ({ good: 0, needs_improvement: 0, poor: 0 }));
  for (const p of points) counts[p.vital][rate(p.vital, p.value)] += 1;
  return counts;
}

/**
 * Pages (every route, most samples first, at most {@link MAX_PAGES}) from all points; the figures over the whole
 * window, the series (buckets with points only, oldest first) and the distribution from the points of `route` when
 * given, else all.
 */
export function summarizeVitals(points: readonly VitalPoint[], bucket: Bucket, route: string | undefined) {
  const byRoute = new Map<string, VitalPoint[]>();
  for (const p of points) push(byRoute, p.route, p);
  const pages = [...byRoute.entries()]
    .sort(([ra, a], [rb, b]) => b.length - a.length || (ra < rb ? -1 : ra > rb ? 1 : 0))
    .slice(0, MAX_PAGES)
    .map(([r, ps]) => ({ route: r, ...figures(ps) }));
  const chosen = route === undefined ? points : (byRoute.get(route) ?? []);
  return { pages, overall: figures(chosen), series: series(chosen, bucket), distribution: distribution(chosen) };
}
