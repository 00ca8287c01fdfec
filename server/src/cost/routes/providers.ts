import { randomBytes } from 'node:crypto';
import { createRoute } from '@hono/zod-openapi';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import { ApiError } from '../../http/errors';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer, jsonBody, readControlJson } from '../../http/openapi';
import { idParams, listOf } from '../../http/schemas';
import type { CostServices } from '../services';
import type { ProviderName } from '../sources/types';
import { NewProvider, Provider, Sync } from './schemas';
import { syncJson } from './sync-status';

type ProviderRow = Selectable<Database['cost_providers']>;

const notFound = (id: string) => new ApiError(404, 'not_found', `no cost provider ${id} in this project`);
const control = { tags: ['cost'], security: CONTROL_SECURITY };
const request = { params: idParams('Connection id') };

const connectRoute = createRoute({
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
  ...control,
  method: 'get',
  path: '/',
  summary: 'Cost connections',
  responses: { 200: jsonAnswer('Connections', listOf(Provider)), ...errors(401, 403) },
});
const getRoute = createRoute({
  ...control,
  method: 'get',
  path: '/{id}',
  summary: 'One connection',
  request,
  responses: { 200: jsonAnswer('The connection', Provider), ...errors(400, 401, 403, 404) },
});
const deleteRoute = createRoute({
  ...control,
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a connection and the cost data read through it',
  request,
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});
const syncStatusRoute = createRoute({
  ...control,
  method: 'get',
  path: '/{id}/sync',
  summary: 'Sync status',
  request,
  responses: { 200: jsonAnswer('The status', Sync), ...errors(400, 401, 403, 404) },
});
const syncNowRoute = createRoute({
  ...control,
  method: 'post',
  path: '/{id}/sync',
  summary: 'Run the sync now instead of at its daily time: after fixing a role, or to see new data sooner',
  request,
  responses: { 202: jsonAnswer('Due now', Sync), ...errors(400, 401, 403, 404, 409) },
});

/** `POST/GET/DELETE /control-plane/cost/providers`, and each connection's sync (docs/cost.md). */
export function providerRoutes(services: CostServices) {
  const { db, clock } = services;

  const load = async (projectId: string, id: string) => {
    const row = await db
      .selectFrom('cost_providers')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound(id);
    return row;
  };
  const loadSync = (id: string) =>
    db.selectFrom('cost_syncs').selectAll().where('provider_id', '=', id).executeTakeFirstOrThrow();

  // Config is shown as its kind makes it public: never a credential, a role ARN or an external id.
  const providerJson = async (row: ProviderRow) => ({
    id: row.id,
    provider: row.provider,
    name: row.name,
    config: services.kinds[row.provider as ProviderName].publicConfig(JSON.parse(row.config) as unknown),
    created_at: new Date(row.created_ms).toISOString(),
    sync: syncJson(await loadSync(row.id), clock.now()),
  });

  const app = createRouter().openapi(connectRoute, async (c) => {
    const body = c.req.valid('json');
    const { provider } = body;
    const parsed = services.kinds[provider].parse(body.config);
    const { projectId } = c.get('caller');
    const now = clock.now();
    const row: ProviderRow = {
      id: `cp_${randomBytes(10).toString('hex')}`,
      project_id: projectId,
      provider,
      name: body.name ?? null,
      config: JSON.stringify(parsed.config),
      secrets: services.box.seal(parsed.secrets),
      created_ms: now,
    };
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('cost_providers').values(row).execute();
      // The first sync is due at once; the connection is checked by it (its status shows any error).
      await trx
        .insertInto('cost_syncs')
        .values({
          provider_id: row.id,
          project_id: projectId,
          next_run_ms: now,
          lease_owner: null,
          lease_until_ms: null,
          failures: 0,
          last_started_ms: null,
          last_finished_ms: null,
          last_status: null,
          last_rows: null,
          last_periods: null,
          last_error: null,
          last_success_ms: null,
        })
        .execute();
    });
    services.sync.wake();
    return c.json(await providerJson(row), 201);
  });

  app.openapi(listRoute, async (c) => {
    const rows = await db
      .selectFrom('cost_providers')
      .selectAll()
      .where('project_id', '=', c.get('caller').projectId)
      .orderBy('created_ms')
      .orderBy('id')
      .execute();
    return c.json({ data: await Promise.all(rows.map(providerJson)) }, 200);
  });

  app.openapi(getRoute, async (c) =>
    c.json(await providerJson(await load(c.get('caller').projectId, c.req.valid('param').id)), 200),
  );

  // Deleting a connection deletes the cost data read through it: reports must not show what can no longer be synced.
  app.openapi(deleteRoute, async (c) => {
    const row = await load(c.get('caller').projectId, c.req.valid('param').id);
    await db.transaction().execute(async (trx) => {
      for (const table of ['cost_daily', 'cost_resources', 'cost_syncs'] as const)
        await trx.deleteFrom(table).where('provider_id', '=', row.id).execute();
      await trx.deleteFrom('cost_providers').where('id', '=', row.id).execute();
    });
    return c.body(null, 204);
  });

  app.openapi(syncStatusRoute, async (c) => {
    const row = await load(c.get('caller').projectId, c.req.valid('param').id);
    return c.json(syncJson(await loadSync(row.id), clock.now()), 200);
  });

  app.openapi(syncNowRoute, async (c) => {
    const row = await load(c.get('caller').projectId, c.req.valid('param').id);
    const now = clock.now();
    const updated = await db
      .updateTable('cost_syncs')
      .set({ next_run_ms: now })
      .where('provider_id', '=', row.id)
      .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', now)]))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0)
      throw new ApiError(
        409,
        'sync_running',
        `a sync of cost provider ${row.id} is running; see GET .../sync for its result`,
      );
    services.sync.wake();
    return c.json(syncJson(await loadSync(row.id), now), 202);
  });

  return app;
}
