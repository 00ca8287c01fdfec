import { invalidField } from '../../notify/kinds/config-fields';
import type { Integration, Integrations } from '../../notify/kinds/types';

/** Slack's Web API; a Slack-compatible server (or a test) sets its own `api_base_url`. */
export const DEFAULT_CHAT_API_BASE_URL = 'https://slack.com/api';

/** The chat app integration of a project (Settings > Integrations), as the kind and the inbound routes use it. */
export interface ChatAppAccount {
  /** Without a trailing slash: methods are appended as `/chat.postMessage`. */
  apiBaseUrl: string;
  /** Workspace id (`T…`) requests must come from, when set: one app installed in several workspaces. */
  team: string | undefined;
  botToken: string;
  signingSecret: string;
}

/**
 * Reads and checks a `chat_app` integration: config `{ api_base_url?, team? }`, secrets `{ bot_token, signing_secret }`.
 * Throws an `invalid` DomainError naming the field, so the integrations API can validate with it too.
 */
export function chatAppAccount(integration: Integration): ChatAppAccount {
  const { config, secrets } = integration;
  const text = (value: unknown, field: string): string => {
    if (typeof value !== 'string' || value === '') throw invalidField(`${field} must be a non-empty string`, field);
    return value;
  };
  const base =
    config.api_base_url === undefined ? DEFAULT_CHAT_API_BASE_URL : text(config.api_base_url, 'config.api_base_url');
  if (!/^https?:\/\//.test(base) || !URL.canParse(base)) {
    throw invalidField(
      'config.api_base_url must be an http(s) URL such as https://slack.com/api',
      'config.api_base_url',
    );
  }
  return {
    apiBaseUrl: base.replace(/\/+$/, ''),
    team: config.team === undefined ? undefined : text(config.team, 'config.team'),
    botToken: text(secrets.bot_token, 'secrets.bot_token'),
    signingSecret: text(secrets.signing_secret, 'secrets.signing_secret'),
  };
}

/** The project's chat app account, or undefined when none is connected. */
export async function findChatApp(integrations: Integrations): Promise<ChatAppAccount | undefined> {
  const integration = await integrations.get('chat_app');
  return integration && chatAppAccount(integration);
}
