import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer } from '../http/openapi';
import { TEST_ENV } from '../incidents/detect/error-records';

/** Releases offered, the most recently seen first: a project that releases every commit has thousands. */
const MAX_RELEASES = 100;

const Facets = z
  .object({
    envs: z
      .array(z.string())
      .openapi({ description: `Environments issues were seen in, by name; \`${TEST_ENV}\` when test runs saw some` }),
    releases: z
      .array(z.string())
      .openapi({ description: `Releases issues were seen in, the most recently seen first (at most ${MAX_RELEASES})` }),
  })
  .openapi('IssueFacets');

const route = createRoute({
  tags: ['issues'],
  security: CONTROL_SECURITY,
  method: 'get',
  path: '/',
  summary: "The values the issue list's env and release filters take",
  responses: { 200: jsonAnswer('The values', Facets), ...errors(401, 403) },
});

/** `GET /control-plane/issues/facets`: the choices of the console's issue filters, as the sessions page has its facets. */
export function issueFacetRoutes(services: Services) {
  const { db } = services;
  return createRouter().openapi(route, async (c) => {
    const { projectId } = c.get('caller');
    const [envs, tested, releases] = await Promise.all([
      db
        .selectFrom('detection_groups')
        .select('env')
        .distinct()
        .where('project_id', '=', projectId)
        .where('total_count', '>', 0)
        .orderBy('env')
        .execute(),
      db
        .selectFrom('detection_groups')
        .select('project_id')
        .where('project_id', '=', projectId)
        .where('test_count', '>', 0)
        .limit(1)
        .executeTakeFirst(),
      db
        .selectFrom('issue_releases')
        .select('release')
        .where('project_id', '=', projectId)
        .groupBy('release')
        .orderBy((eb) => eb.fn.max('last_seen_ms'), 'desc')
        .orderBy('release')
        .limit(MAX_RELEASES)
        .execute(),
    ]);
    // Issues seen in test runs keep their production env: `test` is the filter that asks for them (issues/list.ts).
    const names = envs.map((e) => e.env);
    if (tested && !names.includes(TEST_ENV)) names.push(TEST_ENV);
    return c.json({ envs: names, releases: releases.map((r) => r.release) }, 200);
  });
}
