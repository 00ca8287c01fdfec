import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGuardedHttp } from '../../server/src/notify/http/guarded-http';
import { databaseKinds } from '../support/databases';
import { startReceiver, type Receiver } from '../support/receiver';
import { controlCall, controlGet, startNotifyingServer, startTestServer, type TestServer } from '../support/server';

/**
 * Incidents to webhook deliveries through the real server over HTTP, on SQLite and PostgreSQL: channel validation and
 * secrecy, rules (all matching rules fire, one delivery per channel, escalation steps cancelled by acknowledgement),
 * the SPEC 2.6 payload signed with Standard Webhooks headers, SPEC 3.1's retry schedule (1, 5, 15 minutes; driven by
 * the server's injectable clock) and the delivery log.
 */
const kinds = await databaseKinds();
const MINUTE = 60_000;

interface Delivery {
  id: string;
  channel_id: string;
  incident_id: string | null;
  event: string;
  trigger: string;
  state: string;
  attempt: number;
  next_attempt_at: string | null;
  error_class: string | null;
  response: { status: number | null; body: string | null } | null;
  latency_ms: number | null;
}
type ErrorBody = { error: { code: string; message: string; details?: { field: string } } };

describe.each(kinds)('webhook notifications on %s', (kind) => {
  let t: TestServer;
  let receiver: Receiver;
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);
  const clock = { now: () => now };

  const call = <T>(method: string, path: string, body?: unknown) => controlCall<T>(t, method, path, body);
  const post = <T = Record<string, unknown>>(path: string, body?: unknown) => call<T>('POST', path, body);
  const webhook = async (name = 'ops hook', secret?: string) =>
    (
      await post<{ id: string; signing_secret?: string }>('/notifications/channels', {
        type: 'webhook',
        name,
        config: { url: `${receiver.url}/hook/${name.replace(/\W/g, '-')}`, ...(secret ? { secret } : {}) },
      })
    ).body;
  const deliveries = async (channelId?: string) =>
    (
      await controlGet<{ data: Delivery[]; next_cursor: string | null }>(
        t,
        `/notifications/deliveries${channelId ? `?channel_id=${channelId}` : ''}`,
      )
    ).body.data;
  const drain = () => t.server.notify.outbox.drain();
  const openIncident = async (over: Record<string, unknown> = {}) =>
    (
      await post<{ id: string; dashboard_url: string }>('/incidents', {
        title: 'Checkout fails',
        severity: 'critical',
        env: 'production',
        services: ['shop-web'],
        root_cause_summary: 'TypeError in cart.js',
        ...over,
      })
    ).body;

  beforeAll(async () => {
    t = await startNotifyingServer(kind, clock);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    receiver = await startReceiver();
    // Each test starts with no rules.
    for (const rule of (await controlGet<{ data: Array<{ id: string }> }>(t, '/notifications/rules')).body.data)
      await call('DELETE', `/notifications/rules/${rule.id}`);
  });
  afterEach(async () => {
    await receiver.close();
  });

  it('validates a channel, names the field, and never returns its secret', async () => {
    const bad = async (body: unknown, field: string) => {
      const res = await post<ErrorBody>('/notifications/channels', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details?.field).toBe(field);
    };
    await bad({ type: 'pager', name: 'x', config: {} }, 'type');
    await bad({ type: 'webhook', config: { url: receiver.url } }, 'name');
    await bad({ type: 'webhook', name: 'x' }, 'config');
    await bad({ type: 'webhook', name: 'x', config: {} }, 'config.url');
    await bad({ type: 'webhook', name: 'x', config: { url: 'ftp://example.com' } }, 'config.url');
    await bad({ type: 'webhook', name: 'x', config: { url: receiver.url, secret: 'hunter2' } }, 'config.secret');
    const before = (await controlGet<{ data: unknown[] }>(t, '/notifications/channels')).body.data.length;

    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const own = await post('/notifications/channels', {
      type: 'webhook',
      name: 'own secret',
      config: { url: receiver.url, secret },
    });
    expect(own.status).toBe(201);
    expect(JSON.stringify(own.body)).not.toContain(secret.slice(6, 20));
    const made = await webhook('generated');
    expect(made.signing_secret).toMatch(/^whsec_/);
    const listed = await controlGet(t, '/notifications/channels');
    expect(listed.body.data).toHaveLength(before + 2);
    expect(JSON.stringify(listed.body)).not.toContain(made.signing_secret!.slice(6, 20));
    expect(JSON.stringify((await controlGet(t, `/notifications/channels/${made.id}`)).body)).not.toContain('whsec_');
  });

  it('refuses bad rules, incidents and integrations, naming the field, and changes nothing', async () => {
    const channel = await webhook('for rules');
    const bad = async (path: string, body: unknown, field: string, method = 'POST') => {
      const res = await call<ErrorBody>(method, path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error.details?.field).toBe(field);
    };
    const rule = { name: 'r', channels: [channel.id], delay_seconds: 0 };
    await bad('/notifications/rules', { ...rule, name: '' }, 'name');
    await bad('/notifications/rules', { ...rule, channels: [] }, 'channels');
    await bad('/notifications/rules', { ...rule, channels: [channel.id, 'ch_missing'] }, 'channels[1]');
    await bad('/notifications/rules', { ...rule, delay_seconds: -1 }, 'delay_seconds');
    await bad('/notifications/rules', { ...rule, delay_seconds: 1.5 }, 'delay_seconds');
    await bad('/notifications/rules', { ...rule, conditions: { severity: ['urgent'] } }, 'conditions.severity[0]');
    await bad('/notifications/rules', { ...rule, conditions: { team: ['a'] } }, 'conditions.team');
    expect((await controlGet<{ data: unknown[] }>(t, '/notifications/rules')).body.data).toEqual([]);

    const incidentsBefore = (await controlGet<{ data: unknown[] }>(t, '/incidents?limit=200')).body.data.length;
    await bad('/incidents', { title: 'x' }, 'severity');
    await bad('/incidents', { title: 'x', severity: 'sev1' }, 'severity');
    await bad('/incidents', { severity: 'low' }, 'title');
    await bad('/incidents', { title: 'x', severity: 'low', services: ['a', 3] }, 'services[1]');
    expect((await controlGet<{ data: unknown[] }>(t, '/incidents?limit=200')).body.data).toHaveLength(incidentsBefore);
    expect((await controlGet<ErrorBody>(t, '/incidents?status=open')).body.error.details?.field).toBe('status');

    await bad(
      '/integrations/chat-app',
      { bot_token: 'not-a-bot-token', signing_secret: 'a'.repeat(32) },
      'bot_token',
      'PUT',
    );
    await bad(
      '/integrations/telephony',
      { provider: 'twilio', account_sid: 'AC123', auth_token: 't', from: '+15550100000' },
      'account_sid',
      'PUT',
    );
    expect((await controlGet(t, '/integrations/telephony')).status).toBe(404);
    const text = await fetch(`${t.url}/control-plane/incidents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.controlKey}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
  });

  it('posts exactly the SPEC 2.6 payload with verifiable Standard Webhooks headers, and the dashboard link opens the incident', async () => {
    const channel = await webhook('exact');
    expect(
      (
        await post('/notifications/rules', {
          name: 'critical now',
          conditions: { severity: ['critical'] },
          channels: [channel.id],
          delay_seconds: 0,
        })
      ).status,
    ).toBe(201);
    const incident = await openIncident();
    await drain();

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    const payload = JSON.parse(request!.body) as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual([
      'dashboard_url',
      'env',
      'event',
      'incident_id',
      'root_cause_summary',
      'services',
      'severity',
      'title',
    ]);
    expect(payload).toMatchObject({
      event: 'incident.created',
      incident_id: incident.id,
      severity: 'critical',
      title: 'Checkout fails',
      services: ['shop-web'],
      env: 'production',
      root_cause_summary: 'TypeError in cart.js',
    });

    // Standard Webhooks: HMAC-SHA256 over "id.timestamp.body" with the base64-decoded secret.
    const id = request!.headers['webhook-id'] as string;
    const timestamp = request!.headers['webhook-timestamp'] as string;
    const key = Buffer.from(channel.signing_secret!.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request!.body}`).digest('base64');
    expect(request!.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(Number(timestamp)).toBe(Math.floor(now / 1000));

    const page = await fetch(payload.dashboard_url as string);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Checkout fails');
    const tampered = await fetch((payload.dashboard_url as string).replace(/sig=[^&]+/, 'sig=AAAA'));
    expect(tampered.status).toBe(403);

    const [delivery] = await deliveries(channel.id);
    expect(delivery).toMatchObject({
      state: 'delivered',
      attempt: 1,
      trigger: 'incident',
      event: 'incident.created',
      incident_id: incident.id,
      response: { status: 200, body: 'ok' },
    });
    expect(delivery!.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('retries a non-2xx answer at 1, 5 and 15 minutes with the same webhook-id, then fails', async () => {
    const channel = await webhook('flaky');
    await post('/notifications/rules', { name: 'all', channels: [channel.id] });
    receiver.answer = () => ({ status: 503, body: 'down for maintenance' });
    await openIncident({ severity: 'high' });
    await drain();
    const schedule: Array<[number, string]> = [];
    for (const wait of [MINUTE, 5 * MINUTE, 15 * MINUTE]) {
      const [d] = await deliveries(channel.id);
      expect(d!.state).toBe('retrying');
      schedule.push([Date.parse(d!.next_attempt_at!) - now, d!.error_class!]);
      now += wait - 1;
      expect(await drain()).toBe(0);
      now += 1;
      expect(await drain()).toBe(1);
    }
    expect(schedule).toEqual([
      [MINUTE, 'http_5xx'],
      [5 * MINUTE, 'http_5xx'],
      [15 * MINUTE, 'http_5xx'],
    ]);
    const [final] = await deliveries(channel.id);
    expect(final).toMatchObject({
      state: 'failed',
      attempt: 4,
      next_attempt_at: null,
      response: { status: 503, body: 'down for maintenance' },
    });
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('a 4xx is retried too (SPEC 3.1: any non-2xx), and a success ends the schedule', async () => {
    const channel = await webhook('recovering');
    await post('/notifications/rules', { name: 'all', channels: [channel.id] });
    let calls = 0;
    receiver.answer = () => (++calls === 1 ? { status: 404, body: 'no route' } : { status: 204 });
    await openIncident();
    await drain();
    now += MINUTE;
    await drain();
    expect((await deliveries(channel.id))[0]).toMatchObject({ state: 'delivered', attempt: 2 });
  });

  it('fires every matching rule, reaches a channel two rules name once, and acknowledging cancels the later steps', async () => {
    const first = await webhook('first responder');
    const second = await webhook('escalation');
    await post('/notifications/rules', {
      name: 'page now',
      conditions: { severity: ['critical'], env: ['production'] },
      channels: [first.id],
      delay_seconds: 0,
    });
    await post('/notifications/rules', {
      name: 'also now',
      conditions: { services: ['shop-web'] },
      channels: [first.id],
      delay_seconds: 0,
    });
    await post('/notifications/rules', {
      name: 'escalate after 5 min',
      conditions: { severity: ['critical'] },
      channels: [second.id],
      delay_seconds: 300,
    });
    await post('/notifications/rules', {
      name: 'staging only',
      conditions: { env: ['staging'] },
      channels: [second.id],
      delay_seconds: 0,
    });
    const incident = await openIncident();
    await drain();
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook/first-responder']);

    expect((await post(`/incidents/${incident.id}/acknowledge`, { by: 'alice' })).body).toMatchObject({
      status: 'acknowledged',
      acknowledged_by: 'alice',
    });
    await drain();
    now += 300_000;
    await drain();
    // The acknowledgement went to the channel that heard of the incident; the escalation step never ran.
    expect(receiver.received.map((r) => [r.path, (JSON.parse(r.body) as { event: string }).event])).toEqual([
      ['/hook/first-responder', 'incident.created'],
      ['/hook/first-responder', 'incident.acknowledged'],
    ]);
    expect((await deliveries(second.id)).map((d) => d.state)).toEqual(['cancelled']);
    // Acknowledging again changes nothing and sends nothing.
    await post(`/incidents/${incident.id}/acknowledge`, { by: 'bob' });
    await drain();
    expect(receiver.received).toHaveLength(2);
  });

  it('a test notification goes through the same path and returns the delivery result', async () => {
    const channel = await webhook('tested');
    const res = await post<Delivery>(`/notifications/${channel.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      channel_id: channel.id,
      trigger: 'test',
      state: 'delivered',
      attempt: 1,
      response: { status: 200, body: 'ok' },
    });
    const payload = JSON.parse(receiver.received[0]!.body) as { title: string; dashboard_url: string };
    expect(payload.title).toBe('Test notification from svc');
    expect(await (await fetch(payload.dashboard_url)).text()).toContain('test notification');
    expect((await post<ErrorBody>('/notifications/ch_nope/test')).status).toBe(404);
  });

  it('pages the delivery log with a cursor and refuses a limit over 200', async () => {
    const channel = await webhook('paged');
    for (let i = 0; i < 3; i++) await post(`/notifications/${channel.id}/test`);
    const first = await controlGet<{ data: Delivery[]; next_cursor: string }>(
      t,
      `/notifications/deliveries?channel_id=${channel.id}&limit=2`,
    );
    expect(first.body.data).toHaveLength(2);
    const second = await controlGet<{ data: Delivery[]; next_cursor: string | null }>(
      t,
      `/notifications/deliveries?channel_id=${channel.id}&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    expect(new Set([...first.body.data, ...second.body.data].map((d) => d.id)).size).toBe(3);
    // Incidents page the same way, newest first.
    for (let i = 0; i < 2; i++) await openIncident({ title: `paged ${i}`, severity: 'info' });
    const one = await controlGet<{ data: Array<{ id: string; detected_at: string }>; next_cursor: string }>(
      t,
      '/incidents?severity=info&limit=1',
    );
    const two = await controlGet<{ data: Array<{ id: string; detected_at: string }> }>(
      t,
      `/incidents?severity=info&limit=1&cursor=${one.body.next_cursor}`,
    );
    expect(two.body.data[0]!.id).not.toBe(one.body.data[0]!.id);
    expect(Date.parse(two.body.data[0]!.detected_at)).toBeLessThanOrEqual(Date.parse(one.body.data[0]!.detected_at));
    const tooMany = await controlGet<ErrorBody>(t, '/notifications/deliveries?limit=201');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details?.field).toBe('limit');
  });
});

describe('webhook safety', () => {
  const HINT = /SVC_ALLOW_PRIVATE_TARGETS=true \(or --allow-private-targets true\)/;

  it('refuses a loopback or private target when the channel is saved, saying how to allow it, unless private targets are allowed', async () => {
    const receiver = await startReceiver();
    const t = await startTestServer('sqlite', { secretKey: 'k'.repeat(40) });
    try {
      const save = (type: string, config: Record<string, unknown>) =>
        controlCall<ErrorBody>(t, 'POST', '/notifications/channels', { type, name: 'internal', config });
      const port = new URL(receiver.url).port;
      for (const [url, host] of [
        [receiver.url, '127.0.0.1'],
        [`http://localhost:${port}/hook`, 'localhost'],
        ['http://[::1]/hook', '[::1]'],
        ['https://10.1.2.3/hook', '10.1.2.3'],
      ]) {
        const refused = await save('webhook', { url });
        expect([url, refused.status, refused.body.error.details?.field]).toEqual([url, 400, 'config.url']);
        expect(refused.body.error.message).toContain(`config.url: ${host} is a private or reserved address`);
        expect(refused.body.error.message).toMatch(HINT);
      }
      const teams = await save('teams', { webhook_url: `http://localhost:${port}/teams` });
      expect([teams.status, teams.body.error.details?.field]).toEqual([400, 'config.webhook_url']);
      const email = await save('email', {
        to: ['ops@example.com'],
        from: 'svc@example.com',
        smtp: { host: '192.168.1.20' },
      });
      expect([email.status, email.body.error.details?.field]).toEqual([400, 'config.smtp.host']);
      expect(email.body.error.message).toMatch(HINT);
      // A public name is saved: its addresses are checked when connecting.
      expect((await save('webhook', { url: 'https://ops.example.com/hook' })).status).toBe(201);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await t.close();
      await receiver.close();
    }
    const allowed = await startTestServer('sqlite', { secretKey: 'k'.repeat(40), allowPrivateTargets: true });
    try {
      const saved = await controlCall(allowed, 'POST', '/notifications/channels', {
        type: 'webhook',
        name: 'local',
        config: { url: 'http://localhost:9/hook' },
      });
      expect(saved.status).toBe(201);
    } finally {
      await allowed.close();
    }
  });

  it('refuses loopback targets at connect time too (a name DNS resolves to loopback), saying how to allow them', async () => {
    const receiver = await startReceiver();
    try {
      const http = createGuardedHttp({ allowPrivateTargets: false });
      const init = { method: 'POST', body: '{}', timeoutMs: 5_000 } as const;
      const byName = receiver.url.replace('127.0.0.1', 'localhost');
      await expect(http.request(byName, init)).rejects.toMatchObject({
        errorClass: 'ssrf_blocked',
        message: expect.stringMatching(HINT),
      });
      await expect(http.request(receiver.url, init)).rejects.toMatchObject({
        errorClass: 'ssrf_blocked',
        message: expect.stringMatching(HINT),
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('an answer slower than 10 s is failed, not retried (SPEC 3.1)', async () => {
    const receiver = await startReceiver();
    receiver.answer = () => ({ status: 200, delayMs: 11_000 });
    const t = await startTestServer('sqlite', { secretKey: 'k'.repeat(40), allowPrivateTargets: true });
    try {
      const res = await fetch(`${t.url}/control-plane/notifications/channels`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.controlKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'webhook', name: 'slow', config: { url: receiver.url } }),
      });
      const channel = (await res.json()) as { id: string };
      const test = await fetch(`${t.url}/control-plane/notifications/${channel.id}/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.controlKey}` },
      });
      const delivery = (await test.json()) as Delivery;
      expect(delivery).toMatchObject({ state: 'failed', error_class: 'timeout', next_attempt_at: null });
      expect(delivery.latency_ms).toBeGreaterThanOrEqual(10_000);
    } finally {
      await t.close();
      await receiver.close();
    }
  }, 30_000);
});
