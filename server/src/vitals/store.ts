import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { TEST_ENV } from '../otlp/environment';
import type { Range } from './rollup/plan';
import { VITAL_OF_METRIC } from './summary';

/**
 * Most points one summary reads, the newest of the window: percentiles are exact over what is read, and reading is
 * bounded whatever the traffic. The answer says when points were left out.
 */
export const MAX_VITAL_POINTS = 200_000;

/** Which vital points a summary reads: the project's (one app's), in [from, to), of one environment or else not tests. */
export interface VitalScope {
  projectId: string;
  appId?: string;
  from: number;
  to: number;
  env?: string;
}

/**
 * The newest {@link MAX_VITAL_POINTS} + 1 vital points in scope, each with its page path: of the scope's window, or of
 * the parts of it `ranges` names (those not rolled up, vitals/rollup/plan.ts). One query per range, newest range first:
 * an `or` of time ranges would not bound the index walk (SQLite then read every vital point of the project).
 */
export async function vitalPoints(
  db: Kysely<Database>,
  scope: VitalScope,
  ranges: readonly Range[] = [[scope.from, scope.to]],
) {
  const rows: Awaited<ReturnType<typeof pointsIn>> = [];
  for (const range of [...ranges].sort(([a], [b]) => b - a)) {
    const left = MAX_VITAL_POINTS + 1 - rows.length;
    if (left <= 0) break;
    rows.push(...(await pointsIn(db, scope, range, left)));
  }
  return rows;
}

/** The newest `limit` vital points in scope in one range. */
function pointsIn(db: Kysely<Database>, scope: VitalScope, [from, to]: Range, limit: number) {
  let q = db
    .selectFrom('metric_points as m')
    .select(['m.name', 'm.value', 'm.time_ms', 'm.route as path'])
    .where('m.project_id', '=', scope.projectId)
    .where('m.name', 'in', [...VITAL_OF_METRIC.keys()])
    .where('m.time_ms', '>=', from)
    .where('m.time_ms', '<', to)
    .where('m.value', 'is not', null);
  if (scope.appId !== undefined) q = q.where('m.app_id', '=', scope.appId);
  // Test runs measure the app on CI machines: their vitals say nothing of what users get (docs/api.md, "Web Vitals").
  q = scope.env === undefined ? q.where('m.env', '<>', TEST_ENV) : q.where('m.env', '=', scope.env);
  return q.orderBy('m.time_ms', 'desc').limit(limit).execute();
}
