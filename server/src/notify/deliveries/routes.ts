import { createRoute, z } from '@hono/zod-openapi';
import { outsideTheChange } from '../../db/request-transaction';
import { createRouter, errors, jsonAnswer, needs } from '../../http/openapi';
import { cursorQuery, limitQuery, pageOf, orderQuery } from '../../http/schemas';
import { readSortedCursor, sortedPage } from '../../shared/keyset';
import { loadChannel } from '../channels/store';
import type { ChannelType } from '../kinds/types';
import { newDeliveryId, scheduledDelivery } from '../outbox/schedule';
import { deliveryJson } from './json';
import { Delivery, DELIVERY_SORTS, DELIVERY_STATES } from '../schemas';
import type { NotifyServices } from '../services';
import { testNotice } from './notice';
import { deliveryById, deliveryPosition, insertDelivery, listDeliveries, type DeliveryFilter } from './store';

/** `GET /notifications/deliveries`: 50 per page by default, at most 200 (docs/notifications.md). */
export const DELIVERY_PAGE = { default: 50, max: 200 } as const;

/** How long `POST /{channel_id}/test` waits for the first attempt beyond the kind's own timeout. */
const TEST_MARGIN_MS = 5_000;

const control = { tags: ['notifications'] };

const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/deliveries',
  summary: 'The delivery log, newest first unless `sort` and `order` say otherwise',
  description:
    'Each delivery with its state, attempts, latency of the last attempt and the start of the last answer (status, body).',
  request: {
    query: z.strictObject({
      channel_id: z.string().optional().openapi({ description: "Only this channel's deliveries" }),
      incident_id: z.string().optional().openapi({ description: "Only this incident's deliveries" }),
      state: z.enum(DELIVERY_STATES).optional().openapi({ description: 'Only deliveries in this state' }),
      sort: z.enum(DELIVERY_SORTS).default('created').openapi({
        description:
          'Order: creation (default) or latency of the last attempt, where a delivery not attempted yet comes below any latency; ties by id',
      }),
      order: orderQuery('desc (default): newest, slowest first'),
      limit: limitQuery(DELIVERY_PAGE.default, DELIVERY_PAGE.max),
      cursor: cursorQuery.openapi({ description: '`next_cursor` of the previous page of the same sort and order' }),
    }),
  },
  responses: { 200: jsonAnswer('A page', pageOf(Delivery)), ...errors(400, 401, 403) },
});

const testRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'post',
  path: '/{channelId}/test',
  summary: 'Send a synthetic incident through the channel; answers the delivery after its first attempt',
  request: { params: z.object({ channelId: z.string().min(1).openapi({ description: 'Channel id' }) }) },
  responses: { 200: jsonAnswer('The delivery', Delivery), ...errors(400, 401, 403, 404) },
});

/** The delivery log and the test endpoint, under `/control-plane/notifications`. */
export function deliveryRoutes(services: NotifyServices) {
  return createRouter()
    .openapi(listRoute, async (c) => {
      const {
        limit,
        channel_id: channelId,
        incident_id: incidentId,
        state,
        sort,
        order,
        cursor: rawCursor,
      } = c.req.valid('query');
      // Latencies are fractional milliseconds; cursors from before the log could be sorted were by creation, newest first.
      const ks: DeliveryFilter['ks'] = {
        sort,
        order,
        value: sort === 'latency' ? 'number' : 'integer',
        defaultSort: 'created',
      };
      const after = readSortedCursor(rawCursor, ks);
      const filter = { channelId, incidentId, state, ks, after, limit: limit + 1 };
      const rows = await listDeliveries(services.db, c.get('caller').projectId, filter);
      return c.json(
        sortedPage(rows, limit, ks, deliveryJson, (row) => deliveryPosition(sort, row)),
        200,
      );
    })
    .openapi(testRoute, async (c) => {
      const { projectId } = c.get('caller');
      const channel = await loadChannel(services.db, projectId, c.req.valid('param').channelId);
      const now = services.clock.now();
      const id = newDeliveryId();
      const notice = JSON.stringify(testNotice(services.publicUrl(), now));
      const fields = {
        id,
        project_id: projectId,
        channel_id: channel.id,
        channel_type: channel.type,
        incident_id: null,
        rule_id: null,
        notice,
      };
      const delivery = { ...fields, event: 'incident.created', trigger: 'test', dedupe_key: id };
      // Stored and sent at once, outside the request's transaction: the outbox must see it while this request waits.
      await outsideTheChange(async () => {
        await insertDelivery(services.db, scheduledDelivery(delivery, now, now));
        services.outbox.wake();
      });
      const timeoutMs = (services.kinds[channel.type as ChannelType]?.retry.timeoutMs ?? 10_000) + TEST_MARGIN_MS;
      return c.json(deliveryJson(await firstAttempt(services, id, timeoutMs)), 200);
    });
}

/** The delivery once its first attempt is recorded, or as it is when `timeoutMs` ran out. */
async function firstAttempt(services: NotifyServices, id: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await deliveryById(services.db, id);
    if (row.attempt > 0 || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
