import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import { checkParams, readNumber } from '../../query/params';
import { recommendationInputs } from '../queries/recommendation-inputs';
import { addDays, dayOf } from '../reports/days';
import { idleResources } from '../reports/recommendations/idle';
import { overprovisionedServices } from '../reports/recommendations/overprovisioned';
import { DEFAULT_LOOKBACK_DAYS, recommendationList } from '../reports/recommendations/recommendation';
import { reservedInstanceOpportunities } from '../reports/recommendations/reserved';
import type { CostServices } from '../services';

/**
 * `GET /control-plane/cost/recommendations?lookback_days=30`: idle resources, overprovisioned services and
 * reserved-instance opportunities over the last `lookback_days` complete UTC days (7–90, default 30), largest saving
 * first, with the advisory note (SPEC 8: heuristic, not from provider pricing interfaces).
 */
export function recommendationRoutes(services: CostServices) {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
    checkParams(c, ['lookback_days']);
    const lookback = readNumber(c, 'lookback_days', { min: 7, max: 90, integer: true }) ?? DEFAULT_LOOKBACK_DAYS;
    const today = dayOf(services.clock.now());
    const window = { start: addDays(today, -lookback), end: addDays(today, -1) };
    const inputs = await recommendationInputs(services.db, c.get('caller').projectId, window);
    const options = { lookback_days: lookback };
    const list = recommendationList([
      ...idleResources(inputs.resources, inputs.spans, options),
      ...overprovisionedServices(inputs.utilization, options),
      ...reservedInstanceOpportunities(inputs.onDemand, options),
    ]);
    return c.json({ window, currency: inputs.currency, ...list });
  });
  return app;
}
