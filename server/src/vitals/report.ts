import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Services } from '../http/env';
import { routePattern } from '../shared/route-pattern';
import { iso } from '../shared/time';
import { RELATIVE_ERROR } from './rollup/histogram';
import { planWindow, type WindowPlan } from './rollup/plan';
import { marksOf, rollupsIn } from './rollup/store';
import { MAX_VITAL_POINTS, vitalPoints, type VitalScope } from './store';
import {
  summarizeVitals,
  THRESHOLDS,
  UNKNOWN_ROUTE,
  VITAL_OF_METRIC,
  type Bucket,
  type RolledPart,
  type VitalPoint,
} from './summary';

/**
 * The summary of the vital points in scope, bucketed, for every page or the one `route` names: whole days and hours
 * already rolled up from their rollup rows (vitals/rollup/), the rest from the points.
 */
export async function vitalsReport(
  { db }: Pick<Services, 'db'>,
  scope: VitalScope,
  bucket: Bucket,
  route: string | undefined,
) {
  const plan = planWindow(scope.from, scope.to, bucket, await marksOf(db, scope.projectId));
  const rows = plan.raw.length === 0 ? [] : await vitalPoints(db, scope, plan.raw);
  // Pages repeat: each distinct path is turned into its pattern once.
  const patterns = new Map<string, string>();
  const patternOf = (path: string) => patterns.get(path) ?? patterns.set(path, routePattern(path)).get(path)!;
  const points: VitalPoint[] = rows.slice(0, MAX_VITAL_POINTS).map((r) => ({
    vital: VITAL_OF_METRIC.get(r.name)!,
    value: r.value!,
    timeMs: Number(r.time_ms),
    route: typeof r.path === 'string' && r.path !== '' ? patternOf(r.path) : UNKNOWN_ROUTE,
  }));
  const rolled = await rolledParts(db, scope, plan);
  const chosen = route === undefined || route === UNKNOWN_ROUTE ? route : routePattern(route);
  const rolledSamples = rolled.reduce((sum, r) => sum + r.good + r.needs_improvement + r.poor, 0);
  const share = rolledSamples === 0 ? 0 : rolledSamples / (rolledSamples + points.length);
  return {
    window: { from: iso(scope.from), to: iso(scope.to) },
    bucket,
    route: chosen ?? null,
    truncated: rows.length > MAX_VITAL_POINTS,
    approximation: { rolled_up: share, relative_error: share === 0 ? 0 : RELATIVE_ERROR },
    thresholds: THRESHOLDS,
    ...summarizeVitals(points, bucket, chosen, rolled),
  };
}

/** The rollup rows of the plan's days and hours. */
async function rolledParts(db: Kysely<Database>, scope: VitalScope, plan: WindowPlan): Promise<RolledPart[]> {
  const reads = [
    ...plan.days.map(([from, to]) => rollupsIn(db, scope, 'day', from, to)),
    ...plan.hours.map(([from, to]) => rollupsIn(db, scope, 'hour', from, to)),
  ];
  return (await Promise.all(reads)).flat();
}
