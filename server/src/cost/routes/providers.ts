import { randomBytes } from 'node:crypto';
import { createRoute } from '@hono/zod-openapi';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../../http/openapi';
import { idParams, listOf } from '../../http/schemas';
import type { CostServices } from '../services';
import type { ProviderName } from '../sources/types';
import { providerStore, type ProviderRow } from '../store/providers';
import { NewProvider, Provider, Sync } from './schemas';
import { syncJson } from './sync-status';

const control = { tags: ['cost'] };
const request = { params: idParams('Connection id') };

const connectRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'post',
  path: '/',
  summary: 'Connect a cloud billing source (read-only); its first sync is due at once',
  middleware: [readControlJson],
  request: {
    body: jsonBody(NewProvider, {
      provider: 'aws',
      name: 'billing account',
      config: {
        role_arn: 'arn:aws:iam::123456789012:role/svc-cost',
        external_id: 'svc-ext-42',
        cur_bucket: 'billing-exports',
        cur_prefix: 'cur/',
      },
    }),
  },
  responses: { 201: jsonAnswer('Created', Provider), ...errors(400, 401, 403, 413, 415) },
});
const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: 'Cost connections',
  responses: { 200: jsonAnswer('Connections', listOf(Provider)), ...errors(401, 403) },
});
const getRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/{id}',
  summary: 'One connection',
  request,
  responses: { 200: jsonAnswer('The connection', Provider), ...errors(400, 401, 403, 404) },
});
const deleteRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a connection and the cost data read through it',
  request,
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});
const syncStatusRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/{id}/sync',
  summary: 'Sync status',
  request,
  responses: { 200: jsonAnswer('The status', Sync), ...errors(400, 401, 403, 404) },
});
const syncNowRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'post',
  path: '/{id}/sync',
  summary: 'Run the sync now instead of at its daily time: after fixing a role, or to see new data sooner',
  request,
  responses: { 202: jsonAnswer('Due now', Sync), ...errors(400, 401, 403, 404, 409) },
});

/** `POST/GET/DELETE /control-plane/cost/providers`, and each connection's sync (docs/cost.md). */
export function providerRoutes(services: CostServices) {
  const { clock } = services;
  const store = providerStore(services.db);

  // Config is shown as its kind makes it public: never a credential, a role ARN or an external id.
  const providerJson = async (row: ProviderRow) => ({
    id: row.id,
    provider: row.provider,
    name: row.name,
    config: services.kinds[row.provider as ProviderName].publicConfig(JSON.parse(row.config) as unknown),
    created_at: new Date(row.created_ms).toISOString(),
    sync: syncJson(await store.sync(row.id), clock.now()),
  });

  return createRouter()
    .openapi(connectRoute, async (c) => {
      const body = c.req.valid('json');
      const parsed = services.kinds[body.provider].parse(body.config);
      const row: ProviderRow = {
        id: `cp_${randomBytes(10).toString('hex')}`,
        project_id: c.get('caller').projectId,
        provider: body.provider,
        name: body.name ?? null,
        config: JSON.stringify(parsed.config),
        secrets: services.box.seal(parsed.secrets),
        created_ms: clock.now(),
      };
      await store.create(row);
      services.sync.wake();
      return c.json(await providerJson(row), 201);
    })
    .openapi(listRoute, async (c) =>
      c.json({ data: await Promise.all((await store.list(c.get('caller').projectId)).map(providerJson)) }, 200),
    )
    .openapi(getRoute, async (c) =>
      c.json(await providerJson(await store.find(c.get('caller').projectId, c.req.valid('param').id)), 200),
    )
    .openapi(deleteRoute, async (c) => {
      const row = await store.find(c.get('caller').projectId, c.req.valid('param').id);
      await store.delete(row.id);
      return c.body(null, 204);
    })
    .openapi(syncStatusRoute, async (c) => {
      const row = await store.find(c.get('caller').projectId, c.req.valid('param').id);
      return c.json(syncJson(await store.sync(row.id), clock.now()), 200);
    })
    .openapi(syncNowRoute, async (c) => {
      const row = await store.find(c.get('caller').projectId, c.req.valid('param').id);
      const now = clock.now();
      await store.requestSync(row.id, now);
      services.sync.wake();
      return c.json(syncJson(await store.sync(row.id), now), 202);
    });
}
