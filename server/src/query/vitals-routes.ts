import { createRoute } from '@hono/zod-openapi';
import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Services } from '../http/env';
import { badRequest } from '../http/errors';
import { DEFAULT_ENV, TEST_ENV } from '../incidents/detect/error-records';
import { CONTROL_SECURITY, createRouter, errors } from '../http/openapi';
import { iso } from '../shared/time';
import { routePattern } from '../shared/route-pattern';
import { appIdFilter } from './routes';
import { vitalsQuery, VITALS_EXAMPLE, VitalsSchema } from './vitals-schemas';
import {
  BUCKET_MS,
  summarizeVitals,
  THRESHOLDS,
  UNKNOWN_ROUTE,
  VITAL_OF_METRIC,
  type Bucket,
  type VitalPoint,
} from './vitals-summary';

/** Without `from`, the summary covers this much before `to` (now unless given). */
export const DEFAULT_VITALS_WINDOW_MS = 7 * BUCKET_MS.day;
/** Windows up to this long are bucketed by hour unless `bucket` says otherwise. */
const HOURLY_UP_TO_MS = 2 * BUCKET_MS.day;
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

const route = createRoute({
  tags: ['query'],
  security: CONTROL_SECURITY,
  method: 'get',
  path: '/',
  summary: 'Web Vitals: p75 per page and over time, rated with web.dev thresholds, and the distribution of ratings',
  description:
    "From the SDK's vital points (web_vital_lcp_ms, web_vital_inp_ms, web_vital_cls, web_vital_fcp_ms, web_vital_ttfb_ms) of the key's project in [from, to): " +
    `by default the ${DEFAULT_VITALS_WINDOW_MS / BUCKET_MS.day} days before now. Pages are the route patterns of the points' \`url.path\` (id-like segments as \`:id\`). ` +
    `Test traffic (env \`${TEST_ENV}\`, from \`@svc/playwright\` runs) is left out unless \`env\` asks for it. ` +
    `p75 is the nearest-rank 75th percentile of the values read: at most the newest ${MAX_VITAL_POINTS} points (\`truncated\` says when there were more).`,
  request: { query: vitalsQuery },
  responses: {
    200: {
      description: 'The summary',
      content: { 'application/json': { schema: VitalsSchema, example: VITALS_EXAMPLE } },
    },
    ...errors(400, 401, 403),
  },
});

/** Web Vitals summary, confined to the key's project; mounted at /vitals behind the query API's key check. */
export function vitalsRoutes(services: Services) {
  return createRouter().openapi(route, async (c) => {
    const p = c.req.valid('query');
    const { projectId } = c.get('caller');
    const to = p.to ?? services.clock.now();
    const from = p.from ?? to - DEFAULT_VITALS_WINDOW_MS;
    if (from >= to)
      throw badRequest(`from must be before to (${iso(from)} is not before ${iso(to)})`, { field: 'from' });
    const bucket: Bucket = p.bucket ?? (to - from <= HOURLY_UP_TO_MS ? 'hour' : 'day');
    const appId = await appIdFilter(services, projectId, p.app);
    let q = services.db
      .selectFrom('metric_points as m')
      .select(['m.name', 'm.value', 'm.time_ms', pathOf(services.dialect).as('path')])
      .where('m.project_id', '=', projectId)
      .where('m.name', 'in', [...VITAL_OF_METRIC.keys()])
      .where('m.time_ms', '>=', from)
      .where('m.time_ms', '<', to)
      .where('m.value', 'is not', null);
    if (appId !== undefined) q = q.where('m.app_id', '=', appId);
    // Test runs measure the app on CI machines: their vitals say nothing of what users get (docs/api.md, "Web Vitals").
    q =
      p.env === undefined
        ? q.where(envOf(services.dialect), '<>', TEST_ENV)
        : q.where(envOf(services.dialect), '=', p.env);
    const rows = await q
      .orderBy('m.time_ms', 'desc')
      .limit(MAX_VITAL_POINTS + 1)
      .execute();
    // Pages repeat: each distinct path is turned into its pattern once.
    const patterns = new Map<string, string>();
    const patternOf = (path: string) => patterns.get(path) ?? patterns.set(path, routePattern(path)).get(path)!;
    const points: VitalPoint[] = rows.slice(0, MAX_VITAL_POINTS).map((r) => ({
      vital: VITAL_OF_METRIC.get(r.name)!,
      value: r.value!,
      timeMs: Number(r.time_ms),
      route: typeof r.path === 'string' && r.path !== '' ? patternOf(r.path) : UNKNOWN_ROUTE,
    }));
    const chosen = p.route === undefined || p.route === UNKNOWN_ROUTE ? p.route : routePattern(p.route);
    return c.json(
      {
        window: { from: iso(from), to: iso(to) },
        bucket,
        route: chosen ?? null,
        truncated: rows.length > MAX_VITAL_POINTS,
        thresholds: THRESHOLDS,
        ...summarizeVitals(points, bucket, chosen),
      },
      200,
    );
  });
}
