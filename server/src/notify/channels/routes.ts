import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { badRequest } from '../../http/errors';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../../http/openapi';
import { AnyObject, idParams, listOf, text } from '../../http/schemas';
import { isKnownPrivateHost, PRIVATE_TARGETS_HINT } from '../http/ssrf';
import { CHANNEL_TYPES, type ChannelType } from '../kinds/types';
import { Channel } from '../schemas';
import type { NotifyServices } from '../services';
import { secretsSet, withKeptSecrets } from './secrets';
import { deleteChannel, insertChannel, listChannels, loadChannel, updateChannel, type ChannelRow } from './store';

/** Channel config as the API shows it: what its kind makes public, never a secret, and which secrets are set. */
function channelJson(services: NotifyServices, row: ChannelRow) {
  const type = row.type as ChannelType;
  return {
    id: row.id,
    type,
    name: row.name,
    config: services.kinds[type].publicConfig(JSON.parse(row.config) as unknown),
    secrets_set: secretsSet(type, services.box.open<Record<string, unknown>>(row.secrets)),
    created_at: new Date(row.created_ms).toISOString(),
  };
}

/**
 * What an edit changes, as it was: the name if given, the public config if the config is (the audit log's `before`;
 * the request, secrets redacted, is its `after`).
 */
function editedFields(was: ReturnType<typeof channelJson>, edit: { name?: string; config?: unknown }) {
  return {
    ...(edit.name !== undefined && { name: was.name }),
    ...(edit.config !== undefined && { config: was.config }),
  };
}

/**
 * A channel's config checked by its kind, on creation and on every edit: the columns to store (the secrets sealed), and
 * the signing secret when the server made one. A target this server would refuse to connect to is refused here, so
 * the mistake shows when the channel is saved, not at its first notification.
 */
async function parseConfig(
  services: NotifyServices,
  projectId: string,
  type: ChannelType,
  config: Record<string, unknown>,
) {
  const kind = services.kinds[type];
  const parsed = await kind.parse(config, { integrations: services.integrations.of(projectId) });
  if (!services.allowPrivateTargets) {
    for (const { field, host } of kind.targets?.(parsed.config, parsed.secrets) ?? []) {
      if (isKnownPrivateHost(host))
        throw badRequest(`${field}: ${host} is a private or reserved address; ${PRIVATE_TARGETS_HINT}`, { field });
    }
  }
  const secrets = parsed.secrets as { secret?: string; generated?: boolean };
  return {
    columns: { config: JSON.stringify(parsed.config), secrets: services.box.seal(parsed.secrets) },
    generated: secrets.generated ? secrets.secret : undefined,
  };
}

const control = { tags: ['notifications'] };

const ChannelName = text();
const ChannelConfig = AnyObject.openapi({ description: 'The settings of this channel type (docs/notifications.md)' });

const createChannelRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'post',
  path: '/',
  summary: 'Create a channel',
  description:
    'A target on a loopback or private address known without DNS (an IP literal, `localhost`) is refused with 400 naming the field, unless the server ' +
    'runs with `--allow-private-targets true` (`SVC_ALLOW_PRIVATE_TARGETS`); names are checked on the addresses DNS gives when connecting.',
  middleware: [readControlJson],
  request: {
    body: jsonBody(
      z.strictObject({
        type: z.enum(CHANNEL_TYPES),
        name: ChannelName,
        config: ChannelConfig,
      }),
      { type: 'webhook', name: 'on-call webhook', config: { url: 'https://hooks.example.com/svc' } },
    ),
  },
  responses: {
    201: jsonAnswer(
      'Created',
      Channel.extend({
        signing_secret: z
          .string()
          .optional()
          .openapi({ description: 'Webhook only, when the server made the secret: shown once' }),
      }),
    ),
    ...errors(400, 401, 403, 413, 415),
  },
});

const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: 'Notification channels',
  responses: { 200: jsonAnswer('Channels', listOf(Channel)), ...errors(401, 403) },
});

const getRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/{id}',
  summary: 'One channel',
  request: { params: idParams('Channel id') },
  responses: { 200: jsonAnswer('The channel', Channel), ...errors(400, 401, 403, 404) },
});

const editRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'patch',
  path: '/{id}',
  summary: "Edit a channel's name or config",
  description:
    '`config`, when given, replaces the whole config and is validated as on creation. A secret field it leaves out (`secrets_set` lists them) keeps its ' +
    'stored value; null clears it where the type allows. Secrets are never returned. The type cannot change.',
  middleware: [readControlJson],
  request: {
    params: idParams('Channel id'),
    body: jsonBody(z.strictObject({ name: ChannelName.optional(), config: ChannelConfig.optional() }), {
      name: 'on-call webhook',
      config: { url: 'https://hooks.example.com/svc/v2' },
    }),
  },
  responses: { 200: jsonAnswer('The channel', Channel), ...errors(400, 401, 403, 404, 413, 415) },
});

const deleteRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a channel and its delivery log',
  request: { params: idParams('Channel id') },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});

/** `POST/GET/PATCH/DELETE /control-plane/notifications/channels` (SPEC 2.4). */
export function channelRoutes(services: NotifyServices) {
  return createRouter()
    .openapi(createChannelRoute, async (c) => {
      const { type, name, config } = c.req.valid('json');
      const { projectId } = c.get('caller');
      const { columns, generated } = await parseConfig(services, projectId, type, config);
      const row: ChannelRow = {
        id: `ch_${randomBytes(10).toString('hex')}`,
        project_id: projectId,
        type,
        name,
        ...columns,
        created_ms: services.clock.now(),
      };
      await insertChannel(services.db, row);
      // A signing secret the server made is shown once, like an API key: it is stored sealed and never returned again.
      const once = generated ? { signing_secret: generated } : {};
      return c.json({ ...channelJson(services, row), ...once }, 201);
    })
    .openapi(listRoute, async (c) => {
      const rows = await listChannels(services.db, c.get('caller').projectId);
      return c.json({ data: rows.map((row) => channelJson(services, row)) }, 200);
    })
    .openapi(getRoute, async (c) =>
      c.json(
        channelJson(services, await loadChannel(services.db, c.get('caller').projectId, c.req.valid('param').id)),
        200,
      ),
    )
    .openapi(editRoute, async (c) => {
      const { projectId } = c.get('caller');
      const row = await loadChannel(services.db, projectId, c.req.valid('param').id);
      const { name, config } = c.req.valid('json');
      const type = row.type as ChannelType;
      // Secrets left out are kept, so the edit never makes a new webhook signing secret.
      const changes = {
        ...(name !== undefined ? { name } : {}),
        ...(config !== undefined
          ? (
              await parseConfig(
                services,
                projectId,
                type,
                withKeptSecrets(type, config, services.box.open(row.secrets)),
              )
            ).columns
          : {}),
      };
      if (Object.keys(changes).length > 0) await updateChannel(services.db, projectId, row.id, changes);
      c.set('audit', { before: editedFields(channelJson(services, row), { name, config }) });
      return c.json(channelJson(services, { ...row, ...changes }), 200);
    })
    .openapi(deleteRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const { name, type, config } = channelJson(services, await loadChannel(services.db, projectId, id));
      await deleteChannel(services.db, projectId, id);
      c.set('audit', { before: { name, type, config } });
      return c.body(null, 204);
    });
}
