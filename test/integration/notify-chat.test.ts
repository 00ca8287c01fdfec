import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IncidentStatus } from '../../server/src/incidents/types';
import { createGuardedHttp } from '../../server/src/notify/http/guarded-http';
import { chatKind, type ChatConfig, type ChatSecrets } from '../../server/src/notify/kinds/chat/kind';
import type {
  Integration,
  Integrations,
  IncidentNotice,
  SendContext,
  ThreadRef,
} from '../../server/src/notify/kinds/types';
import { serveLocally, type LocalServer } from '../support/local-server';
import { incidentNotice } from '../support/notice';
import { refusalFrom } from '../support/refusal';

const T0 = Date.parse('2024-05-01T12:00:00Z');
const clock = { now: () => T0 };
const http = createGuardedHttp({ allowPrivateTargets: true });

/** One request a receiver got. */
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  json: any;
}

type Answer = { status: number; body: string; headers?: Record<string, string> };

interface Receiver extends LocalServer {
  received: Received[];
  /** How the receiver answers a request to `path`; tests swap it. */
  answer: (path: string) => Answer;
}

/** A local HTTP server recording JSON requests and answering with `answer(path)`, 200 `ok` (Slack's webhook) by default. */
async function receiver(): Promise<Receiver> {
  const local = await serveLocally((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      self.received.push({ path, headers: req.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const answer = self.answer(path);
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body);
    });
  });
  const self: Receiver = { ...local, received: [], answer: () => ({ status: 200, body: 'ok' }) };
  return self;
}

function notice(
  event: IncidentNotice['payload']['event'],
  status: IncidentStatus,
  overrides: Partial<IncidentNotice> = {},
): IncidentNotice {
  return incidentNotice({
    payload: {
      event,
      title: 'Checkout fails with <TypeError> & retries',
      root_cause_summary:
        'TypeError: cannot read "total" of undefined at cart.ts:88, first seen in 2.4.1; 57 sessions affected.',
    },
    status,
    ...overrides,
  });
}

const noIntegrations: Integrations = { get: async () => undefined };
const withChatApp = (integration: Integration): Integrations => ({
  get: async (kind) => (kind === 'chat_app' ? integration : undefined),
});

/** The per (channel, incident) memory the outbox keeps; here, one variable. */
function memoryThread(): ThreadRef & { value: string | undefined } {
  const thread = {
    value: undefined as string | undefined,
    get: async () => thread.value,
    set: async (ref: string) => {
      thread.value = ref;
    },
  };
  return thread;
}

function context(
  config: ChatConfig,
  secrets: ChatSecrets,
  sent: IncidentNotice,
  extra: { thread?: ThreadRef; integrations?: Integrations } = {},
): SendContext<ChatConfig, ChatSecrets> {
  return {
    config,
    secrets,
    notice: sent,
    deliveryId: 'dlv_1',
    attempt: 1,
    http,
    clock,
    thread: extra.thread ?? memoryThread(),
    integrations: extra.integrations ?? noIntegrations,
  };
}

async function parseError(
  config: unknown,
  integrations = noIntegrations,
): Promise<{ status: number; field: unknown; message: string }> {
  const refusal = await refusalFrom(() => chatKind.parse(config, { integrations }));
  return {
    status: refusal.status,
    field: (refusal.details as { field?: unknown } | undefined)?.field,
    message: refusal.message,
  };
}

const header = {
  type: 'header',
  text: { type: 'plain_text', text: '🔴 CRITICAL · Checkout fails with <TypeError> & retries' },
};
const facts = (status: string) => ({
  type: 'section',
  text: { type: 'mrkdwn', text: expect.any(String) },
  fields: [
    { type: 'mrkdwn', text: `*Status*\n${status}` },
    { type: 'mrkdwn', text: '*Environment*\nproduction' },
    { type: 'mrkdwn', text: '*Services*\ncheckout, payments' },
    { type: 'mrkdwn', text: '*Detected*\n2024-05-01T11:58:00Z' },
  ],
});
const rootCause = {
  type: 'section',
  text: {
    type: 'mrkdwn',
    text: '*Root cause*\nTypeError: cannot read "total" of undefined at cart.ts:88, first seen in 2.4.1; 57 sessions affected.',
  },
};
const dashboardButton = {
  type: 'button',
  action_id: 'incident_open_dashboard',
  text: { type: 'plain_text', text: 'Open dashboard' },
  url: 'https://svc.example/incidents/inc_42',
};

