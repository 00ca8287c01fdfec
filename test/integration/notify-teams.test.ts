import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IncidentStatus } from '../../server/src/incidents/types';
import { createGuardedHttp } from '../../server/src/notify/http/guarded-http';
import { teamsKind } from '../../server/src/notify/kinds/teams/kind';
import type { IncidentNotice } from '../../server/src/notify/kinds/types';
import { serveLocally, type LocalServer } from '../support/local-server';
import { incidentNotice } from '../support/notice';
import { refusalFrom } from '../support/refusal';

const T0 = Date.parse('2024-05-01T12:00:00Z');
const http = createGuardedHttp({ allowPrivateTargets: true });
const noIntegrations = { get: async () => undefined };

type Answer = { status: number; body: string; headers?: Record<string, string> };

/** A Teams incoming webhook on 127.0.0.1: records each body (raw, to measure it) and answers `1` unless told otherwise. */
interface TeamsReceiver extends LocalServer {
  bodies: string[];
  answer: Answer;
}

async function teamsReceiver(): Promise<TeamsReceiver> {
  const local = await serveLocally((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      self.bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(self.answer.status, { 'content-type': 'text/plain', ...self.answer.headers });
      res.end(self.answer.body);
    });
  });
  const self: TeamsReceiver = { ...local, bodies: [], answer: { status: 200, body: '1' } };
  return self;
}

function notice(status: IncidentStatus, overrides: Partial<IncidentNotice['payload']> = {}): IncidentNotice {
  const event = status === 'detected' ? 'incident.created' : (`incident.${status}` as const);
  return incidentNotice({ payload: { event, severity: 'high', ...overrides }, status });
}

describe('teams channel config', () => {
  async function parseError(config: unknown) {
    const refusal = await refusalFrom(() => teamsKind.parse(config, { integrations: noIntegrations }));
    return { status: refusal.status, field: (refusal.details as { field?: unknown }).field };
  }

  it('requires an http(s) webhook_url and nothing else, naming the field', async () => {
    for (const webhook_url of [undefined, '', 'not a url', 'ftp://example.webhook.office.com/x']) {
      expect(await parseError({ webhook_url })).toEqual({ status: 400, field: 'config.webhook_url' });
    }
    expect(await parseError({ webhook_url: 'https://example.webhook.office.com/x', channel: '#x' })).toEqual({
      status: 400,
      field: 'config.channel',
    });
  });

  it('accepts incoming-webhook and Workflows URLs and never shows more than the host', async () => {
    const workflows =
      'https://prod-12.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=SECRETSIG';
    const parsed = await teamsKind.parse({ webhook_url: workflows }, { integrations: noIntegrations });
    expect(parsed.secrets.webhook_url).toBe(workflows.replace(':443', ''));
    const shown = JSON.stringify(teamsKind.publicConfig(parsed.config));
    expect(JSON.parse(shown)).toEqual({ webhook_host: 'prod-12.westeurope.logic.azure.com' });
    expect(shown).not.toContain('SECRETSIG');
    expect(shown).not.toContain('workflows');
  });
});

