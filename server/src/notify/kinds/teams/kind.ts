import { configObject, webhookUrl } from '../config-fields';
import { CHAT_RETRY_POLICY, isAnswer, postJson } from '../chat/http';
import { outcomeOfAnswer } from '../outcome';
import { teamsMessage } from './card';
import type { ChannelKind } from '../types';

/** What the API shows of a Teams channel: the webhook's host only; the rest of the URL is the credential. */
export interface TeamsConfig {
  webhook_host: string;
}

export interface TeamsSecrets {
  webhook_url: string;
}

/**
 * Old Office 365 connectors answer 200 with a text body when Teams refused the message, e.g. `Webhook message delivery
 * failed with error: Microsoft Teams endpoint returned HTTP error 429 …`. The status inside is the real one.
 */
const FAILED_IN_BODY = /delivery failed with error: .*HTTP error (\d{3})/i;

/**
 * The enterprise chat kind (`teams`): an Adaptive Card 1.4 posted to an incoming webhook or a Workflows (Power Automate)
 * webhook, which take the same body. 200 means posted (`delivered`); 202, the Workflows answer, only accepted (`sent`).
 */
export const teamsKind: ChannelKind<TeamsConfig, TeamsSecrets> = {
  type: 'teams',

  async parse(config) {
    const input = configObject(config, ['webhook_url']);
    const url = webhookUrl(input.webhook_url, 'config.webhook_url');
    return { config: { webhook_host: url.host }, secrets: { webhook_url: url.href } };
  },

  publicConfig: (config) => ({ webhook_host: config.webhook_host }),

  targets: (_config, secrets) => [{ field: 'config.webhook_url', host: new URL(secrets.webhook_url).hostname }],

  async send(context) {
    const answer = await postJson(context.http, context.secrets.webhook_url, teamsMessage(context.notice));
    if (!isAnswer(answer)) return answer;
    const inner = FAILED_IN_BODY.exec(answer.body);
    const outcome = outcomeOfAnswer(inner ? { ...answer, status: Number(inner[1]) } : answer, context.clock.now());
    return outcome.state === 'delivered' && answer.status === 202 ? { ...outcome, state: 'sent' } : outcome;
  },

  retry: CHAT_RETRY_POLICY,
};
