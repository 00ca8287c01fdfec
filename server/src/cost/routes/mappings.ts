import { createRoute, z } from '@hono/zod-openapi';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../../http/openapi';
import { parseMappingRules } from '../mapping/rules';
import { loadMapping, saveRules } from '../store/mappings';
import type { CostServices } from '../services';
import { Mapping, MappingBody } from './schemas';

const control = { tags: ['cost'] };

const replaceRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'post',
  path: '/',
  summary: 'Replace the rules (evaluated in order, first match wins per dimension) and re-attribute stored cost',
  middleware: [readControlJson],
  request: {
    body: jsonBody(MappingBody, {
      rules: [
        { match: { tag: 'app', pattern: 'checkout-*' }, attribute_to: 'service' },
        { match: { resource_name_prefix: 'shared-lb-' }, attribute_to_service: 'edge' },
      ],
    }),
  },
  responses: {
    200: jsonAnswer('The rules', Mapping.extend({ resources_reattributed: z.number().int() })),
    ...errors(400, 401, 403, 413, 415),
  },
});

const getRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: 'Attribution rules in force',
  responses: { 200: jsonAnswer('The rules', Mapping), ...errors(401, 403) },
});

/**
 * `POST /control-plane/cost/mappings` replaces the project's rule list (SPEC 2.2) and re-attributes the cost already
 * stored; `GET` returns the rules in force.
 */
export function mappingRoutes(services: CostServices) {
  const { db, clock } = services;
  return createRouter()
    .openapi(replaceRoute, async (c) => {
      const rules = parseMappingRules(c.req.valid('json'));
      const now = clock.now();
      const resources = await saveRules(db, c.get('caller').projectId, rules, now);
      return c.json({ rules, updated_at: new Date(now).toISOString(), resources_reattributed: resources }, 200);
    })
    .openapi(getRoute, async (c) => {
      const { rules, updatedMs } = await loadMapping(db, c.get('caller').projectId);
      return c.json({ rules, updated_at: updatedMs === null ? null : new Date(updatedMs).toISOString() }, 200);
    });
}
