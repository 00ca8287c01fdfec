import { createRoute } from '@hono/zod-openapi';
import { createRouter, errors, jsonAnswer, needs } from '../../http/openapi';
import { recommendationInputs } from '../store/recommendation-inputs';
import { reportFreshness } from '../store/syncs';
import { addDays, dayOf } from '../reports/days';
import { idleResources } from '../reports/recommendations/idle';
import { overprovisionedServices } from '../reports/recommendations/overprovisioned';
import { resolveOverlaps } from '../reports/recommendations/overlaps';
import { DEFAULT_LOOKBACK_DAYS, recommendationList } from '../reports/recommendations/recommendation';
import { reservedInstanceOpportunities } from '../reports/recommendations/reserved';
import type { CostServices } from '../services';
import { LookbackQuery, Recommendations } from './schemas';

const listRoute = createRoute({
  ...needs('project.view'),
  tags: ['cost'],
  method: 'get',
  path: '/',
  summary: 'Savings recommendations (heuristic, advisory; one per resource)',
  request: { query: LookbackQuery },
  responses: { 200: jsonAnswer('The recommendations', Recommendations), ...errors(400, 401, 403) },
});

/**
 * `GET /control-plane/cost/recommendations?lookback_days=30`: idle resources, overprovisioned services and
 * reserved-instance opportunities over the last `lookback_days` complete UTC days (7–90, default 30), at most one per
 * resource (overlaps.ts), largest saving first, with their total and the advisory note (SPEC 8: heuristic, not from
 * provider pricing interfaces).
 */
export function recommendationRoutes(services: CostServices) {
  return createRouter().openapi(listRoute, async (c) => {
    const lookback = c.req.valid('query').lookback_days ?? DEFAULT_LOOKBACK_DAYS;
    const now = services.clock.now();
    const { projectId } = c.get('caller');
    const today = dayOf(now);
    const window = { start: addDays(today, -lookback), end: addDays(today, -1) };
    const inputs = await recommendationInputs(services.db, projectId, window);
    const options = { lookback_days: lookback };
    const list = recommendationList(
      resolveOverlaps({
        idle: idleResources(inputs.resources, inputs.spans, options),
        overprovisioned: overprovisionedServices(inputs.utilization, options),
        reserved: reservedInstanceOpportunities(inputs.onDemand, options),
        resources: inputs.resources,
        ...options,
      }),
    );
    return c.json(
      { window, currency: inputs.currency, ...list, data: await reportFreshness(services.db, projectId, now) },
      200,
    );
  });
}