describe('chat channel config', () => {
  it('requires a #room, naming config.channel', async () => {
    for (const channel of [undefined, 'incidents', '#', '#two words', 42]) {
      const error = await parseError({ webhook_url: 'https://hooks.slack.com/services/T1/B2/secret', channel });
      expect(error).toMatchObject({ status: 400, field: 'config.channel' });
      expect(error.message).toContain('config.channel');
    }
  });

  it('requires webhook_url unless the chat app integration is connected', async () => {
    expect(await parseError({ channel: '#incidents' })).toMatchObject({ status: 400, field: 'config.webhook_url' });
    const app = withChatApp({ config: {}, secrets: { bot_token: 'xoxb-1', signing_secret: 's' } });
    await expect(chatKind.parse({ channel: '#incidents' }, { integrations: app })).resolves.toEqual({
      config: { channel: '#incidents', webhook_host: null },
      secrets: { webhook_url: null },
    });
  });

  it('refuses webhook URLs that are not http(s) and settings it does not know', async () => {
    for (const webhook_url of [
      'hooks.slack.com/services/x',
      'ftp://hooks.slack.com/x',
      '',
      7,
      'https://user:pw@hooks.slack.com/x',
    ]) {
      expect(await parseError({ webhook_url, channel: '#incidents' })).toMatchObject({
        status: 400,
        field: 'config.webhook_url',
      });
    }
    expect(
      await parseError({ webhook_url: 'https://hooks.slack.com/x', channel: '#incidents', bot_token: 'xoxb' }),
    ).toMatchObject({
      status: 400,
      field: 'config.bot_token',
    });
    expect(await parseError('https://hooks.slack.com/x')).toMatchObject({ status: 400, field: 'config' });
  });

  it('keeps the webhook URL secret: the API shows the room and the host only', async () => {
    const url = 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX';
    const parsed = await chatKind.parse({ webhook_url: url, channel: '#incidents' }, { integrations: noIntegrations });
    expect(parsed.secrets).toEqual({ webhook_url: url });
    const shown = JSON.stringify(chatKind.publicConfig(parsed.config));
    expect(JSON.parse(shown)).toEqual({ channel: '#incidents', webhook_host: 'hooks.slack.com' });
    expect(shown).not.toContain('XXXXXXXX');
    expect(shown).not.toContain('/services/');
  });
});

describe('chat kind through an incoming webhook', () => {
  let hook: Receiver;
  let url: string;
  beforeAll(async () => {
    hook = await receiver();
    url = `${hook.origin}/services/T1/B2/secret`;
  });
  afterAll(() => hook.close());
  beforeEach(() => {
    hook.received.length = 0;
    hook.answer = () => ({ status: 200, body: 'ok' });
  });
  const config: ChatConfig = { channel: '#incidents', webhook_host: 'hooks.slack.com' };

  it('posts the incident card with signed acknowledge and resolve links; Slack’s `ok` is delivered', async () => {
    const outcome = await chatKind.send(context(config, { webhook_url: url }, notice('incident.created', 'detected')));
    expect(outcome).toEqual({ state: 'delivered', status: 200, body: 'ok' });
    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    expect(request!.path).toBe('/services/T1/B2/secret');
    expect(request!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request!.headers['user-agent']).toBe('svc-notifications/1');
    expect(request!.json).toEqual({
      text: '🔴 CRITICAL Checkout fails with &lt;TypeError&gt; &amp; retries (production): Incident detected, <https://svc.example/incidents/inc_42|open dashboard>',
      blocks: [
        header,
        { ...facts('Detected'), text: { type: 'mrkdwn', text: '*Incident detected*' } },
        rootCause,
        {
          type: 'actions',
          block_id: 'incident_actions',
          elements: [
            {
              type: 'button',
              action_id: 'incident_acknowledge',
              text: { type: 'plain_text', text: 'Acknowledge' },
              url: 'https://svc.example/a/inc_42?sig=ack',
              style: 'primary',
            },
            {
              type: 'button',
              action_id: 'incident_resolve',
              text: { type: 'plain_text', text: 'Resolve' },
              url: 'https://svc.example/r/inc_42?sig=res',
            },
            dashboardButton,
          ],
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'Incident inc_42' }] },
      ],
    });
  });

  it('shows only the dashboard button once the incident is resolved, and marks test notifications', async () => {
    await chatKind.send(context(config, { webhook_url: url }, notice('incident.resolved', 'resolved', { test: true })));
    const { blocks, text } = hook.received[0]!.json;
    expect(text.startsWith('[test] ')).toBe(true);
    expect(blocks[1].fields[0].text).toBe('*Status*\nResolved');
    expect(blocks[3].elements).toEqual([dashboardButton]);
    expect(blocks[4].elements[0].text).toBe('Test notification: no incident was opened. Incident inc_42');
  });

  it('fails for good on Slack’s 4xx answers (no_service, invalid_payload)', async () => {
    hook.answer = () => ({ status: 404, body: 'no_service' });
    expect(
      await chatKind.send(context(config, { webhook_url: url }, notice('incident.created', 'detected'))),
    ).toMatchObject({
      state: 'failed',
      status: 404,
      body: 'no_service',
      errorClass: 'http_404',
    });
    hook.answer = () => ({ status: 400, body: 'invalid_payload' });
    expect(
      await chatKind.send(context(config, { webhook_url: url }, notice('incident.created', 'detected'))),
    ).toMatchObject({ state: 'failed', status: 400 });
  });

  it('retries a rate limit after Retry-After, and a server error', async () => {
    hook.answer = () => ({ status: 429, body: 'rate_limited', headers: { 'retry-after': '7' } });
    expect(
      await chatKind.send(context(config, { webhook_url: url }, notice('incident.created', 'detected'))),
    ).toMatchObject({
      state: 'retry',
      status: 429,
      errorClass: 'http_429',
      retryAfterMs: 7000,
    });
    hook.answer = () => ({ status: 503, body: 'unavailable' });
    expect(
      await chatKind.send(context(config, { webhook_url: url }, notice('incident.created', 'detected'))),
    ).toMatchObject({ state: 'retry', errorClass: 'http_5xx' });
  });

  it('retries when nothing listens', async () => {
    const gone = await serveLocally(() => undefined);
    await gone.close();
    const outcome = await chatKind.send(
      context(config, { webhook_url: `${gone.origin}/services/x` }, notice('incident.created', 'detected')),
    );
    expect(outcome).toMatchObject({ state: 'retry', errorClass: 'connect' });
  });
});

