import type { Services } from '../http/env';
import { routePattern } from '../shared/route-pattern';
import { iso } from '../shared/time';
import { MAX_VITAL_POINTS, vitalPoints, type VitalScope } from './store';
import { summarizeVitals, THRESHOLDS, UNKNOWN_ROUTE, VITAL_OF_METRIC, type Bucket, type VitalPoint } from './summary';

/** The summary of the vital points in scope, bucketed, for every page or the one `route` names. */
export async function vitalsReport(
  { db }: Pick<Services, 'db'>,
  scope: VitalScope,
  bucket: Bucket,
  route: string | undefined,
) {
  const rows = await vitalPoints(db, scope);
  // Pages repeat: each distinct path is turned into its pattern once.
  const patterns = new Map<string, string>();
  const patternOf = (path: string) => patterns.get(path) ?? patterns.set(path, routePattern(path)).get(path)!;
  const points: VitalPoint[] = rows.slice(0, MAX_VITAL_POINTS).map((r) => ({
    vital: VITAL_OF_METRIC.get(r.name)!,
    value: r.value!,
    timeMs: Number(r.time_ms),
    route: typeof r.path === 'string' && r.path !== '' ? patternOf(r.path) : UNKNOWN_ROUTE,
  }));
  const chosen = route === undefined || route === UNKNOWN_ROUTE ? route : routePattern(route);
  return {
    window: { from: iso(scope.from), to: iso(scope.to) },
    bucket,
    route: chosen ?? null,
    truncated: rows.length > MAX_VITAL_POINTS,
    thresholds: THRESHOLDS,
    ...summarizeVitals(points, bucket, chosen),
  };
}
