import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import { ApiError, badRequest } from '../../http/errors';
import { readJsonObject } from '../../http/json-object';
import { parseTelephonyIntegration } from '../kinds/telephony/account';
import type { Integration, IntegrationKind } from '../kinds/types';
import type { NotifyServices } from '../services';

/** Path segment → integration kind. */
const KINDS: Record<string, IntegrationKind> = { 'chat-app': 'chat_app', telephony: 'telephony' };

function httpsUrl(value: unknown, field: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^https?:\/\/[^\s]+$/.test(value)) throw badRequest(`${field} must be an http(s) URL`, { field });
  return value.replace(/\/+$/, '');
}

function secretString(value: unknown, field: string, pattern: RegExp, what: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw badRequest(`${field} is required: ${what}`, { field });
  return value;
}

/** The chat app (bot) installation: its token and request-signing secret. */
function parseChatApp(body: Record<string, unknown>): Integration {
  return {
    config: { api_base_url: httpsUrl(body.api_base_url, 'api_base_url', 'https://slack.com/api') },
    secrets: {
      bot_token: secretString(body.bot_token, 'bot_token', /^xoxb-[\w-]+$/, 'the bot token, "xoxb-…"'),
      signing_secret: secretString(body.signing_secret, 'signing_secret', /^[0-9a-f]{32,}$/i, 'the app signing secret (hex)'),
    },
  };
}

const PARSERS: Record<IntegrationKind, (body: Record<string, unknown>) => Integration> = {
  chat_app: parseChatApp,
  telephony: parseTelephonyIntegration,
};

/**
 * `PUT/GET/DELETE /control-plane/integrations/{chat-app|telephony}`: the project-wide accounts of SPEC 2.4 ("connected
 * in Settings > Integrations"). Secrets are sealed and never returned.
 */
export function integrationRoutes(services: NotifyServices) {
  const app = new Hono<AppEnv>();
  const kindOf = (segment: string): IntegrationKind => {
    const kind = KINDS[segment];
    if (!kind) throw new ApiError(404, 'not_found', `no integration "${segment}"; use ${Object.keys(KINDS).join(' or ')}`);
    return kind;
  };

  app.put('/:kind', async (c) => {
    const kind = kindOf(c.req.param('kind'));
    const integration = PARSERS[kind](await readJsonObject(c));
    await services.integrations.put(c.get('caller').projectId, kind, integration);
    return c.json({ kind, config: integration.config });
  });

  app.get('/:kind', async (c) => {
    const kind = kindOf(c.req.param('kind'));
    const integration = await services.integrations.of(c.get('caller').projectId).get(kind);
    if (!integration) throw new ApiError(404, 'not_found', `the ${c.req.param('kind')} integration is not connected`);
    return c.json({ kind, config: integration.config });
  });

  app.delete('/:kind', async (c) => {
    const kind = kindOf(c.req.param('kind'));
    if (!(await services.integrations.remove(c.get('caller').projectId, kind))) throw new ApiError(404, 'not_found', `the ${c.req.param('kind')} integration is not connected`);
    return c.body(null, 204);
  });

  return app;
}
