import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import type { AppEnv } from '../../http/env';
import { ApiError, badRequest } from '../../http/errors';
import { readJsonObject, requiredString } from '../../http/json-object';
import { CHANNEL_TYPES, type ChannelType } from '../kinds/types';
import type { NotifyServices } from '../services';

type ChannelRow = Selectable<Database['notification_channels']>;

export const channelNotFound = (id: string) => new ApiError(404, 'not_found', `no notification channel ${id} in this project`);

/** Loads a channel of the caller's project, or 404. */
export async function loadChannel(services: NotifyServices, projectId: string, id: string): Promise<ChannelRow> {
  const row = await services.db.selectFrom('notification_channels').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  if (!row) throw channelNotFound(id);
  return row;
}

/** Channel config as the API shows it: what its kind makes public, never a secret. */
function channelJson(services: NotifyServices, row: ChannelRow) {
  const config = JSON.parse(row.config) as unknown;
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    config: services.kinds[row.type as ChannelType].publicConfig(config),
    created_at: new Date(row.created_ms).toISOString(),
  };
}

/** `POST/GET/DELETE /control-plane/notifications/channels` (SPEC 2.4). */
export function channelRoutes(services: NotifyServices) {
  const app = new Hono<AppEnv>();

  app.post('/', async (c) => {
    const body = await readJsonObject(c);
    const type = body.type;
    if (typeof type !== 'string' || !CHANNEL_TYPES.includes(type as ChannelType)) {
      throw badRequest(`type must be one of ${CHANNEL_TYPES.join(', ')}`, { field: 'type' });
    }
    const kind = services.kinds[type as ChannelType];
    const name = requiredString(body, 'name');
    if (typeof body.config !== 'object' || body.config === null || Array.isArray(body.config)) {
      throw badRequest('config is required: an object with the settings of this channel type', { field: 'config' });
    }
    const { projectId } = c.get('caller');
    const parsed = await kind.parse(body.config, { integrations: services.integrations.of(projectId) });
    const row: ChannelRow = {
      id: `ch_${randomBytes(10).toString('hex')}`,
      project_id: projectId,
      type,
      name,
      config: JSON.stringify(parsed.config),
      secrets: services.box.seal(parsed.secrets),
      created_ms: services.clock.now(),
    };
    await services.db.insertInto('notification_channels').values(row).execute();
    const secrets = parsed.secrets as { secret?: string; generated?: boolean };
    // A signing secret the server made is shown once, like an API key: it is stored sealed and never returned again.
    const once = secrets.generated ? { signing_secret: secrets.secret } : {};
    return c.json({ ...channelJson(services, row), ...once }, 201);
  });

  app.get('/', async (c) => {
    const rows = await services.db.selectFrom('notification_channels').selectAll().where('project_id', '=', c.get('caller').projectId).orderBy('created_ms').execute();
    return c.json({ data: rows.map((row) => channelJson(services, row)) });
  });

  app.get('/:id', async (c) => c.json(channelJson(services, await loadChannel(services, c.get('caller').projectId, c.req.param('id')))));

  app.delete('/:id', async (c) => {
    const { projectId } = c.get('caller');
    const result = await services.db.deleteFrom('notification_channels').where('project_id', '=', projectId).where('id', '=', c.req.param('id')).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw channelNotFound(c.req.param('id'));
    return c.body(null, 204);
  });

  return app;
}
