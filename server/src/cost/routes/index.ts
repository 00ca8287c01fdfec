import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import type { CostServices } from '../services';
import { mappingRoutes } from './mappings';
import { providerRoutes } from './providers';
import { recommendationRoutes } from './recommendations';
import { reportRoutes } from './reports';

/** `/control-plane/cost/...` (SPEC 4), behind the control key. */
export function costRoutes(services: CostServices) {
  return new Hono<AppEnv>()
    .route('/providers', providerRoutes(services))
    .route('/mappings', mappingRoutes(services))
    .route('/recommendations', recommendationRoutes(services))
    .route('/', reportRoutes(services));
}
