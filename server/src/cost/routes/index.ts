import { createRouter } from '../../http/openapi';
import type { CostServices } from '../services';
import { mappingRoutes } from './mappings';
import { providerRoutes } from './providers';
import { recommendationRoutes } from './recommendations';
import { reportRoutes } from './reports';

/** `/control-plane/cost/...` (SPEC 4), behind the control key. */
export function costRoutes(services: CostServices) {
  return createRouter()
    .route('/providers', providerRoutes(services))
    .route('/mappings', mappingRoutes(services))
    .route('/recommendations', recommendationRoutes(services))
    .route('/', reportRoutes(services));
}
