import { createRoute } from '@hono/zod-openapi';
import { createRouter, errors, jsonAnswer, needs } from '../../http/openapi';
import { estimate } from '../reports/estimate';
import { costByService, periodSummary } from '../reports/summary';
import { costRows, splitCurrency } from '../store/costs';
import { connectionSyncs, reportFreshness } from '../store/syncs';
import type { CostServices } from '../services';
import { periodOf } from '../sync/periods';
import { ByService, Estimate, EstimateQuery, PeriodQuery, Summary } from './schemas';

const control = { tags: ['cost'], method: 'get' as const };
const summaryRoute = createRoute({
  ...needs('project.view'),
  ...control,
  path: '/summary',
  summary: 'Cost summary of a billing period',
  request: { query: PeriodQuery },
  responses: { 200: jsonAnswer('The summary', Summary), ...errors(400, 401, 403) },
});
const byServiceRoute = createRoute({
  ...needs('project.view'),
  ...control,
  path: '/by-service',
  summary: 'Usage cost per service and env, with the Unattributed row, and the non-usage charges by type',
  request: { query: PeriodQuery },
  responses: { 200: jsonAnswer('The breakdown', ByService), ...errors(400, 401, 403) },
});
const estimateRoute = createRoute({
  ...needs('project.view'),
  ...control,
  path: '/estimate',
  summary: 'Projection to the period end, trend, per-service breakdown and anomaly flags',
  request: { query: EstimateQuery },
  responses: { 200: jsonAnswer('The estimate', Estimate), ...errors(400, 401, 403) },
});

/** `GET /control-plane/cost/summary`, `/by-service` and `/estimate` (docs/cost.md gives every field). */
export function reportRoutes(services: CostServices) {
  const { db, clock } = services;
  const periodRows = async (projectId: string, period: string) =>
    splitCurrency(await costRows(db, projectId, { billingPeriod: period }));

  return createRouter()
    .openapi(summaryRoute, async (c) => {
      const now = clock.now();
      const period = c.req.valid('query').period ?? periodOf(now);
      const { projectId } = c.get('caller');
      const split = await periodRows(projectId, period);
      return c.json(periodSummary(period, split, await connectionSyncs(db, projectId), now), 200);
    })
    .openapi(byServiceRoute, async (c) => {
      const now = clock.now();
      const period = c.req.valid('query').period ?? periodOf(now);
      const { projectId } = c.get('caller');
      const split = await periodRows(projectId, period);
      return c.json({ ...costByService(period, split), data: await reportFreshness(db, projectId, now) }, 200);
    })
    .openapi(estimateRoute, async (c) => {
      const now = clock.now();
      const { projectId } = c.get('caller');
      return c.json(
        { ...(await estimate(db, projectId, now, c.req.query())), data: await reportFreshness(db, projectId, now) },
        200,
      );
    });
}
