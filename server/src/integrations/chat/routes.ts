import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Kysely } from 'kysely';
import { auditedMove } from '../../audit/record-keyless';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import { readBody } from '../../http/body';
import { ApiError, badRequest, errorResponse, refusalOf } from '../../http/errors';
import { createRouter, documentedRoute, errors, jsonAnswer } from '../../http/openapi';
import type { IncidentCommands, IncidentView } from '../../incidents/types';
import { CHAT_ACTIONS, escapeMrkdwn } from '../../notify/kinds/chat/blocks';
import { STATUS_LABEL } from '../../notify/kinds/chat/text';
import { singleLine } from '../../notify/kinds/notice-wording';
import type { Integrations } from '../../notify/kinds/types';
import { findChatApp, type ChatAppAccount } from './account';
import { signatureProblem } from './signature';
import { statusText } from './status';

export interface ChatIntegrationDeps {
  commands: IncidentCommands;
  db: Kysely<Database>;
  integrations: (projectId: string) => Integrations;
  clock: Clock;
}

/** Interaction and command bodies are a few kilobytes; anything much larger is not from the chat app. */
const MAX_BODY_BYTES = 256 * 1024;

/** What each card button does to the incident. */
const BUTTON_MOVES = new Map<string, 'acknowledge' | 'resolve'>([
  [CHAT_ACTIONS.acknowledge, 'acknowledge'],
  [CHAT_ACTIONS.resolve, 'resolve'],
]);

/** A verified request: its project, the project's chat app account and the form fields. */
interface ChatRequest {
  projectId: string;
  account: ChatAppAccount;
  form: URLSearchParams;
}

const Ephemeral = z.object({ response_type: z.literal('ephemeral'), replace_original: z.boolean(), text: z.string() });

/** Described from these schemas; read by verifiedRequest, which checks the signature over the exact bytes received. */
const chatRoute = (
  path: 'interactions' | 'commands',
  summary: string,
  form: z.ZodObject,
  example: Record<string, string>,
) =>
  createRoute({
    method: 'post',
    path: `/{projectId}/${path}`,
    tags: ['integrations'],
    summary,
    description: 'Signed by the chat app (`X-Slack-Signature` v0, at most 5 minutes old); form-encoded.',
    request: {
      params: z.object({
        projectId: z.string().openapi({ description: 'The project whose chat app signs the request' }),
      }),
      headers: z.object({ 'x-slack-signature': z.string(), 'x-slack-request-timestamp': z.string() }),
      body: { required: true, content: { 'application/x-www-form-urlencoded': { schema: form, example } } },
    },
    responses: { 200: jsonAnswer('An ephemeral message for the user', Ephemeral), ...errors(400, 401, 403, 404, 413) },
  });

const interactionsRoute = chatRoute(
  'interactions',
  'Chat app button clicks (acknowledge, resolve)',
  z.object({ payload: z.string().openapi({ description: 'The interaction, as JSON text' }) }),
  {
    payload:
      '{"type":"block_actions","team":{"id":"T01"},"user":{"username":"alice"},"actions":[{"action_id":"incident_acknowledge","value":"inc_0123"}]}',
  },
);
const commandsRoute = chatRoute(
  'commands',
  'The /svc slash command (`/svc status`)',
  z.object({ command: z.string().optional(), text: z.string().optional(), team_id: z.string().optional() }),
  { command: '/svc', text: 'status', team_id: 'T01' },
);

/**
 * The chat app's request URLs, per project: `POST /:projectId/interactions` (button clicks) and
 * `POST /:projectId/commands` (`/svc status`). Every request must carry a valid, recent signature of the project's chat
 * app. Answers are immediate: a button moves the incident and says so to the clicker only; the card itself is edited,
 * and the move recorded in its thread, by the notification the move triggers (the chat kind), like any other update.
 */
