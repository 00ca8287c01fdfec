import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPacer, type Pace } from '../../server/src/notify/outbox/pacer';
import { databaseKinds } from '../support/databases';
import { startReceiver, type Receiver } from '../support/receiver';
import { controlGet, startTestServer, type TestServer } from '../support/server';

/**
 * The integrations end to end through the real server over HTTP: the chat app (Web API card, a signed button click
 * that acknowledges the incident, the card edited and the thread replied to by the notification that move triggers,
 * `/svc status`) and the voice call whose keypress, posted to the signed acknowledge link, acknowledges the incident.
 * The providers are local HTTP servers speaking their wire formats.
 */
const kinds = await databaseKinds();

/** The entries of an incident's moves by chat and by signed links, oldest first (its creation by key left out). */
const auditOf = (t: TestServer, incidentId: string) =>
  t.server.database.db
    .selectFrom('audit_log')
    .select(['actor_kind', 'actor_label', 'operation', 'changes'])
    .where('target_id', '=', incidentId)
    .where('actor_kind', 'in', ['chat', 'link'])
    .orderBy('id')
    .execute();
const SIGNING_SECRET = 'a'.repeat(32);

/**
 * The server's own pacer, one per channel, on a clock that stands still and a timer that returns at once: every attempt
 * asks at the same instant, so the waits it is given are its channel's schedule, read without waiting it out.
 */
function recordedPacing(): { pace: Pace; waitsOf(channelId: string): number[] } {
  const waits = new Map<string, number[]>();
  const pacers = new Map<string, Pace>();
  const pace: Pace = (channelId, minIntervalMs) => {
    let pacer = pacers.get(channelId);
    if (!pacer) {
      const asked: number[] = [];
      waits.set(channelId, asked);
      pacer = createPacer(
        () => 0,
        async (ms) => void asked.push(ms),
      );
      pacers.set(channelId, pacer);
    }
    return pacer(channelId, minIntervalMs);
  };
  return { pace, waitsOf: (channelId) => waits.get(channelId) ?? [] };
}

