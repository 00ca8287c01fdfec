import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { TEST_ENV } from '../otlp/environment';
import { issueFacets, MAX_FACET_RELEASES } from './store';

const Facets = z
  .object({
    envs: z
      .array(z.string())
      .openapi({ description: `Environments issues were seen in, by name; \`${TEST_ENV}\` when test runs saw some` }),
    releases: z.array(z.string()).openapi({
      description: `Releases issues were seen in, the most recently seen first (at most ${MAX_FACET_RELEASES})`,
    }),
  })
  .openapi('IssueFacets');

const route = createRoute({
  ...needs('project.view'),
  tags: ['issues'],
  method: 'get',
  path: '/',
  summary: "The values the issue list's env and release filters take",
  responses: { 200: jsonAnswer('The values', Facets), ...errors(401, 403) },
});

/** `GET /control-plane/issues/facets`: the choices of the console's issue filters, as the sessions page has its facets. */
export function issueFacetRoutes(services: Services) {
  return createRouter().openapi(route, async (c) =>
    c.json(await issueFacets(services.db, c.get('caller').projectId), 200),
  );
}
