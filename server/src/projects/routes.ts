import { Hono } from 'hono';
import type { KeyScope } from '../db/schema';
import { adminAuth } from '../http/auth';
import type { AppEnv, Services } from '../http/env';
import { ApiError, badRequest } from '../http/errors';
import { readJsonObject } from '../http/json-object';
import { iso } from '../query/params';
import { createKey, PROJECT_KEY_SCOPES, type CreatedKey } from '../tenancy/keys';
import { checkName } from '../tenancy/names';
import { createProvisionedProject, findProject, listProjects, type ProjectInfo } from '../tenancy/projects';

const projectJson = (p: ProjectInfo) => ({ id: p.id, name: p.name, created_at: iso(p.createdMs) });

/** A new key as the API returns it: the only time `key` itself is shown. */
const keyJson = (k: CreatedKey) => ({
  id: k.id,
  project_id: k.projectId,
  scope: k.scope,
  name: k.name,
  key: k.key,
  created_at: iso(k.createdMs),
  expires_at: k.expiresMs === null ? null : iso(k.expiresMs),
});

/** Fields a body may carry: anything else is a mistake worth naming rather than ignoring. */
function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw badRequest(`unknown field ${extra}: the body takes ${allowed.join(', ')}`, { field: extra });
}

/**
 * Project management for the admin key's tenant (`/control-plane/projects`): list, create (with its default app and an
 * ingest and a control key, as on first start) and give a project more keys. Admin keys are not made here: one who
 * holds an admin key could otherwise keep the tenant after that key is revoked; they come from the CLI, on the host.
 */
export function projectRoutes(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', adminAuth(services));

  app.get('/', async (c) => c.json({ data: (await listProjects(services.db, c.get('caller').tenantId)).map(projectJson) }));

  app.post('/', async (c) => {
    const body = await readJsonObject(c);
    onlyFields(body, ['name']);
    const name = checkName('name', body.name);
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
  });

  app.post('/:id/keys', async (c) => {
    const id = c.req.param('id');
    const project = await findProject(services.db, id, c.get('caller').tenantId);
    // Another tenant's project is as absent as one that never existed.
    if (!project) throw new ApiError(404, 'not_found', `no project ${id} in this tenant`, { field: 'id' });
    const body = await readJsonObject(c);
    onlyFields(body, ['scope', 'name']);
    const scope = body.scope as KeyScope;
    if (!PROJECT_KEY_SCOPES.includes(scope)) {
      throw badRequest(`scope must be one of ${PROJECT_KEY_SCOPES.join(', ')} (admin keys are made with the CLI: svc-server keys create --scope admin)`, { field: 'scope' });
    }
    const key = await createKey(services.db, services.clock, {
      projectId: project.id,
      scope,
      ...(body.name !== undefined ? { name: checkName('name', body.name) } : {}),
    });
    return c.json(keyJson(key), 201);
  });

  // Other paths and methods here end at the server's 404, not at the control key check mounted after these routes.
  app.all('*', (c) => c.notFound());
  return app;
}
