import type { z } from 'zod';
import type { ChannelType } from '../../../../src/notify/kinds/types';
import type * as schemas from '../../../../src/notify/schemas';

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
export type Channel = z.output<typeof schemas.Channel> & { signing_secret?: string };
export type Rule = z.output<typeof schemas.Rule>;
export type Delivery = z.output<typeof schemas.Delivery>;

/** The delivery log's state filter. */
export const DELIVERY_STATES = [
  'scheduled',
  'sent',
  'delivered',
  'failed',
  'retrying',
  'cancelled',
] as const satisfies ReadonlyArray<(typeof schemas.DELIVERY_STATES)[number]>;

/** Incident severities, `warning` among them (the one issue events carry), as rules may name them. */
export { SEVERITIES } from '../incidents/types';
