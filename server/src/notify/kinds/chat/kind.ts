import { DomainError } from '../../../shared/domain-errors';
import { findChatApp, type ChatAppAccount } from '../../../integrations/chat/account';
import { chatApi, type PostedMessage } from './api';
import { incidentMessage, threadReply } from './blocks';
import { configObject, invalidField, webhookUrl } from '../config-fields';
import { CHAT_RETRY_POLICY, isAnswer, postJson } from './http';
import { MAX_STORED_BODY, outcomeOfAnswer } from '../outcome';
import type { ChannelKind, SendContext, SendOutcome } from '../types';

/** What the API shows of a chat channel: the room, and the host of the webhook (its path holds the token). */
export interface ChatConfig {
  channel: string;
  webhook_host: string | null;
}

/** The incoming-webhook URL is a credential: whoever has it can post to the room. Null in app-only mode. */
export interface ChatSecrets {
  webhook_url: string | null;
}

/** `#` and a room name: no spaces, at most 80 characters (Slack's maximum). */
const ROOM = /^#[^\s#]{1,80}$/;

/** A card's place in the room, kept per (channel, incident) so later events thread under it. */
interface CardRef {
  channel: string;
  ts: string;
}

/**
 * The team chat kind (SPEC 2.4 `chat`, Slack's wire formats). With the project's chat app integration it posts through
 * the Web API: the first event of an incident posts the card with Acknowledge/Resolve buttons, later events edit that
 * card and reply in its thread. Without it, it posts the card to the incoming webhook, with the signed links as buttons.
 */
export const chatKind: ChannelKind<ChatConfig, ChatSecrets> = {
  type: 'chat',

  async parse(config, { integrations }) {
    const input = configObject(config, ['webhook_url', 'channel']);
    if (typeof input.channel !== 'string' || !ROOM.test(input.channel)) {
      throw invalidField('config.channel must be a room name with a leading #, such as #incidents', 'config.channel');
    }
    if (input.webhook_url === undefined || input.webhook_url === null) {
      if (!(await integrations.get('chat_app'))) {
        throw invalidField(
          'config.webhook_url is required unless the chat app integration is connected (Settings > Integrations)',
          'config.webhook_url',
        );
      }
      return { config: { channel: input.channel, webhook_host: null }, secrets: { webhook_url: null } };
    }
    const url = webhookUrl(input.webhook_url, 'config.webhook_url');
    return { config: { channel: input.channel, webhook_host: url.host }, secrets: { webhook_url: url.href } };
  },

  publicConfig: (config) => ({ channel: config.channel, webhook_host: config.webhook_host }),

  targets: (_config, secrets) =>
    secrets.webhook_url ? [{ field: 'config.webhook_url', host: new URL(secrets.webhook_url).hostname }] : [],

  async send(context) {
    let account: ChatAppAccount | undefined;
    try {
      account = await findChatApp(context.integrations);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { state: 'failed', errorClass: 'integration_invalid', message: `chat app integration: ${error.message}` };
    }
    if (account) return sendThroughApp(context, account);
    if (context.secrets.webhook_url) return sendToWebhook(context, context.secrets.webhook_url);
    return {
      state: 'failed',
      errorClass: 'not_configured',
      message: 'the chat app integration is no longer connected and the channel has no webhook_url',
    };
  },

  retry: CHAT_RETRY_POLICY,
};

/** Incoming webhook: Slack answers `200 ok` without a message id, so there is no thread to continue. */
async function sendToWebhook(context: SendContext<ChatConfig, ChatSecrets>, url: string): Promise<SendOutcome> {
  const answer = await postJson(context.http, url, incidentMessage(context.notice, 'links'));
  return isAnswer(answer) ? outcomeOfAnswer(answer, context.clock.now()) : answer;
}

async function sendThroughApp(
  context: SendContext<ChatConfig, ChatSecrets>,
  account: ChatAppAccount,
): Promise<SendOutcome> {
  const api = chatApi(context.http, account, context.clock);
  const card = incidentMessage(context.notice, 'interactive');
  const parent = cardRef(await context.thread.get());
  if (!parent) {
    const posted = await api.call('chat.postMessage', {
      channel: context.config.channel,
      ...card,
      unfurl_links: false,
    });
    if (!posted.ok) return posted.outcome;
    await context.thread.set(JSON.stringify({ channel: posted.channel, ts: posted.ts } satisfies CardRef));
    return delivered(posted);
  }
  // Edit before replying: an edit is idempotent, so a retry after a failed edit posts no second reply.
  const edited = await api.call('chat.update', { channel: parent.channel, ts: parent.ts, ...card });
  // A card that can no longer be edited (deleted, archived room) must not hold back the reply.
  if (!edited.ok && edited.outcome.state === 'retry') return edited.outcome;
  const reply = await api.call('chat.postMessage', {
    channel: parent.channel,
    thread_ts: parent.ts,
    ...threadReply(context.notice),
    unfurl_links: false,
  });
  return reply.ok ? delivered(reply) : reply.outcome;
}

const delivered = (message: PostedMessage): SendOutcome => ({
  state: 'delivered',
  status: message.answer.status,
  body: message.answer.body.slice(0, MAX_STORED_BODY),
  providerRef: message.ts,
});

function cardRef(stored: string | undefined): CardRef | undefined {
  if (!stored) return undefined;
  try {
    const ref = JSON.parse(stored) as Partial<CardRef>;
    return typeof ref.channel === 'string' && typeof ref.ts === 'string'
      ? { channel: ref.channel, ts: ref.ts }
      : undefined;
  } catch {
    return undefined;
  }
}
