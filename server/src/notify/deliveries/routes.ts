import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import { checkParams, keysetPage, readCursor, readLimit } from '../../query/params';
import { loadChannel } from '../channels/routes';
import type { ChannelType } from '../kinds/types';
import { newDeliveryId, scheduledDelivery } from '../outbox/schedule';
import { deliveryJson } from '../outbox/worker';
import type { NotifyServices } from '../services';
import { testNotice } from './notice';

/** `GET /notifications/deliveries`: 50 per page by default, at most 200 (docs/notifications.md). */
export const DELIVERY_PAGE = { default: 50, max: 200 } as const;

/** How long `POST /{channel_id}/test` waits for the first attempt beyond the kind's own timeout. */
const TEST_MARGIN_MS = 5_000;

/** The delivery log and the test endpoint, under `/control-plane/notifications`. */
export function deliveryRoutes(services: NotifyServices) {
  const app = new Hono<AppEnv>();

  app.get('/deliveries', async (c) => {
    checkParams(c, ['channel_id', 'limit', 'cursor']);
    const limit = readLimit(c, DELIVERY_PAGE.default, DELIVERY_PAGE.max);
    const cursor = readCursor(c, 'string');
    const channelId = c.req.query('channel_id');
    let query = services.db.selectFrom('deliveries').selectAll().where('project_id', '=', c.get('caller').projectId);
    if (channelId) query = query.where('channel_id', '=', channelId);
    if (cursor) {
      query = query.where((eb) => eb.or([eb('created_ms', '<', cursor.t), eb.and([eb('created_ms', '=', cursor.t), eb('id', '<', String(cursor.k))])]));
    }
    const rows = await query.orderBy('created_ms', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
    return c.json(keysetPage(rows, limit, deliveryJson, (d) => ({ t: d.created_ms, k: d.id })));
  });

  app.post('/:channelId/test', async (c) => {
    const { projectId } = c.get('caller');
    const channel = await loadChannel(services, projectId, c.req.param('channelId'));
    const now = services.clock.now();
    const id = newDeliveryId();
    const notice = JSON.stringify(testNotice(services.publicUrl(), now));
    const fields = { id, project_id: projectId, channel_id: channel.id, channel_type: channel.type, incident_id: null, rule_id: null, notice };
    await services.db
      .insertInto('deliveries')
      .values(scheduledDelivery({ ...fields, event: 'incident.created', trigger: 'test', dedupe_key: id }, now, now))
      .execute();
    services.outbox.wake();
    const timeoutMs = (services.kinds[channel.type as ChannelType]?.retry.timeoutMs ?? 10_000) + TEST_MARGIN_MS;
    const row = await firstAttempt(services, id, timeoutMs);
    return c.json(deliveryJson(row));
  });

  return app;
}

/** The delivery once its first attempt is recorded, or as it is when `timeoutMs` ran out. */
async function firstAttempt(services: NotifyServices, id: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await services.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    if (row.attempt > 0 || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
