import type { InferResponseType } from 'hono/client';
import type { ChannelType, DeliveryState } from '../../../../src/api-types';
import type { channelsClient, deliveriesClient, rulesClient } from '../../api/typed';

/**
 * What the notification routes answer, as the server's schemas (server/src/notify/schemas.ts) declare them, imported as
 * types only, so a renamed field breaks this build.
 */

export type { ChannelType };
/** The channel kinds in the order the form offers them. */
export const CHANNEL_TYPES = [
  'webhook',
  'chat',
  'teams',
  'email',
  'sms',
  'voice',
] as const satisfies readonly ChannelType[];

/** A channel; `signing_secret` only in the answer that created a webhook whose secret the server made (shown once). */
export type Channel = InferResponseType<typeof channelsClient.index.$get, 200>['data'][number] & {
  signing_secret?: string;
};
export type Rule = InferResponseType<typeof rulesClient.index.$get, 200>['data'][number];
export type Delivery = InferResponseType<typeof deliveriesClient.deliveries.$get, 200>['data'][number];

/** The delivery log's state filter. */
export const DELIVERY_STATES = [
  'scheduled',
  'sent',
  'delivered',
  'failed',
  'retrying',
  'cancelled',
] as const satisfies readonly DeliveryState[];

/** Incident severities, `warning` among them (the one issue events carry), as rules may name them. */
export { SEVERITIES } from '../incidents/types';
