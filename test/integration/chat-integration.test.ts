import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import type { IncidentCommands, IncidentView, Severity } from '../../server/src/incidents/types';
import { chatIntegrationRoutes } from '../../server/src/integrations/chat/routes';
import type { Integration, Integrations } from '../../server/src/notify/kinds/types';

const T0 = Date.parse('2024-05-01T12:00:00Z');
const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const dashboardUrl = (id: string) => `https://svc.example/incidents/${id}`;

/** Incidents of one project in a Map, with the moves the chat routes make (no-ops when they do not apply). */
class MapIncidents implements IncidentCommands {
  readonly incidents = new Map<string, IncidentView>();

  add(id: string, severity: Severity, title: string, detectedAt: string): void {
    this.incidents.set(id, {
      id,
      title,
      severity,
      status: 'detected',
      env: 'production',
      services: ['checkout'],
      root_cause_summary: '',
      dashboard_url: dashboardUrl(id),
      source: 'detector',
      fingerprint: null,
      evidence: null,
      cost_impact: null,
      detected_at: detectedAt,
      escalated_at: null,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolved_by: null,
      updated_at: detectedAt,
      assignee: null,
      assigned_at: null,
      assigned_by: null,
    });
  }

  async acknowledge(projectId: string, id: string, by: string) {
    const incident = this.find(projectId, id);
    if (incident && (incident.status === 'detected' || incident.status === 'escalated')) {
      Object.assign(incident, {
        status: 'acknowledged',
        acknowledged_by: by,
        acknowledged_at: new Date(T0).toISOString(),
      });
    }
    return incident;
  }

  async resolve(projectId: string, id: string, by: string) {
    const incident = this.find(projectId, id);
    if (incident && incident.status !== 'resolved')
      Object.assign(incident, { status: 'resolved', resolved_by: by, resolved_at: new Date(T0).toISOString() });
    return incident;
  }

  async listOpen(projectId: string) {
    return projectId === 'proj_1' ? [...this.incidents.values()].filter((i) => i.status !== 'resolved') : [];
  }

  private find(projectId: string, id: string) {
    return projectId === 'proj_1' ? this.incidents.get(id) : undefined;
  }

  // Moves the chat routes never make.
  open(): never {
    throw new Error('not a chat move');
  }
  update(): never {
    throw new Error('not a chat move');
  }
  escalate(): never {
    throw new Error('not a chat move');
  }
  findOpen(): never {
    throw new Error('not a chat move');
  }
}

let store: MapIncidents;
let chatApp: Integration | undefined;
let app: ReturnType<typeof chatIntegrationRoutes>;
/** The audit log's database: the incidents here are not in it, so their moves are answered but leave no entry. */
let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(':memory:');
  await migrateToLatest(database);
});
afterAll(() => database.close());

beforeEach(() => {
  store = new MapIncidents();
  store.add('inc_1', 'medium', 'Slow search', '2024-05-01T10:00:00Z');
  store.add('inc_2', 'critical', 'Checkout <fails> & retries', '2024-05-01T11:00:00Z');
  chatApp = { config: {}, secrets: { bot_token: 'xoxb-1', signing_secret: SIGNING_SECRET } };
  const integrations: Integrations = { get: async (kind) => (kind === 'chat_app' ? chatApp : undefined) };
  app = chatIntegrationRoutes({
    commands: store,
    db: database.db,
    integrations: (projectId) => (projectId === 'proj_1' ? integrations : { get: async () => undefined }),
    clock: { now: () => T0 },
  });
});

/** Posts a form the way the chat app does: signed with the signing secret over `v0:<timestamp>:<body>`. */
function post(
  path: string,
  fields: Record<string, string>,
  options: { secret?: string; sentAt?: number; signature?: string | null } = {},
) {
  const body = new URLSearchParams(fields).toString();
  const timestamp = String(Math.floor((options.sentAt ?? T0) / 1000));
  const signature = `v0=${createHmac('sha256', options.secret ?? SIGNING_SECRET)
    .update(`v0:${timestamp}:${body}`)
    .digest('hex')}`;
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': timestamp,
  };
  if (options.signature !== null) headers['x-slack-signature'] = options.signature ?? signature;
  return app.request(path, { method: 'POST', headers, body });
}

