import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scheduleIssueDeliveries, type IssueEvent } from '../../server/src/notify/outbox/issue-events';
import { databaseKinds } from '../support/databases';
import { startMailbox, type Mailbox } from '../support/mailbox';
import { startReceiver, type Receiver } from '../support/receiver';
import { controlGet, startNotifyingServer, type TestServer } from '../support/server';

/**
 * `issue.regressed` through the real server, on SQLite and PostgreSQL: the issues code calls the hook in its own
 * transaction (here, a transaction on the server's database), the project's rules pick the channels, and the outbox
 * worker sends through every channel kind: the exact webhook payload with a valid Standard Webhooks signature, e-mail
 * over a real SMTP server, chat, Teams, SMS and a call against local stand-ins of their providers. Rules filter by env,
 * services and severity `warning`; the same regression scheduled twice is delivered once.
 */
const kinds = await databaseKinds();
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const ISSUE_ID = '3f2a9c41d07be815';
const TWILIO_ANSWER = {
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ sid: `SM${'0'.repeat(32)}`, status: 'queued' }),
};

interface Delivery {
  id: string;
  channel_id: string;
  incident_id: string | null;
  issue_id: string | null;
  event: string;
  trigger: string;
  rule_id: string | null;
  state: string;
  next_attempt_at: string | null;
}
type ErrorBody = { error: { code: string; message: string; details?: { field: string } } };

