import { createRoute, z } from '@hono/zod-openapi';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../http/openapi';
import { AnyObject } from '../http/schemas';
import { ACCOUNT_SID, E164, MESSAGING_SERVICE_SID, parseTelephonyIntegration } from '../notify/kinds/telephony/account';
import type { Integration, IntegrationKind } from '../notify/kinds/types';
import type { NotifyServices } from '../notify/services';
import { notFound } from '../shared/domain-errors';

/** Path segment → integration kind. */
const KINDS = { 'chat-app': 'chat_app', telephony: 'telephony' } as const satisfies Record<string, IntegrationKind>;
type Segment = keyof typeof KINDS;

const httpUrl = z.string().regex(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' });

/** The chat app (bot) installation: its token and request-signing secret. */
const ChatAppBody = z.strictObject({
  bot_token: z.string().regex(/^xoxb-[\w-]+$/, { message: 'must be the bot token, "xoxb-…"' }),
  signing_secret: z.string().regex(/^[0-9a-f]{32,}$/i, { message: 'must be the app signing secret (hex)' }),
  api_base_url: httpUrl.default('https://slack.com/api'),
});

/** The telephony (Twilio) account; `from` or `messaging_service_sid` is required (checked by parseTelephonyIntegration). */
const TelephonyBody = z.strictObject({
  provider: z.literal('twilio').default('twilio'),
  account_sid: z.string().regex(ACCOUNT_SID, { message: 'must be "AC" followed by 32 hexadecimal characters' }),
  auth_token: z.string().min(1).regex(/^\S+$/, { message: 'must not contain whitespace' }),
  from: z.string().regex(E164, { message: 'must be an E.164 number: "+" and 8 to 15 digits' }).optional(),
  messaging_service_sid: z
    .string()
    .regex(MESSAGING_SERVICE_SID, { message: 'must be "MG" followed by 32 hexadecimal characters' })
    .optional(),
  api_base_url: z
    .string()
    .optional()
    .openapi({ description: 'An http(s) URL without credentials, query or fragment; default https://api.twilio.com' }),
});

const BODIES = { 'chat-app': ChatAppBody, telephony: TelephonyBody } as const;
const EXAMPLES: { [S in Segment]: z.input<(typeof BODIES)[S]> } = {
  'chat-app': { bot_token: 'xoxb-1234-5678-abcdef', signing_secret: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' },
  telephony: { account_sid: `AC${'0123456789abcdef'.repeat(2)}`, auth_token: 'your-auth-token', from: '+15550100000' },
};

const PARSERS: { [S in Segment]: (body: z.output<(typeof BODIES)[S]>) => Integration } = {
  'chat-app': ({ api_base_url, bot_token, signing_secret }) => ({
    config: { api_base_url: api_base_url.replace(/\/+$/, '') },
    secrets: { bot_token, signing_secret },
  }),
  telephony: (body) => parseTelephonyIntegration(body),
};

const control = { tags: ['integrations'] };
const Answer = z.object({
  kind: z.enum(['chat_app', 'telephony']),
  config: AnyObject.openapi({ description: 'Without secrets' }),
});
const KindParams = z.object({ kind: z.enum(['chat-app', 'telephony']).openapi({ description: 'Integration' }) });

const putRoute = <S extends Segment>(segment: S) =>
  createRoute({
    ...needs('project.configure'),
    ...control,
    method: 'put',
    path: `/${segment}`,
    summary: `Connect (or replace) the ${segment} integration; secrets are sealed`,
    middleware: [readControlJson],
    request: { body: jsonBody(BODIES[segment], EXAMPLES[segment]) },
    responses: { 200: jsonAnswer('Its public config', Answer), ...errors(400, 401, 403, 413, 415) },
  });

const getRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/{kind}',
  summary: 'An integration (without secrets)',
  request: { params: KindParams },
  responses: { 200: jsonAnswer('Its public config', Answer), ...errors(400, 401, 403, 404) },
});

const deleteRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'delete',
  path: '/{kind}',
  summary: 'Disconnect an integration',
  request: { params: KindParams },
  responses: { 204: { description: 'Disconnected' }, ...errors(400, 401, 403, 404) },
});

const notConnected = (segment: string) => notFound(`the ${segment} integration is not connected`);

/**
 * `PUT/GET/DELETE /control-plane/integrations/{chat-app|telephony}`: the project-wide accounts of SPEC 2.4 ("connected
 * in Settings > Integrations"). Secrets are sealed and never returned.
 */
export function integrationRoutes(services: NotifyServices) {
  const app = createRouter();
  for (const segment of Object.keys(KINDS) as Segment[]) {
    app.openapi(putRoute(segment), async (c) => {
      const kind = KINDS[segment];
      const integration = PARSERS[segment](c.req.valid('json') as never);
      await services.integrations.put(c.get('caller').projectId, kind, integration);
      return c.json({ kind, config: integration.config }, 200);
    });
  }
  return app
    .openapi(getRoute, async (c) => {
      const segment = c.req.valid('param').kind;
      const integration = await services.integrations.of(c.get('caller').projectId).get(KINDS[segment]);
      if (!integration) throw notConnected(segment);
      return c.json({ kind: KINDS[segment], config: integration.config }, 200);
    })
    .openapi(deleteRoute, async (c) => {
      const segment = c.req.valid('param').kind;
      if (!(await services.integrations.remove(c.get('caller').projectId, KINDS[segment]))) throw notConnected(segment);
      return c.body(null, 204);
    });
}
