import { SEVERITIES, INCIDENT_STATUSES } from './incidents/types';
import { CHANNEL_TYPES } from './notify/kinds/types';
import { IncidentAnalysis } from './openapi-ai';
import { body, control, created, errorRefs, idParam, json, noContent, obj, ok, param, signedQuery, str, strings, strOrNull, time, timeOrNull, type Schema } from './openapi-parts';

/** OpenAPI paths of incidents, notifications and integrations (docs/incidents.md, docs/notifications.md). */
const pageOf = (item: Schema) => obj({ data: { type: 'array', items: item }, next_cursor: strOrNull }, ['data', 'next_cursor']);
const pageParams = [
  param('limit', 'query', 'Page size', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
  param('cursor', 'query', '`next_cursor` of the previous page'),
];

const Incident = obj({
  id: str,
  title: str,
  severity: { type: 'string', enum: [...SEVERITIES] },
  status: { type: 'string', enum: [...INCIDENT_STATUSES] },
  env: str,
  services: strings,
  root_cause_summary: str,
  dashboard_url: { type: 'string', format: 'uri' },
  source: { type: 'string', enum: ['detector', 'api'] },
  fingerprint: strOrNull,
  evidence: { type: ['object', 'null'], description: 'docs/incidents.md, "Evidence and root-cause summary"' },
  cost_impact: { type: ['object', 'null'] },
  detected_at: time,
  escalated_at: timeOrNull,
  acknowledged_at: timeOrNull,
  acknowledged_by: strOrNull,
  resolved_at: timeOrNull,
  resolved_by: strOrNull,
  updated_at: time,
});
const Channel = obj({ id: str, type: { type: 'string', enum: [...CHANNEL_TYPES] }, name: str, config: { type: 'object', description: 'Without any secret' }, created_at: time });
const Rule = obj({
  id: str,
  name: str,
  position: { type: 'integer' },
  conditions: obj({ severity: strings, env: strings, services: strings }),
  channels: strings,
  delay_seconds: { type: 'integer' },
  created_at: time,
});
const Delivery = obj({
  id: str,
  channel_id: str,
  channel_type: str,
  incident_id: strOrNull,
  /** Set for `issue.regressed` deliveries, which have no incident. */
  issue_id: strOrNull,
  event: str,
  trigger: { type: 'string', enum: ['incident', 'issue', 'test'] },
  rule_id: strOrNull,
  state: { type: 'string', enum: ['scheduled', 'sent', 'delivered', 'failed', 'retrying', 'cancelled'] },
  attempt: { type: 'integer' },
  next_attempt_at: timeOrNull,
  latency_ms: { type: ['integer', 'null'] },
  response: { type: ['object', 'null'], properties: { status: { type: ['integer', 'null'] }, body: strOrNull } },
  error_class: strOrNull,
  error_message: strOrNull,
  provider_ref: strOrNull,
  created_at: time,
  updated_at: time,
  completed_at: timeOrNull,
});

const incidentMove = (verb: string) => ({
  post: control(`${verb} an incident (no-op when it already is)`, { ...ok('The incident', Incident), ...errorRefs(404) }, {
    ...idParam('Incident id'),
    requestBody: { required: false, content: json(obj({ by: { type: 'string', description: 'Who; default: the key\'s name' } })) },
  }),
});
const linkAction = (verb: string) => ({
  get: { tags: ['incidents'], summary: `Signed ${verb} link: a confirmation page (GET changes nothing)`, parameters: [param('id', 'path', 'Incident id'), ...signedQuery], responses: { '200': { description: 'HTML' }, '403': { description: 'Altered or expired link' } } },
  post: {
    tags: ['incidents'],
    summary: `${verb} through a signed link; a form with \`Digits\` (a voice keypress) is answered with TwiML`,
    parameters: [param('id', 'path', 'Incident id'), ...signedQuery],
    responses: { '200': { description: 'HTML, or TwiML for a keypress' }, '403': { description: 'Altered or expired link' }, '404': { description: 'No such incident' } },
  },
});
const chatInbound = (summary: string) => ({
  post: {
    tags: ['integrations'],
    summary,
    description: 'Signed by the chat app (`X-Slack-Signature` v0, at most 5 minutes old); form-encoded.',
    parameters: [param('projectId', 'path', 'The project whose chat app signs the request')],
    responses: { '200': { description: 'An ephemeral message for the user' }, ...errorRefs(400, 401, 403, 404) },
  },
});

export const INCIDENT_PATHS = {
  '/control-plane/incidents': {
    get: control('Incidents, newest first', ok('A page', pageOf(Incident)), {
      parameters: [param('status', 'query', 'Filter', { type: 'string', enum: [...INCIDENT_STATUSES] }), param('severity', 'query', 'Filter', { type: 'string', enum: [...SEVERITIES] }), ...pageParams],
    }),
    post: control('Open an incident (external detectors)', created(Incident), {
      ...body(obj({ title: str, severity: { type: 'string', enum: [...SEVERITIES] }, env: str, services: strings, root_cause_summary: str }, ['title', 'severity'])),
    }),
  },
  '/control-plane/incidents/{id}': {
    get: control('One incident, with the latest analysis of its issue', { ...ok('The incident', { allOf: [Incident, obj({ analysis: IncidentAnalysis })] }), ...errorRefs(404) }, idParam('Incident id')),
  },
  '/control-plane/incidents/{id}/acknowledge': incidentMove('Acknowledge'),
  '/control-plane/incidents/{id}/resolve': incidentMove('Resolve'),
  '/control-plane/notifications/channels': {
    get: control('Notification channels', ok('Channels', obj({ data: { type: 'array', items: Channel } }))),
    post: control('Create a channel', created({ allOf: [Channel, obj({ signing_secret: { type: 'string', description: 'Webhook only, when the server made the secret: shown once' } })] }), {
      ...body(obj({ type: { type: 'string', enum: [...CHANNEL_TYPES] }, name: str, config: { type: 'object' } }, ['type', 'name', 'config'])),
    }),
  },
  '/control-plane/notifications/channels/{id}': {
    get: control('One channel', { ...ok('The channel', Channel), ...errorRefs(404) }, idParam('Channel id')),
    delete: control('Delete a channel and its delivery log', noContent, idParam('Channel id')),
  },
  '/control-plane/notifications/rules': {
    get: control('Rules in evaluation order', ok('Rules', obj({ data: { type: 'array', items: Rule } }))),
    post: control('Create a rule (evaluated after the existing ones)', created(Rule), {
      ...body(obj({ name: str, conditions: obj({ severity: strings, env: strings, services: strings }), channels: strings, delay_seconds: { type: 'integer', minimum: 0, maximum: 604800 } }, ['name', 'channels'])),
    }),
  },
  '/control-plane/notifications/rules/{id}': { delete: control('Delete a rule', noContent, idParam('Rule id')) },
  '/control-plane/notifications/deliveries': {
    get: control('The delivery log, newest first', ok('A page', pageOf(Delivery)), { parameters: [param('channel_id', 'query', 'Filter'), ...pageParams] }),
  },
  '/control-plane/notifications/{channelId}/test': {
    post: control('Send a synthetic incident through the channel; answers the delivery after its first attempt', { ...ok('The delivery', Delivery), ...errorRefs(404) }, {
      parameters: [param('channelId', 'path', 'Channel id')],
    }),
  },
  '/control-plane/integrations/{kind}': {
    put: control('Connect (or replace) an integration; secrets are sealed', ok('Its public config', obj({ kind: str, config: { type: 'object' } })), {
      parameters: [param('kind', 'path', 'Integration', { type: 'string', enum: ['chat-app', 'telephony'] })],
      requestBody: { required: true, content: json({ type: 'object' }) },
    }),
    get: control('An integration (without secrets)', { ...ok('Its public config', obj({ kind: str, config: { type: 'object' } })), ...errorRefs(404) }, {
      parameters: [param('kind', 'path', 'Integration', { type: 'string', enum: ['chat-app', 'telephony'] })],
    }),
    delete: control('Disconnect an integration', noContent, { parameters: [param('kind', 'path', 'Integration', { type: 'string', enum: ['chat-app', 'telephony'] })] }),
  },
  '/incidents/test': { get: { tags: ['incidents'], summary: 'The page test notifications link to', responses: { '200': { description: 'HTML' } } } },
  '/incidents/{id}': {
    get: { tags: ['incidents'], summary: 'The incident page (`dashboard_url`), through a signed link', parameters: [param('id', 'path', 'Incident id'), ...signedQuery], responses: { '200': { description: 'HTML' }, '403': { description: 'Altered or expired link' } } },
  },
  '/incidents/{id}/acknowledge': linkAction('Acknowledge'),
  '/incidents/{id}/resolve': linkAction('Resolve'),
  '/integrations/chat/{projectId}/interactions': chatInbound('Chat app button clicks (acknowledge, resolve)'),
  '/integrations/chat/{projectId}/commands': chatInbound('The /svc slash command (`/svc status`)'),
};