export function chatIntegrationRoutes(deps: ChatIntegrationDeps) {
  const app = createRouter();
  app.onError((error, c) => {
    const refusal = refusalOf(error);
    if (refusal) return errorResponse(c, refusal);
    throw error;
  });

  documentedRoute(app, interactionsRoute, async (c) => {
    const { projectId, form, account } = await verifiedRequest(c, deps);
    const interaction = interactionOf(form);
    requireWorkspace(account, interaction.team?.id);
    const action = interaction.type === 'block_actions' ? interaction.actions?.[0] : undefined;
    if (!action) return c.json(ephemeral('This kind of interaction is not supported by the svc app.'));
    // A link button opens its URL in the browser; the interaction it also sends needs nothing but a 200.
    if (action.action_id === CHAT_ACTIONS.openDashboard) return c.body(null, 200);
    const move = BUTTON_MOVES.get(action.action_id ?? '');
    if (!move || typeof action.value !== 'string')
      return c.json(ephemeral(`Unknown action "${action.action_id ?? ''}": nothing was changed.`));
    const user = interaction.user?.username ?? interaction.user?.name ?? interaction.user?.id ?? 'unknown';
    const by = `chat:${user}`;
    const incidentId = action.value;
    const operation = `POST /integrations/chat/{projectId}/interactions (${move})`;
    const incident = await auditedMove(
      deps,
      c,
      { projectId, incidentId, operation, actor: { kind: 'chat', id: by, label: by } },
      () => deps.commands[move](projectId, incidentId, by),
    );
    return c.json(ephemeral(incident ? moveText(incident) : `Incident ${action.value} was not found in this project.`));
  });

  documentedRoute(app, commandsRoute, async (c) => {
    const { projectId, form, account } = await verifiedRequest(c, deps);
    requireWorkspace(account, form.get('team_id') ?? undefined);
    const command = form.get('command') ?? '/svc';
    const [word = ''] = (form.get('text') ?? '').trim().split(/\s+/);
    switch (word.toLowerCase()) {
      case 'status':
        return c.json(ephemeral(statusText(await deps.commands.listOpen(projectId))));
      case '':
      case 'help':
        return c.json(ephemeral(`\`${command} status\` lists the open incidents of this project, most severe first.`));
      default:
        return c.json(ephemeral(`Unknown command \`${command} ${word}\`. Try \`${command} status\`.`));
    }
  });

  return app;
}

/** Only the person who clicked or typed sees it; the channel is not disturbed. */
const ephemeral = (text: string) => ({ response_type: 'ephemeral', replace_original: false, text });

function moveText(incident: IncidentView): string {
  const by =
    incident.status === 'resolved'
      ? incident.resolved_by
      : incident.status === 'acknowledged'
        ? incident.acknowledged_by
        : null;
  return `<${incident.dashboard_url}|${escapeMrkdwn(singleLine(incident.title))}> is ${STATUS_LABEL[incident.status].toLowerCase()}${by ? ` (by ${by})` : ''}.`;
}

/** Reads the body once and checks the signature over exactly those bytes with the project's signing secret. */
async function verifiedRequest(c: Context, deps: ChatIntegrationDeps): Promise<ChatRequest> {
  const projectId = c.req.param('projectId') ?? '';
  const account = await findChatApp(deps.integrations(projectId));
  if (!account) throw new ApiError(404, 'not_found', 'no chat app integration is connected for this project');
  const rawBody = new TextDecoder().decode(
    await readBody(c, MAX_BODY_BYTES, "the chat app requests' fixed limit of 256 KiB"),
  );
  const problem = signatureProblem(
    { timestamp: c.req.header('x-slack-request-timestamp'), signature: c.req.header('x-slack-signature'), rawBody },
    account.signingSecret,
    deps.clock.now(),
  );
  if (problem) throw new ApiError(401, 'unauthorized', problem);
  return { projectId, account, form: new URLSearchParams(rawBody) };
}

/** When the integration names a workspace, requests must come from it: one app may be installed in several. */
function requireWorkspace(account: ChatAppAccount, team: string | undefined): void {
  if (account.team !== undefined && team !== account.team) {
    throw new ApiError(
      403,
      'forbidden',
      'the request comes from a workspace other than the one this project is connected to',
    );
  }
}

/** The parts of a `payload` form field (an interaction) that the routes read. */
interface Interaction {
  type?: string;
  team?: { id?: string };
  user?: { id?: string; username?: string; name?: string };
  actions?: Array<{ action_id?: string; value?: unknown }>;
}

function interactionOf(form: URLSearchParams): Interaction {
  const payload = form.get('payload');
  if (payload === null) throw badRequest('an interaction request carries a payload form field', { field: 'payload' });
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Interaction;
  } catch {
    // answered below, like a payload that is JSON but not an object
  }
  throw badRequest('the payload form field is not a JSON object', { field: 'payload' });
}