const click = (actionId: string, value: string, extra: Record<string, unknown> = {}) => ({
  payload: JSON.stringify({
    type: 'block_actions',
    team: { id: 'T0001', domain: 'acme' },
    user: { id: 'U0001', username: 'alice', name: 'alice' },
    actions: [{ type: 'button', action_id: actionId, block_id: 'incident_actions', value, action_ts: '1714564800.1' }],
    response_url: 'https://hooks.slack.com/actions/T0001/1/xyz',
    ...extra,
  }),
});

const command = (text: string) => ({
  command: '/svc',
  text,
  user_name: 'bob',
  team_id: 'T0001',
  response_url: 'https://hooks.slack.com/commands/1',
});

describe('chat app interactions', () => {
  it('acknowledges from the card’s button, as chat:<user>, and tells only the clicker', async () => {
    const res = await post('/proj_1/interactions', click('incident_acknowledge', 'inc_2'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      response_type: 'ephemeral',
      replace_original: false,
      text: '<https://svc.example/incidents/inc_2|Checkout &lt;fails&gt; &amp; retries> is acknowledged (by chat:alice).',
    });
    expect(store.incidents.get('inc_2')).toMatchObject({ status: 'acknowledged', acknowledged_by: 'chat:alice' });
  });

  it('resolves, and a second click changes nothing', async () => {
    await post('/proj_1/interactions', click('incident_resolve', 'inc_1'));
    const again = await post(
      '/proj_1/interactions',
      click('incident_acknowledge', 'inc_1', { user: { id: 'U2', username: 'carol' } }),
    );
    expect((await again.json()).text).toBe(
      '<https://svc.example/incidents/inc_1|Slow search> is resolved (by chat:alice).',
    );
    expect(store.incidents.get('inc_1')).toMatchObject({
      status: 'resolved',
      resolved_by: 'chat:alice',
      acknowledged_by: null,
    });
  });

  it('answers the dashboard link button with an empty 200, and unknown actions or incidents with a clear text', async () => {
    const link = await post('/proj_1/interactions', click('incident_open_dashboard', ''));
    expect(link.status).toBe(200);
    expect(await link.text()).toBe('');
    const unknown = await post('/proj_1/interactions', click('snooze', 'inc_2'));
    expect((await unknown.json()).text).toBe('Unknown action "snooze": nothing was changed.');
    const missing = await post('/proj_1/interactions', click('incident_resolve', 'inc_404'));
    expect((await missing.json()).text).toBe('Incident inc_404 was not found in this project.');
    const shortcut = await post('/proj_1/interactions', {
      payload: JSON.stringify({ type: 'shortcut', team: { id: 'T0001' } }),
    });
    expect(await shortcut.json()).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringContaining('not supported'),
    });
    expect(store.incidents.get('inc_2')!.status).toBe('detected');
  });

  it('rejects a wrong, missing or stale signature with 401 and changes nothing', async () => {
    const forged = await post('/proj_1/interactions', click('incident_resolve', 'inc_2'), { secret: 'another-secret' });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({
      error: { code: 'unauthorized', message: expect.stringContaining('X-Slack-Signature') },
    });
    expect((await post('/proj_1/interactions', click('incident_resolve', 'inc_2'), { signature: null })).status).toBe(
      401,
    );
    expect(
      (await post('/proj_1/interactions', click('incident_resolve', 'inc_2'), { signature: 'v0=abc' })).status,
    ).toBe(401);
    // Correctly signed, but six minutes old (or early): a replay.
    expect(
      (await post('/proj_1/interactions', click('incident_resolve', 'inc_2'), { sentAt: T0 - 6 * 60_000 })).status,
    ).toBe(401);
    expect(
      (await post('/proj_1/interactions', click('incident_resolve', 'inc_2'), { sentAt: T0 + 6 * 60_000 })).status,
    ).toBe(401);
    // Four minutes is within Slack's window.
    expect(
      (await post('/proj_1/interactions', click('incident_resolve', 'inc_1'), { sentAt: T0 - 4 * 60_000 })).status,
    ).toBe(200);
    expect(store.incidents.get('inc_2')!.status).toBe('detected');
  });

  it('checks the signature over the exact bytes received', async () => {
    const fields = click('incident_resolve', 'inc_2');
    const body = new URLSearchParams(fields).toString();
    const timestamp = String(T0 / 1000);
    const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    const tampered = body.replace('inc_2', 'inc_1');
    const res = await app.request('/proj_1/interactions', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': signature,
      },
      body: tampered,
    });
    expect(res.status).toBe(401);
    expect(store.incidents.get('inc_1')!.status).toBe('detected');
  });

  it('answers 404 for a project without the chat app, 403 for another workspace when one is configured, 400 without a payload', async () => {
    expect((await post('/proj_2/interactions', click('incident_resolve', 'inc_2'))).status).toBe(404);
    chatApp = { config: { team: 'T0002' }, secrets: { bot_token: 'xoxb-1', signing_secret: SIGNING_SECRET } };
    expect((await post('/proj_1/interactions', click('incident_resolve', 'inc_2'))).status).toBe(403);
    expect((await post('/proj_1/commands', command('status'))).status).toBe(403);
    chatApp = { config: { team: 'T0001' }, secrets: { bot_token: 'xoxb-1', signing_secret: SIGNING_SECRET } };
    const noPayload = await post('/proj_1/interactions', { foo: 'bar' });
    expect(noPayload.status).toBe(400);
    expect(await noPayload.json()).toMatchObject({ error: { details: { field: 'payload' } } });
    expect(store.incidents.get('inc_2')!.status).toBe('detected');
  });
});