describe.each(kinds)('chat app and voice keypress on %s', (kind) => {
  let t: TestServer;
  let provider: Receiver;
  const pacing = recordedPacing();

  const call = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
  const drain = () => t.server.notify.outbox.drain();
  const signed = (path: string, form: Record<string, string>) => {
    const body = new URLSearchParams(form).toString();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    return fetch(`${t.url}/integrations/chat/${t.projectId}/${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signature,
      },
      body,
    });
  };

  beforeAll(async () => {
    provider = await startReceiver();
    provider.answer = (request) => {
      if (request.path.endsWith('/chat.postMessage'))
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ok: true, channel: 'C0OPS', ts: `17000000${provider.received.length}.0001` }),
        };
      if (request.path.endsWith('/chat.update'))
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ok: true }) };
      if (request.path.endsWith('/Calls.json'))
        return {
          status: 201,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sid: `CA${'0'.repeat(32)}`, status: 'queued' }),
        };
      return { status: 404, body: 'unknown' };
    };
    t = await startTestServer(kind, {
      allowPrivateTargets: true,
      secretKey: 'k'.repeat(40),
      outbox: { pollMs: 60_000, pace: pacing.pace },
      detection: false,
    });
    await call('PUT', '/integrations/chat-app', {
      bot_token: 'xoxb-1-2-abc',
      signing_secret: SIGNING_SECRET,
      api_base_url: `${provider.url}/api`,
    });
    await call('PUT', '/integrations/telephony', {
      provider: 'twilio',
      account_sid: `AC${'1'.repeat(32)}`,
      auth_token: 'token-of-the-account',
      from: '+15550100000',
      api_base_url: provider.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await provider.close();
  });

  it('a signed button click acknowledges; the card is edited and the thread replied to; /svc status lists what is open', async () => {
    provider.received.length = 0;
    const channel = await call<{ id: string; config: Record<string, unknown> }>('POST', '/notifications/channels', {
      type: 'chat',
      name: 'ops room',
      config: { channel: '#ops' },
    });
    expect(JSON.stringify(channel)).not.toContain('xoxb');
    await call('POST', '/notifications/rules', {
      name: 'chat',
      conditions: { env: ['production'] },
      channels: [channel.id],
    });
    const incident = await call<{ id: string; title: string }>('POST', '/incidents', {
      title: 'Payments fail',
      severity: 'high',
      env: 'production',
      services: ['pay'],
    });
    await drain();
    const [posted] = provider.received;
    expect(posted!.path).toBe('/api/chat.postMessage');
    expect(posted!.headers.authorization).toBe('Bearer xoxb-1-2-abc');
    expect(posted!.body).toContain(incident.id);

    const status = await signed('commands', { command: '/svc', text: 'status', user_name: 'alice' });
    expect(status.status).toBe(200);
    expect(JSON.stringify(await status.json())).toContain('Payments fail');

    const click = await signed('interactions', {
      payload: JSON.stringify({
        type: 'block_actions',
        user: { id: 'U1', username: 'alice' },
        actions: [{ action_id: 'incident_acknowledge', value: incident.id }],
      }),
    });
    expect(click.status).toBe(200);
    expect(
      (await controlGet<{ status: string; acknowledged_by: string }>(t, `/incidents/${incident.id}`)).body,
    ).toMatchObject({ status: 'acknowledged', acknowledged_by: 'chat:alice' });
    expect(await auditOf(t, incident.id)).toEqual([
      {
        actor_kind: 'chat',
        actor_label: 'chat:alice',
        operation: 'POST /integrations/chat/{projectId}/interactions (acknowledge)',
        changes: JSON.stringify({ after: { status: 'acknowledged' } }),
      },
    ]);

    await drain();
    const later = provider.received
      .slice(1)
      .map((r) => [r.path, JSON.parse(r.body) as Record<string, unknown>] as const);
    expect(later.map(([path]) => path)).toEqual(['/api/chat.update', '/api/chat.postMessage']);
    // The first post was answered with ts 170000001.0001 (the provider numbers its answers): the card it made is
    // edited, and the reply goes into its thread.
    expect(later[0]![1]).toMatchObject({ channel: 'C0OPS', ts: '170000001.0001' });
    expect(later[1]![1]).toMatchObject({
      channel: 'C0OPS',
      thread_ts: '170000001.0001',
      text: expect.stringContaining('by chat:alice'),
    });

    // A forged click changes nothing.
    const forged = await fetch(`${t.url}/integrations/chat/${t.projectId}/interactions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-slack-signature': 'v0=00',
      },
      body: new URLSearchParams({
        payload: JSON.stringify({
          type: 'block_actions',
          user: { username: 'mallory' },
          actions: [{ action_id: 'incident_resolve', value: incident.id }],
        }),
      }).toString(),
    });
    expect(forged.status).toBe(401);
    expect((await controlGet<{ status: string }>(t, `/incidents/${incident.id}`)).body.status).toBe('acknowledged');
  });

  it('paces chat messages to one channel at one per second instead of drawing rate limits', async () => {
    provider.received.length = 0;
    const channel = await call<{ id: string }>('POST', '/notifications/channels', {
      type: 'chat',
      name: 'busy room',
      config: { channel: '#busy', webhook_url: `${provider.url}/hooks/busy` },
    });
    await call('POST', '/notifications/rules', {
      name: 'busy',
      conditions: { services: ['busy'] },
      channels: [channel.id],
    });
    for (let i = 0; i < 3; i++)
      await call('POST', '/incidents', { title: `Burst ${i}`, severity: 'low', env: 'production', services: ['busy'] });
    await drain();
    // The chat app is connected, so the channel posts through the Web API; three messages, all due at once: the first
    // goes at once, the next two wait their turns, a second and two after it.
    const toBusy = (r: { path: string; body: string }) =>
      r.path.endsWith('/chat.postMessage') && (JSON.parse(r.body) as { channel: string }).channel === '#busy';
    expect(provider.received.filter(toBusy)).toHaveLength(3);
    expect(pacing.waitsOf(channel.id)).toEqual([1000, 2000]);
  });

  it('a voice call asks for a keypress; pressing 1 on the signed acknowledge link acknowledges', async () => {
    provider.received.length = 0;
    const channel = await call<{ id: string }>('POST', '/notifications/channels', {
      type: 'voice',
      name: 'on-call phone',
      config: { to: ['+15550111111'] },
    });
    await call('POST', '/notifications/rules', {
      name: 'call',
      conditions: { severity: ['critical'] },
      channels: [channel.id],
    });
    const incident = await call<{ id: string }>('POST', '/incidents', {
      title: 'Site down',
      severity: 'critical',
      env: 'staging',
    });
    await drain();
    const callRequest = provider.received.find((r) => r.path.endsWith('/Calls.json'));
    expect(callRequest).toBeDefined();
    const twiml = new URLSearchParams(callRequest!.body).get('Twiml')!;
    const action = /<Gather[^>]*action="([^"]+)"/.exec(twiml)![1]!.replace(/&amp;/g, '&');
    expect(action).toContain(`/incidents/${incident.id}/acknowledge?`);

    const other = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Digits=2&CallSid=CA1',
    });
    expect(await other.text()).toContain('No action taken');
    expect((await controlGet<{ status: string }>(t, `/incidents/${incident.id}`)).body.status).toBe('detected');

    const pressed = await fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Digits=1&CallSid=CA1',
    });
    expect(pressed.headers.get('content-type')).toContain('text/xml');
    expect(await pressed.text()).toContain('<Say>Incident acknowledged. Goodbye.</Say>');
    expect(
      (await controlGet<{ status: string; acknowledged_by: string }>(t, `/incidents/${incident.id}`)).body,
    ).toMatchObject({ status: 'acknowledged', acknowledged_by: 'voice' });
    // The keypress that did nothing left no entry; the one that acknowledged left one, in its transaction.
    expect(await auditOf(t, incident.id)).toEqual([
      {
        actor_kind: 'link',
        actor_label: 'voice',
        operation: 'POST /incidents/{id}/acknowledge',
        changes: JSON.stringify({ after: { status: 'acknowledged' } }),
      },
    ]);
  });
});
