import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import { checkParams, readNumber } from '../../query/params';
import { recommendationInputs } from '../queries/recommendation-inputs';
import { reportFreshness } from '../queries/syncs';
import { addDays, dayOf } from '../reports/days';
import { idleResources } from '../reports/recommendations/idle';
import { overprovisionedServices } from '../reports/recommendations/overprovisioned';
import { resolveOverlaps } from '../reports/recommendations/overlaps';
import { DEFAULT_LOOKBACK_DAYS, recommendationList } from '../reports/recommendations/recommendation';
import { reservedInstanceOpportunities } from '../reports/recommendations/reserved';
import type { CostServices } from '../services';

/**
 * `GET /control-plane/cost/recommendations?lookback_days=30`: idle resources, overprovisioned services and
 * reserved-instance opportunities over the last `lookback_days` complete UTC days (7–90, default 30), at most one per
 * resource (overlaps.ts), largest saving first, with their total and the advisory note (SPEC 8: heuristic, not from
 * provider pricing interfaces).
 */
export function recommendationRoutes(services: CostServices) {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    checkParams(c, ['lookback_days']);
    const lookback = readNumber(c, 'lookback_days', { min: 7, max: 90, integer: true }) ?? DEFAULT_LOOKBACK_DAYS;
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
    return c.json({ window, currency: inputs.currency, ...list, data: await reportFreshness(services.db, projectId, now) });
  });
  return app;
}