describe('/svc slash command', () => {
  it('lists open incidents, most severe first, with dashboard links', async () => {
    store.add('inc_3', 'critical', 'Payments down', '2024-05-01T11:30:00Z');
    store.add('inc_4', 'low', 'Gone already', '2024-05-01T09:00:00Z');
    await store.resolve('proj_1', 'inc_4', 'chat:bob');
    await store.acknowledge('proj_1', 'inc_3', 'chat:bob');
    const res = await post('/proj_1/commands', command('status'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      response_type: 'ephemeral',
      replace_original: false,
      text: [
        '*3 open incidents*',
        '🔴 *CRITICAL* <https://svc.example/incidents/inc_2|Checkout &lt;fails&gt; &amp; retries> · production · checkout · Detected',
        '🔴 *CRITICAL* <https://svc.example/incidents/inc_3|Payments down> · production · checkout · Acknowledged by chat:bob',
        '🟡 *MEDIUM* <https://svc.example/incidents/inc_1|Slow search> · production · checkout · Detected',
      ].join('\n'),
    });
  });

  it('says so when nothing is open', async () => {
    await store.resolve('proj_1', 'inc_1', 'x');
    await store.resolve('proj_1', 'inc_2', 'x');
    expect((await (await post('/proj_1/commands', command('  status  '))).json()).text).toBe('No open incidents.');
  });

  it('explains itself on help and on an unknown subcommand', async () => {
    expect((await (await post('/proj_1/commands', command(''))).json()).text).toBe(
      '`/svc status` lists the open incidents of this project, most severe first.',
    );
    const unknown = await post('/proj_1/commands', command('page everyone'));
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({
      response_type: 'ephemeral',
      text: 'Unknown command `/svc page`. Try `/svc status`.',
    });
  });

  it('needs a valid signature too', async () => {
    expect((await post('/proj_1/commands', command('status'), { secret: 'nope' })).status).toBe(401);
  });
});
