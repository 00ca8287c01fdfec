import { mayActOn, requireWholeOrganisation } from '../auth/project-access';
import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../http/openapi';
import { DomainError } from '../shared/domain-errors';
import { iso } from '../shared/time';
import { createKey, PROJECT_KEY_SCOPES, type CreatedKey } from './keys-store';
import { createProvisionedProject } from './provision';
import { listProjects, tenantProject, type ProjectInfo } from './store';
import { NameSchema } from './names';

const projectJson = (p: ProjectInfo) => ({ id: p.id, name: p.name, created_at: iso(p.createdMs) });

/** A new key as the API returns it: the only time `key` itself is shown. */
const keyJson = (k: CreatedKey) => ({
  id: k.id,
  project_id: k.projectId,
  scope: k.scope as (typeof PROJECT_KEY_SCOPES)[number],
  name: k.name,
  key: k.key,
  created_at: iso(k.createdMs),
  expires_at: k.expiresMs === null ? null : iso(k.expiresMs),
});

const Time = z.string().openapi({ format: 'date-time', example: '2026-01-01T00:00:00.000Z' });
const Project = z.object({ id: z.string(), name: z.string(), created_at: Time }).openapi('Project');
const Scope = z.enum(PROJECT_KEY_SCOPES, {
  error: `scope must be one of ${PROJECT_KEY_SCOPES.join(', ')} (admin keys are made with the CLI: svc-server keys create --scope admin)`,
});
const NewKey = z
  .object({
    id: z.string(),
    project_id: z.string(),
    scope: Scope,
    name: z.string(),
    key: z.string().openapi({ description: 'The key itself, shown this once: only its hash is stored' }),
    created_at: Time,
    expires_at: Time.nullable(),
  })
  .openapi('NewKey');

const admin = { tags: ['projects'], middleware: [readControlJson] };

const listRoute = createRoute({
  ...needs('keys.manage'),
  method: 'get',
  path: '/',
  tags: ['projects'],
  summary: "Projects of the admin key's tenant",
  description: 'Oldest first.',
  responses: { 200: jsonAnswer('Projects', z.object({ data: z.array(Project) })), ...errors(401, 403) },
});

const createProjectRoute = createRoute({
  ...needs('keys.manage'),
  ...admin,
  method: 'post',
  path: '/',
  summary: 'Create a project with its default app and an ingest and a control key',
  description:
    'As on first start: the app `web-app` and one key of each project scope, shown once. Names are unique in the tenant (409).',
  request: { body: jsonBody(z.strictObject({ name: NameSchema }), { name: 'shop' }) },
  responses: {
    201: jsonAnswer('Created', Project.extend({ app: z.string(), ingest_key: NewKey, control_key: NewKey })),
    ...errors(400, 401, 403, 409, 413, 415),
  },
});

const createKeyRoute = createRoute({
  ...needs('keys.manage'),
  ...admin,
  method: 'post',
  path: '/{id}/keys',
  summary: 'Create a key for a project of the tenant',
  description:
    "Admin keys are not made here but with the CLI (`svc-server keys create --scope admin`), on the server's host.",
  request: {
    params: z.object({ id: z.string().openapi({ description: 'Project id' }) }),
    body: jsonBody(z.strictObject({ scope: Scope, name: NameSchema.optional() }), { scope: 'control', name: 'ci' }),
  },
  responses: { 201: jsonAnswer('Created', NewKey), ...errors(400, 401, 403, 404, 413, 415) },
});

/**
 * Project management for the admin key's tenant (`/control-plane/projects`): list, create (with its default app and an
 * ingest and a control key, as on first start) and give a project more keys. Admin keys are not made here: one who
 * holds an admin key could otherwise keep the tenant after that key is revoked; they come from the CLI, on the host.
 */
export function projectRoutes(services: Services) {
  const app = createRouter();
  const routes = app
    .openapi(listRoute, async (c) => {
      const caller = c.get('caller');
      const projects = await listProjects(services.db, caller.tenantId);
      return c.json({ data: projects.filter((p) => mayActOn(caller, p.id)).map(projectJson) }, 200);
    })
    .openapi(createProjectRoute, async (c) => {
      const { name } = c.req.valid('json');
      requireWholeOrganisation(c.get('caller'), 'create a project');
      const created = await createProvisionedProject(services.db, services.clock, c.get('caller').tenantId, name);
      return c.json(
        {
          ...projectJson(created.project),
          app: created.appName,
          ingest_key: keyJson(created.ingestKey),
          control_key: keyJson(created.controlKey),
        },
        201,
      );
    })
    .openapi(createKeyRoute, async (c) => {
      const { id } = c.req.valid('param');
      const caller = c.get('caller');
      const project = await tenantProject(services.db, id, caller.tenantId);
      // A member limited to some projects sees no other: the same 404 as a project of another organisation.
      if (!mayActOn(caller, project.id))
        throw new DomainError('not_found', 'not_found', `no project ${id} in this tenant`, { field: 'id' });
      const { scope, name } = c.req.valid('json');
      return c.json(
        keyJson(
          await createKey(services.db, services.clock, {
            projectId: project.id,
            scope,
            ...(caller.actor.kind === 'person' ? { createdBy: caller.actor.person.userId } : {}),
            ...(name !== undefined ? { name } : {}),
          }),
        ),
        201,
      );
    });
  // Other paths and methods here end at the server's 404, not at the control key check mounted after these routes.
  routes.all('*', (c) => c.notFound());
  return routes;
}
