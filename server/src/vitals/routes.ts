import { createRoute } from '@hono/zod-openapi';
import { appIdFilter } from '../apps/filter';
import type { Services } from '../http/env';
import { createRouter, errors, needs } from '../http/openapi';
import { TEST_ENV } from '../otlp/environment';
import { invalid } from '../shared/domain-errors';
import { iso } from '../shared/time';
import { RELATIVE_ERROR } from './rollup/histogram';
import { vitalsQuery, VITALS_EXAMPLE, VitalsSchema } from './schemas';
import { MAX_VITAL_POINTS } from './store';
import { BUCKET_MS, type Bucket } from './summary';
import { vitalsReport } from './report';

/** Without `from`, the summary covers this much before `to` (now unless given). */
export const DEFAULT_VITALS_WINDOW_MS = 7 * BUCKET_MS.day;
/** Windows up to this long are bucketed by hour unless `bucket` says otherwise. */
const HOURLY_UP_TO_MS = 2 * BUCKET_MS.day;
const route = createRoute({
  ...needs('project.view'),
  tags: ['query'],
  method: 'get',
  path: '/',
  summary: 'Web Vitals: p75 per page and over time, rated with web.dev thresholds, and the distribution of ratings',
  description:
    "From the SDK's vital points (web_vital_lcp_ms, web_vital_inp_ms, web_vital_cls, web_vital_fcp_ms, web_vital_ttfb_ms) of the key's project in [from, to): " +
    `by default the ${DEFAULT_VITALS_WINDOW_MS / BUCKET_MS.day} days before now. Pages are the route patterns of the points' \`url.path\` (id-like segments as \`:id\`). ` +
    `Test traffic (env \`${TEST_ENV}\`, from \`@svc/playwright\` runs) is left out unless \`env\` asks for it. ` +
    'Whole UTC days and hours the rollup job has rolled up are read from their rollups (a histogram per page and vital, ' +
    `within ${(RELATIVE_ERROR * 100).toFixed(2)} % of the exact p75; \`approximation\` says how much), the rest from the points: ` +
    `p75 is the nearest-rank 75th percentile, over at most the newest ${MAX_VITAL_POINTS} of those points (\`truncated\` says when there were more).`,
  request: { query: vitalsQuery },
  responses: {
    200: {
      description: 'The summary',
      content: { 'application/json': { schema: VitalsSchema, example: VITALS_EXAMPLE } },
    },
    ...errors(400, 401, 403),
  },
});

/** Web Vitals summary, confined to the key's project; mounted at /vitals behind the control plane's key check. */
export function vitalsRoutes(services: Services) {
  return createRouter().openapi(route, async (c) => {
    const p = c.req.valid('query');
    const { projectId } = c.get('caller');
    const to = p.to ?? services.clock.now();
    const from = p.from ?? to - DEFAULT_VITALS_WINDOW_MS;
    if (from >= to) {
      throw invalid(`from must be before to (${iso(from)} is not before ${iso(to)})`, 'invalid_request', {
        field: 'from',
      });
    }
    const bucket: Bucket = p.bucket ?? (to - from <= HOURLY_UP_TO_MS ? 'hour' : 'day');
    const appId = await appIdFilter(services.db, projectId, p.app);
    const scope = { projectId, appId, from, to, env: p.env };
    return c.json(await vitalsReport(services, scope, bucket, p.route), 200);
  });
}
