import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import type { AppEnv } from '../../http/env';
import { ApiError, badRequest } from '../../http/errors';
import { readJsonObject } from '../../http/json-object';
import type { CostServices } from '../services';
import { PROVIDERS, type ProviderName } from '../sources/types';
import { syncJson } from './sync-status';

type ProviderRow = Selectable<Database['cost_providers']>;

const notFound = (id: string) => new ApiError(404, 'not_found', `no cost provider ${id} in this project`);
const ALLOWED_FIELDS = new Set(['provider', 'config', 'name']);

/** `POST/GET/DELETE /control-plane/cost/providers`, and each connection's sync (docs/cost.md). */
export function providerRoutes(services: CostServices) {
  const { db, clock } = services;
  const app = new Hono<AppEnv>();

  const load = async (projectId: string, id: string) => {
    const row = await db.selectFrom('cost_providers').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(id);
    return row;
  };
  const loadSync = (id: string) => db.selectFrom('cost_syncs').selectAll().where('provider_id', '=', id).executeTakeFirstOrThrow();

  // Config is shown as its kind makes it public: never a credential, a role ARN or an external id.
  const providerJson = async (row: ProviderRow) => ({
    id: row.id,
    provider: row.provider,
    name: row.name,
    config: services.kinds[row.provider as ProviderName].publicConfig(JSON.parse(row.config) as unknown),
    created_at: new Date(row.created_ms).toISOString(),
    sync: syncJson(await loadSync(row.id), clock.now()),
  });

  app.post('/', async (c) => {
    const body = await readJsonObject(c);
    const unknown = Object.keys(body).find((key) => !ALLOWED_FIELDS.has(key));
    if (unknown) throw badRequest(`unknown field ${unknown}: a provider takes provider, config and an optional name`, { field: unknown });
    const provider = body.provider;
    if (typeof provider !== 'string' || !PROVIDERS.includes(provider as ProviderName)) {
      throw badRequest(`provider must be one of ${PROVIDERS.join(', ')}`, { field: 'provider' });
    }
    if (body.name !== undefined && (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 200)) {
      throw badRequest('name must be a non-empty string of at most 200 characters', { field: 'name' });
    }
    if (typeof body.config !== 'object' || body.config === null || Array.isArray(body.config)) {
      throw badRequest(`config is required: an object with the ${provider} settings`, { field: 'config' });
    }
    const parsed = services.kinds[provider as ProviderName].parse(body.config);
    const { projectId } = c.get('caller');
    const now = clock.now();
    const row: ProviderRow = {
      id: `cp_${randomBytes(10).toString('hex')}`,
      project_id: projectId,
      provider,
      name: typeof body.name === 'string' ? body.name.trim() : null,
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

  app.get('/', async (c) => {
    const rows = await db.selectFrom('cost_providers').selectAll().where('project_id', '=', c.get('caller').projectId).orderBy('created_ms').orderBy('id').execute();
    return c.json({ data: await Promise.all(rows.map(providerJson)) });
  });

  app.get('/:id', async (c) => c.json(await providerJson(await load(c.get('caller').projectId, c.req.param('id')))));

  // Deleting a connection deletes the cost data read through it: reports must not show what can no longer be synced.
  app.delete('/:id', async (c) => {
    const row = await load(c.get('caller').projectId, c.req.param('id'));
    await db.transaction().execute(async (trx) => {
      for (const table of ['cost_daily', 'cost_resources', 'cost_syncs'] as const) await trx.deleteFrom(table).where('provider_id', '=', row.id).execute();
      await trx.deleteFrom('cost_providers').where('id', '=', row.id).execute();
    });
    return c.body(null, 204);
  });

  app.get('/:id/sync', async (c) => {
    const row = await load(c.get('caller').projectId, c.req.param('id'));
    return c.json(syncJson(await loadSync(row.id), clock.now()));
  });

  /** Runs the sync now instead of at its daily time: after fixing a role, or to see new data sooner. */
  app.post('/:id/sync', async (c) => {
    const row = await load(c.get('caller').projectId, c.req.param('id'));
    const now = clock.now();
    const updated = await db
      .updateTable('cost_syncs')
      .set({ next_run_ms: now })
      .where('provider_id', '=', row.id)
      .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', now)]))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) throw new ApiError(409, 'sync_running', `a sync of cost provider ${row.id} is running; see GET .../sync for its result`);
    services.sync.wake();
    return c.json(syncJson(await loadSync(row.id), now), 202);
  });

  return app;
}
