import type { ChannelKind, ChannelType } from './types';
import { webhookKind } from './webhook';

/** Every channel kind by its `type`. */
export type KindRegistry = Readonly<Record<ChannelType, ChannelKind | undefined>>;

export function channelKinds(): KindRegistry {
  return { webhook: webhookKind as ChannelKind, chat: undefined, teams: undefined, sms: undefined, voice: undefined, email: undefined };
}