describe('chat kind through the chat app (Web API)', () => {
  let api: Receiver;
  let integrations: Integrations;
  let nextTs: number;
  beforeAll(async () => {
    api = await receiver();
    integrations = withChatApp({
      config: { api_base_url: `${api.origin}/api/` },
      secrets: { bot_token: 'xoxb-test-token', signing_secret: 'unused' },
    });
  });
  afterAll(() => api.close());
  beforeEach(() => {
    api.received.length = 0;
    nextTs = 1;
    // Slack's answers: the channel id (not the #name) and the message's timestamp.
    api.answer = () => ({
      status: 200,
      body: JSON.stringify({ ok: true, channel: 'C0INCIDENTS', ts: `1714564800.00000${nextTs++}` }),
      headers: { 'content-type': 'application/json' },
    });
  });
  const config: ChatConfig = { channel: '#incidents', webhook_host: null };
  const secrets: ChatSecrets = { webhook_url: null };
  const interactiveButtons = [
    {
      type: 'button',
      action_id: 'incident_acknowledge',
      text: { type: 'plain_text', text: 'Acknowledge' },
      value: 'inc_42',
      style: 'primary',
    },
    { type: 'button', action_id: 'incident_resolve', text: { type: 'plain_text', text: 'Resolve' }, value: 'inc_42' },
    dashboardButton,
  ];

  it('posts the card with buttons, then edits it and replies in its thread for each later event', async () => {
    const thread = memoryThread();
    const first = await chatKind.send(
      context(config, secrets, notice('incident.created', 'detected'), { thread, integrations }),
    );
    expect(first).toMatchObject({ state: 'delivered', status: 200, providerRef: '1714564800.000001' });
    expect(api.received.map((r) => r.path)).toEqual(['/api/chat.postMessage']);
    const post = api.received[0]!;
    expect(post.headers.authorization).toBe('Bearer xoxb-test-token');
    expect(post.json).toMatchObject({ channel: '#incidents', unfurl_links: false });
    expect(post.json.blocks[3]).toEqual({
      type: 'actions',
      block_id: 'incident_actions',
      elements: interactiveButtons,
    });
    expect(post.json.thread_ts).toBeUndefined();

    const second = await chatKind.send(
      context(config, secrets, notice('incident.acknowledged', 'acknowledged', { actor: 'chat:<alice>' }), {
        thread,
        integrations,
      }),
    );
    expect(second).toMatchObject({ state: 'delivered', providerRef: '1714564800.000003' });
    expect(api.received.map((r) => r.path)).toEqual([
      '/api/chat.postMessage',
      '/api/chat.update',
      '/api/chat.postMessage',
    ]);
    const [, update, reply] = api.received;
    expect(update!.json).toMatchObject({ channel: 'C0INCIDENTS', ts: '1714564800.000001' });
    expect(update!.json.blocks[1].fields[0].text).toBe('*Status*\nAcknowledged');
    expect(update!.json.blocks[3].elements).toEqual(interactiveButtons.slice(1));
    expect(reply!.json).toEqual({
      channel: 'C0INCIDENTS',
      thread_ts: '1714564800.000001',
      text: '*Incident acknowledged* by chat:&lt;alice&gt; (status: Acknowledged) · <https://svc.example/incidents/inc_42|open dashboard>',
      unfurl_links: false,
    });

    await chatKind.send(context(config, secrets, notice('incident.resolved', 'resolved'), { thread, integrations }));
    const [finalUpdate, finalReply] = api.received.slice(3);
    expect(finalUpdate!.json.ts).toBe('1714564800.000001');
    expect(finalUpdate!.json.blocks[3].elements).toEqual([dashboardButton]);
    expect(finalReply!.json.thread_ts).toBe('1714564800.000001');
  });

  it('maps Web API refusals: rate limits retry after Retry-After, a missing channel or bad token fail', async () => {
    const send = () =>
      chatKind.send(context(config, secrets, notice('incident.created', 'detected'), { integrations }));
    api.answer = () => ({
      status: 429,
      body: JSON.stringify({ ok: false, error: 'ratelimited' }),
      headers: { 'retry-after': '3' },
    });
    expect(await send()).toMatchObject({ state: 'retry', status: 429, retryAfterMs: 3000 });
    for (const error of ['channel_not_found', 'not_in_channel', 'invalid_auth']) {
      api.answer = () => ({ status: 200, body: JSON.stringify({ ok: false, error }) });
      expect(await send()).toMatchObject({
        state: 'failed',
        status: 200,
        errorClass: error,
        body: JSON.stringify({ ok: false, error }),
      });
    }
    api.answer = () => ({ status: 200, body: JSON.stringify({ ok: false, error: 'internal_error' }) });
    expect(await send()).toMatchObject({ state: 'retry', errorClass: 'internal_error' });
    api.answer = () => ({ status: 200, body: '<html>proxy</html>' });
    expect(await send()).toMatchObject({ state: 'failed', errorClass: 'invalid_response' });
  });

  it('starts no thread when the first post fails, and still replies when the card can no longer be edited', async () => {
    const thread = memoryThread();
    api.answer = () => ({ status: 200, body: JSON.stringify({ ok: false, error: 'not_in_channel' }) });
    await chatKind.send(context(config, secrets, notice('incident.created', 'detected'), { thread, integrations }));
    expect(thread.value).toBeUndefined();

    thread.value = JSON.stringify({ channel: 'C0INCIDENTS', ts: '1714564000.000009' });
    api.answer = (path) =>
      path.endsWith('chat.update')
        ? { status: 200, body: JSON.stringify({ ok: false, error: 'message_not_found' }) }
        : { status: 200, body: JSON.stringify({ ok: true, channel: 'C0INCIDENTS', ts: '1714564900.000001' }) };
    const outcome = await chatKind.send(
      context(config, secrets, notice('incident.escalated', 'escalated'), { thread, integrations }),
    );
    expect(outcome).toMatchObject({ state: 'delivered', providerRef: '1714564900.000001' });
    expect(api.received.at(-1)!.json).toMatchObject({
      thread_ts: '1714564000.000009',
      text: expect.stringContaining('*Incident escalated*'),
    });
  });

  it('posts no reply when editing the card hit a rate limit: the retry edits again, then replies once', async () => {
    const thread = memoryThread();
    thread.value = JSON.stringify({ channel: 'C0INCIDENTS', ts: '1714564000.000009' });
    api.answer = () => ({
      status: 429,
      body: JSON.stringify({ ok: false, error: 'ratelimited' }),
      headers: { 'retry-after': '1' },
    });
    expect(
      await chatKind.send(context(config, secrets, notice('incident.resolved', 'resolved'), { thread, integrations })),
    ).toMatchObject({
      state: 'retry',
      retryAfterMs: 1000,
    });
    expect(api.received.map((r) => r.path)).toEqual(['/api/chat.update']);
  });

  it('uses the app even when a webhook URL is set, and fails clearly when neither is available any more', async () => {
    const both = await chatKind.send(
      context(config, { webhook_url: `${api.origin}/services/x` }, notice('incident.created', 'detected'), {
        integrations,
      }),
    );
    expect(both.state).toBe('delivered');
    expect(api.received.map((r) => r.path)).toEqual(['/api/chat.postMessage']);
    expect(await chatKind.send(context(config, secrets, notice('incident.created', 'detected')))).toMatchObject({
      state: 'failed',
      errorClass: 'not_configured',
    });
  });
});
