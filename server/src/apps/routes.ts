import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { listOf } from '../http/schemas';
import { listApps } from '../projects/apps-store';

export const AppSchema = z.object({ id: z.string(), name: z.string(), aliases: z.array(z.string()) }).openapi('App');

const appsRoute = createRoute({
  ...needs('project.view'),
  tags: ['query'],
  method: 'get',
  path: '/apps',
  summary: "Apps of the key's project with their aliases",
  responses: { 200: jsonAnswer('Apps', listOf(AppSchema)), ...errors(401, 403) },
});

/** `GET /control-plane/apps`: the names the listings' `app` parameter takes. */
export function appRoutes(services: Services) {
  return createRouter().openapi(appsRoute, async (c) => {
    const apps = await listApps(services.db, c.get('caller').projectId);
    return c.json({ data: apps.map((a) => ({ id: a.id, name: a.name, aliases: a.aliases })) }, 200);
  });
}
