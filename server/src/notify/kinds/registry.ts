import { chatKind } from './chat/kind';
import { createEmailKind } from './email/kind';
import { smsKind } from './telephony/sms';
import { teamsKind } from './teams/kind';
import type { ChannelKind, ChannelType } from './types';
import { voiceKind } from './telephony/voice';
import { webhookKind } from './webhook';

/** Every channel kind by its `type`. */
export type KindRegistry = Readonly<Record<ChannelType, ChannelKind>>;

export function channelKinds(options: { allowPrivateTargets: boolean }): KindRegistry {
  return {
    webhook: webhookKind as ChannelKind,
    chat: chatKind as ChannelKind,
    teams: teamsKind as ChannelKind,
    sms: smsKind as ChannelKind,
    voice: voiceKind as ChannelKind,
    // SMTP does not go through the guarded HTTP client: the kind checks the address it connects to itself.
    email: createEmailKind(options) as ChannelKind,
  };
}