describe('teams kind', () => {
  let hook: TeamsReceiver;
  beforeAll(async () => {
    hook = await teamsReceiver();
  });
  afterAll(() => hook.close());
  beforeEach(() => {
    hook.bodies.length = 0;
    hook.answer = { status: 200, body: '1' };
  });
  const send = (sent: IncidentNotice) =>
    teamsKind.send({
      config: { webhook_host: '127.0.0.1' },
      secrets: { webhook_url: `${hook.origin}/webhookb2/abc/IncomingWebhook/def` },
      notice: sent,
      deliveryId: 'dlv_1',
      attempt: 1,
      http,
      clock: { now: () => T0 },
      thread: { get: async () => undefined, set: async () => undefined },
      integrations: noIntegrations,
    });
  const cardOf = (body: string) => JSON.parse(body).attachments[0].content;

  it('posts an Adaptive Card 1.4 with facts, root cause and signed links; `1` is delivered', async () => {
    expect(await send(notice('detected'))).toEqual({ state: 'delivered', status: 200, body: '1' });
    expect(JSON.parse(hook.bodies[0]!)).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            msteams: { width: 'Full' },
            body: [
              {
                type: 'TextBlock',
                text: '🟠 HIGH · Checkout fails',
                wrap: true,
                size: 'Large',
                weight: 'Bolder',
                color: 'Attention',
              },
              { type: 'TextBlock', text: 'Incident detected', wrap: true, isSubtle: true, spacing: 'None' },
              {
                type: 'FactSet',
                facts: [
                  { title: 'Severity', value: 'high' },
                  { title: 'Status', value: 'Detected' },
                  { title: 'Environment', value: 'production' },
                  { title: 'Services', value: 'checkout, payments' },
                  { title: 'Detected', value: '2024-05-01T11:58:00Z' },
                ],
              },
              { type: 'TextBlock', text: 'Root cause', wrap: true, weight: 'Bolder' },
              {
                type: 'TextBlock',
                text: 'TypeError: cannot read "total" of undefined at cart.ts:88; 57 sessions affected.',
                wrap: true,
              },
              { type: 'TextBlock', text: 'Incident inc_42', wrap: true, isSubtle: true, size: 'Small' },
            ],
            actions: [
              { type: 'Action.OpenUrl', title: 'Open dashboard', url: 'https://svc.example/incidents/inc_42' },
              { type: 'Action.OpenUrl', title: 'Acknowledge', url: 'https://svc.example/a/inc_42?sig=ack' },
              { type: 'Action.OpenUrl', title: 'Resolve', url: 'https://svc.example/r/inc_42?sig=res' },
            ],
          },
        },
      ],
    });
  });

  it('offers only the links that still apply', async () => {
    await send(notice('acknowledged'));
    await send(notice('resolved'));
    const titles = hook.bodies.map((body) => cardOf(body).actions.map((a: { title: string }) => a.title));
    expect(titles).toEqual([['Open dashboard', 'Resolve'], ['Open dashboard']]);
  });

  it('keeps the message under 28 KB by shortening the root cause, whatever its characters', async () => {
    for (const unit of ['a', '"\\\n', 'é', '🔥', '\u0001']) {
      hook.bodies.length = 0;
      const summary = unit.repeat(Math.ceil(60_000 / unit.length));
      expect((await send(notice('detected', { root_cause_summary: summary }))).state).toBe('delivered');
      const body = hook.bodies[0]!;
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(28_000);
      const shown: string = cardOf(body).body[4].text;
      expect(shown.endsWith('…')).toBe(true);
      expect(summary.startsWith(shown.slice(0, -1))).toBe(true);
      // As much as fits, not a fixed short cut: within a few characters of the limit.
      expect(Buffer.byteLength(body)).toBeGreaterThan(28_000 - 16);
    }
  });

  it('reports 202 (Workflows) as accepted, not delivered', async () => {
    hook.answer = { status: 202, body: '' };
    expect(await send(notice('detected'))).toMatchObject({ state: 'sent', status: 202 });
  });

  it('retries throttling after Retry-After and server errors; fails on 400, 404 and 410', async () => {
    hook.answer = { status: 429, body: 'throttled', headers: { 'retry-after': '12' } };
    expect(await send(notice('detected'))).toMatchObject({ state: 'retry', status: 429, retryAfterMs: 12_000 });
    hook.answer = { status: 502, body: 'bad gateway' };
    expect(await send(notice('detected'))).toMatchObject({ state: 'retry', errorClass: 'http_5xx' });
    for (const status of [400, 404, 410]) {
      hook.answer = { status, body: 'Bad payload' };
      expect(await send(notice('detected'))).toMatchObject({ state: 'failed', status, body: 'Bad payload' });
    }
  });

  it('reads the real status from a connector’s 200 that says delivery failed', async () => {
    hook.answer = {
      status: 200,
      body: 'Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0',
    };
    expect(await send(notice('detected'))).toMatchObject({ state: 'retry', status: 429 });
  });
});
