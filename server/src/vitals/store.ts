import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { DEFAULT_ENV, TEST_ENV } from '../incidents/detect/error-records';
import { VITAL_OF_METRIC } from './summary';

/**
 * Most points one summary reads, the newest of the window: percentiles are exact over what is read, and reading is
 * bounded whatever the traffic. The answer says when points were left out.
 */
export const MAX_VITAL_POINTS = 200_000;

/** The point's `url.path` attribute: each database reads into the JSON text its own way. */
function pathOf(dialect: DialectName): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`(m.attributes::jsonb ->> 'url.path')`
    : sql`json_extract(m.attributes, '$."url.path"')`;
}

/**
 * The point's environment as detection reads it (incidents/detect/error-records.ts, resourceFacts): each database reads
 * the resource's JSON text its own way. Evaluated on the points the name-and-time index reads, so no index of its own.
 */
function envOf(dialect: DialectName): RawBuilder<string> {
  const attribute = (name: string) =>
    dialect === 'postgres'
      ? sql`nullif(m.resource::jsonb -> 'attributes' ->> ${name}, '')`
      : sql`nullif(json_extract(m.resource, ${`$.attributes."${name}"`}), '')`;
  return sql<string>`case when ${attribute('test.run.id')} is not null then ${TEST_ENV} else coalesce(${attribute('deployment.environment.name')}, ${attribute('deployment.environment')}, ${DEFAULT_ENV}) end`;
}

/** Which vital points a summary reads: the project's (one app's), in [from, to), of one environment or else not tests. */
export interface VitalScope {
  projectId: string;
  appId?: string;
  from: number;
  to: number;
  env?: string;
}

/** The newest {@link MAX_VITAL_POINTS} + 1 vital points in scope, each with its page path. */
export function vitalPoints(db: Kysely<Database>, dialect: DialectName, scope: VitalScope) {
  let q = db
    .selectFrom('metric_points as m')
    .select(['m.name', 'm.value', 'm.time_ms', pathOf(dialect).as('path')])
    .where('m.project_id', '=', scope.projectId)
    .where('m.name', 'in', [...VITAL_OF_METRIC.keys()])
    .where('m.time_ms', '>=', scope.from)
    .where('m.time_ms', '<', scope.to)
    .where('m.value', 'is not', null);
  if (scope.appId !== undefined) q = q.where('m.app_id', '=', scope.appId);
  // Test runs measure the app on CI machines: their vitals say nothing of what users get (docs/api.md, "Web Vitals").
  q = scope.env === undefined ? q.where(envOf(dialect), '<>', TEST_ENV) : q.where(envOf(dialect), '=', scope.env);
  return q
    .orderBy('m.time_ms', 'desc')
    .limit(MAX_VITAL_POINTS + 1)
    .execute();
}