describe.each(kinds)('issue.regressed notifications on %s', (kind) => {
  let t: TestServer;
  let receiver: Receiver;
  let smtp: Mailbox;
  let now = Date.UTC(2026, 10, 26, 9, 30, 0);
  const clock = { now: () => now };

  const call = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
  };
  const channel = async (type: string, name: string, config: Record<string, unknown>) => {
    const created = await call<{ id: string }>('POST', '/notifications/channels', { type, name, config });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  };
  const webhook = (name: string) => channel('webhook', name, { url: `${receiver.url}/hook/${name}`, secret: SECRET });
  const rule = async (channels: string[], conditions: Record<string, string[]> = {}, delaySeconds = 0) => {
    const created = await call('POST', '/notifications/rules', {
      name: 'r',
      conditions,
      channels,
      delay_seconds: delaySeconds,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  };
  const deliveries = async (channelId: string) =>
    (await controlGet<{ data: Delivery[] }>(t, `/notifications/deliveries?channel_id=${channelId}`)).body.data;
  const drain = () => t.server.notify.outbox.drain();
  const received = (path: string) => receiver.received.filter((request) => request.path.startsWith(path));

  const event = (changes: Partial<IssueEvent> = {}): IssueEvent => ({
    projectId: t.projectId,
    issueId: ISSUE_ID,
    event: 'issue.regressed',
    atMs: now,
    env: 'production',
    services: ['web-app'],
    assigneeId: null,
    title: "TypeError: Cannot read properties of undefined (reading 'total')",
    summary:
      'TypeError in cartTotal (src/cart/total.ts:42:17): `return cart.total.amount;`. Resolved in 1.4.0, seen again in 1.5.0.',
    url: `https://svc.example/issues/${ISSUE_ID}`,
    ...changes,
  });
  /** As the issues code does: in a transaction of its own on the server's database. */
  const regress = (changes: Partial<IssueEvent> = {}) =>
    t.server.database.db.transaction().execute((trx) => scheduleIssueDeliveries(trx, event(changes)));

  beforeAll(async () => {
    smtp = await startMailbox();
    t = await startNotifyingServer(kind, clock, { detection: false });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(async () => {
    receiver = await startReceiver();
    smtp.inbox.length = 0;
    for (const { id } of (await controlGet<{ data: Array<{ id: string }> }>(t, '/notifications/rules')).body.data)
      await call('DELETE', `/notifications/rules/${id}`);
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('posts the issue.regressed payload, signed like incident payloads, and the delivery log names the issue', async () => {
    const hook = await webhook('regressions');
    const critical = await webhook('critical-only');
    await rule([hook], { severity: ['warning'] });
    await rule([critical], { severity: ['critical'] });
    await regress();
    expect(await drain()).toBe(1);

    const [request, ...more] = received('/hook/');
    expect(more).toEqual([]);
    expect(request!.path).toBe('/hook/regressions');
    const e = event();
    expect(request!.body).toBe(
      JSON.stringify({
        event: 'issue.regressed',
        issue_id: ISSUE_ID,
        severity: 'warning',
        title: e.title,
        services: ['web-app'],
        env: 'production',
        root_cause_summary: e.summary,
        dashboard_url: e.url,
      }),
    );
    const id = request!.headers['webhook-id'] as string;
    const timestamp = request!.headers['webhook-timestamp'] as string;
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    expect(request!.headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${request!.body}`).digest('base64')}`,
    );

    const [delivery] = await deliveries(hook);
    expect(delivery).toMatchObject({
      id,
      state: 'delivered',
      trigger: 'issue',
      event: 'issue.regressed',
      incident_id: null,
      issue_id: ISSUE_ID,
    });
    expect(delivery!.rule_id).toMatch(/^rule_/);
    expect(await deliveries(critical)).toEqual([]);
  });

  it('filters by env and services like incident rules, and waits for a rule’s delay', async () => {
    const staging = await webhook('staging');
    const checkout = await webhook('checkout');
    const web = await webhook('web');
    const later = await webhook('later');
    await rule([staging], { env: ['staging'] });
    await rule([checkout], { services: ['checkout'] });
    await rule([web], { env: ['production'], services: ['api', 'web-app'], severity: ['warning', 'critical'] });
    await rule([later], { env: ['production'] }, 600);
    await regress();
    expect(await drain()).toBe(1);
    expect(received('/hook/').map((request) => request.path)).toEqual(['/hook/web']);
    expect(await deliveries(staging)).toEqual([]);
    expect(await deliveries(checkout)).toEqual([]);

    const [waiting] = await deliveries(later);
    expect(waiting).toMatchObject({ state: 'scheduled', next_attempt_at: new Date(now + 600_000).toISOString() });
    now += 600_000;
    expect(await drain()).toBe(1);
    expect(received('/hook/').map((request) => request.path)).toEqual(['/hook/web', '/hook/later']);
  });

  it('delivers one regression once, however often it is scheduled; a rolled-back transaction leaves nothing', async () => {
    const hook = await webhook('once');
    await rule([hook]);
    await rule([hook], { env: ['production'] });
    const atMs = now;
    await expect(
      t.server.database.db.transaction().execute(async (trx) => {
        await scheduleIssueDeliveries(trx, event({ atMs }));
        throw new Error('the issue update failed');
      }),
    ).rejects.toThrow('the issue update failed');
    expect(await deliveries(hook)).toEqual([]);

    await regress({ atMs });
    await regress({ atMs });
    await Promise.all([regress({ atMs }), regress({ atMs })]);
    expect(await drain()).toBe(1);
    expect(await deliveries(hook)).toHaveLength(1);

    // The same issue regressing again later is a new event.
    now += 3_600_000;
    await regress({ atMs: now });
    expect(await drain()).toBe(1);
    expect(received('/hook/once')).toHaveLength(2);
    expect((await deliveries(hook)).map((d) => d.issue_id)).toEqual([ISSUE_ID, ISSUE_ID]);
  });

  it('e-mails it over SMTP: a warning headline, the facts, and a link to the issue instead of acknowledge and resolve', async () => {
    const email = await channel('email', 'on-call mail', {
      to: ['oncall@example.com'],
      from: 'alerts@svc.example',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
    });
    await rule([email], { severity: ['warning'] });
    await regress();
    expect(await drain()).toBe(1);

    expect(smtp.inbox).toHaveLength(1);
    const mail = smtp.inbox[0]?.mail;
    const e = event();
    expect(mail!.subject).toBe(`[WARNING] Regressed: ${e.title}`);
    expect(mail!.headers.get('references')).toBe(`<issue-${ISSUE_ID}@svc.example>`);
    expect(mail!.text).toContain(
      `Severity:    warning\nStatus:      regressed\nServices:    web-app\nEnvironment: production\nDetected:    ${new Date(now).toISOString()}\nIssue:       ${ISSUE_ID}`,
    );
    expect(mail!.text).toContain(`Root cause\n${e.summary}\n`);
    expect(mail!.text).toContain(`Open the issue: ${e.url}\n`);
    expect(mail!.text).not.toMatch(/Acknowledge|Resolve:/);
    expect(mail!.html).toContain(`href="${e.url}"`);
    expect((await deliveries(email))[0]).toMatchObject({ state: 'sent', issue_id: ISSUE_ID });
  });

  it('reaches chat, Teams, SMS and voice with a link to the issue and no acknowledge or resolve action', async () => {
    receiver.answer = (request) => (request.path.includes('/Accounts/') ? TWILIO_ANSWER : { status: 200, body: '1' });
    const telephony = await call('PUT', '/integrations/telephony', {
      provider: 'twilio',
      account_sid: `AC${'1'.repeat(32)}`,
      auth_token: 'token',
      from: '+15550100000',
      api_base_url: receiver.url,
    });
    expect(telephony.status, JSON.stringify(telephony.body)).toBe(200);
    const chat = await channel('chat', 'ops room', { channel: '#ops', webhook_url: `${receiver.url}/chat` });
    const teams = await channel('teams', 'ops team', { webhook_url: `${receiver.url}/teams` });
    const sms = await channel('sms', 'on-call sms', { to: ['+14155550100'] });
    const voice = await channel('voice', 'on-call call', { to: ['+14155550101'] });
    await rule([chat, teams, sms, voice], { env: ['production'] });
    await regress();
    expect(await drain()).toBe(4);
    const e = event();

    const [chatPost] = received('/chat');
    const card = JSON.parse(chatPost!.body) as {
      text: string;
      blocks: Array<{ type: string; elements?: Array<{ action_id?: string; url?: string; text: { text: string } }> }>;
    };
    const buttons = card.blocks.find((block) => block.type === 'actions')!.elements!;
    expect(buttons.map((button) => [button.text.text, button.url])).toEqual([['Open issue', e.url]]);
    expect(chatPost!.body).toContain(`Issue ${ISSUE_ID}`);
    expect(card.text).toContain('Resolved issue occurred again');

    const [teamsPost] = received('/teams');
    const adaptive = (
      JSON.parse(teamsPost!.body) as {
        attachments: Array<{ content: { actions: Array<{ title: string; url: string }> } }>;
      }
    ).attachments[0]!.content;
    expect(adaptive.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open issue', url: e.url }]);

    const form = (path: string) =>
      new URLSearchParams(received('/2010-04-01/').find((request) => request.path.endsWith(path))!.body);
    const text = form('/Messages.json').get('Body')!;
    expect(text.split('\n')[0]).toBe(`[WARNING] Regressed: ${e.title}`);
    expect(text.endsWith(`\nIssue: ${e.url}`)).toBe(true);
    expect(text).not.toContain('Acknowledge');
    const twiml = form('/Calls.json').get('Twiml')!;
    expect(twiml).toContain('A resolved issue occurred again: TypeError');
    expect(twiml).not.toContain('<Gather');

    for (const id of [chat, teams, sms, voice])
      expect((await deliveries(id))[0]).toMatchObject({ trigger: 'issue', issue_id: ISSUE_ID });
  });

  it('accepts warning as a rule severity and still refuses an unknown one', async () => {
    const hook = await webhook('severities');
    const refused = await call<ErrorBody>('POST', '/notifications/rules', {
      name: 'r',
      conditions: { severity: ['warning', 'urgent'] },
      channels: [hook],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details?.field).toBe('conditions.severity[1]');
    await rule([hook], { severity: ['warning'] });
  });
});
