import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { createKey } from '../../server/src/index';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { errorLog } from '../support/error-logs';
import { str } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The control-plane endpoints the console needs (issue 20), through the real server over HTTP on SQLite and
 * PostgreSQL: who a key is (`/me`), editing channels (secrets kept unless given) and rules, the rules' evaluation order,
 * the delivery log's filters and paging, the incident and issue listings' filters, and a `read` key that views all of
 * it and changes none of it. Every refused request names its field and changes nothing.
 */
const kinds = await databaseKinds();
const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

type ErrorBody = { error: { code: string; message: string; details?: { field?: string } } };
interface Channel {
  id: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
  secrets_set: string[];
  created_at: string;
}
interface Rule {
  id: string;
  name: string;
  position: number;
  conditions: Record<string, string[]>;
  channels: string[];
  delay_seconds: number;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

describe.each(kinds)('console API on %s', (kind) => {
  let t: TestServer;
  let receiver: Receiver;
  let readKey: string;
  let adminKey: string;

  const call = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    key = t.controlKey,
  ) => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (res.status === 204 ? null : await res.json()) as T };
  };
  const get = <T = Record<string, unknown>>(path: string, key?: string) => call<T>('GET', path, undefined, key);
  /** Every row of a table, to show a refused request changed nothing. */
  const rows = async (table: string) =>
    JSON.stringify((await sql`select * from ${sql.table(table)} order by 1`.execute(t.server.database.db)).rows);
  /** A request that must be refused with a 400 naming `field`, leaving `table` as it was. */
  const refused = async (table: string, method: string, path: string, body: unknown, field: string) => {
    const before = await rows(table);
    const res = await call<ErrorBody>(method, path, body);
    expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details?.field).toBe(field);
    expect(res.body.error.message).toContain(field.split(/[.[]/)[0]);
    expect(await rows(table), `${method} ${path} changed ${table}`).toBe(before);
  };
  const webhook = async (name: string, secret?: string) =>
    (
      await call<Channel>('POST', '/notifications/channels', {
        type: 'webhook',
        name,
        config: { url: `${receiver.url}/${name}`, ...(secret ? { secret } : {}) },
      })
    ).body;
  const storedSecrets = async (id: string) => {
    const row = await t.server.database.db
      .selectFrom('notification_channels')
      .select('secrets')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return t.server.notify.box.open<Record<string, unknown>>(row.secrets);
  };
  const allPages = async <T extends { id: string }>(path: string) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page: Page<T> = (await get<Page<T>>(`${path}${sep}limit=1${cursor ? `&cursor=${cursor}` : ''}`)).body;
      seen.push(...page.data.map((d) => d.id));
      cursor = page.next_cursor;
    } while (cursor);
    return seen;
  };

  /** Ids by (value, id) descending: the order of a sorted listing, whose ties are broken by id in the same direction. */
  const descending = (items: Array<{ id: string; value: number }>) =>
    [...items].sort((a, b) => b.value - a.value || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((i) => i.id);
  /** `path` (with a query) sorted by `sort` both ways: in one page, and one row a page without gaps or repeats. */
  const expectSorted = async (path: string, sort: string, desc: string[]) => {
    for (const order of ['desc', 'asc'] as const) {
      const want = order === 'desc' ? desc : [...desc].reverse();
      const whole = (await get<Page<{ id: string }>>(`${path}&sort=${sort}&order=${order}&limit=200`)).body.data.map(
        (d) => d.id,
      );
      expect([sort, order, whole]).toEqual([sort, order, want]);
      expect([sort, order, await allPages(`${path}&sort=${sort}&order=${order}`)]).toEqual([sort, order, want]);
    }
  };
  /** A cursor of `path` under `sort` descending, given to each of `others` (another sort or order): a 400 naming cursor. */
  const expectForeignCursorRefused = async (path: string, sort: string, others: string[]) => {
    const { next_cursor: cursor } = (await get<Page<unknown>>(`${path}&sort=${sort}&limit=1`)).body;
    expect(cursor).not.toBeNull();
    for (const other of others) {
      const res = await get<ErrorBody>(`${path}&${other}&limit=1&cursor=${cursor}`);
      expect([other, res.status, res.body.error?.details?.field]).toEqual([other, 400, 'cursor']);
      expect(res.body.error.message).toContain(`${sort} desc`);
    }
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestServer(kind, {
      detection: false,
      allowPrivateTargets: true,
      secretKey: 'c'.repeat(40),
      outbox: { pollMs: 60_000 },
    });
    readKey = (
      await createKey(t.server.database.db, systemClock, { projectId: t.projectId, scope: 'read', name: 'viewer' })
    ).key;
    adminKey = (await createKey(t.server.database.db, systemClock, { projectId: t.projectId, scope: 'admin' })).key;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('GET /me tells who the key is; a bad key gets the 401, an ingest key a 403 saying what it is, an admin key its projects', async () => {
    const me = await get<{
      project: { id: string; name: string };
      tenant: { id: string; name: string };
      key: { id: string; name: string; scope: string; expires_at: string | null };
      features: Record<string, boolean>;
      apps: Array<{ id: string; name: string }>;
    }>('/me');
    expect(me.status).toBe(200);
    expect(me.body.project.id).toBe(t.projectId);
    expect(me.body.tenant.id).toEqual(expect.any(String));
    expect(me.body.key).toMatchObject({ scope: 'control', name: 'default control key', expires_at: null });
    expect(me.body.features).toEqual({ ai_analysis: false, github: false, demo: false });
    expect(me.body.apps.map((a) => a.name)).toEqual([t.appName]);

    expect((await get<{ key: { scope: string; name: string } }>('/me', readKey)).body.key).toMatchObject({
      scope: 'read',
      name: 'viewer',
    });
    const repository = '/apps/web-app/repository';
    expect((await call('PUT', repository, { owner: 'acme', repo: 'shop', token: 'github_pat_example' })).status).toBe(
      200,
    );
    expect((await get<{ features: Record<string, boolean> }>('/me')).body.features.github).toBe(true);
    expect((await call('DELETE', repository)).status).toBe(204);

    const bad = await get<ErrorBody>('/me', 'svc_control_not-a-key');
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('unauthorized');
    expect(bad.headers.get('www-authenticate')).toContain('Bearer');
    const ingest = await get<ErrorBody & { error: { details: { key_scope?: string } } }>('/me', t.ingestKey);
    expect(ingest.status).toBe(403);
    expect(ingest.body.error.message).toMatch(/^this is an ingest key: it only sends telemetry; send a control key/);
    expect(ingest.body.error.details).toEqual({ key_scope: 'ingest' });
    const admin = await get<{ key: { scope: string }; project: { id: string }; projects: Array<{ id: string }> }>(
      '/me',
      adminKey,
    );
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ key: { scope: 'admin' }, project: { id: t.projectId } });
    expect(admin.body.projects.map((p) => p.id)).toContain(t.projectId);
    expect((await get<{ projects: Array<{ id: string }> }>('/me')).body.projects).toEqual([
      { id: t.projectId, name: 'default' },
    ]);
  });

  it('PATCH a channel: name and config validated as on creation, secrets kept unless given and never shown', async () => {
    const channel = await webhook('edit-me', WEBHOOK_SECRET);
    const listed = (await get<{ data: Channel[] }>('/notifications/channels')).body.data.find(
      (c) => c.id === channel.id,
    )!;
    expect(listed).toMatchObject({
      type: 'webhook',
      name: 'edit-me',
      config: { url: `${receiver.url}/edit-me` },
      secrets_set: ['secret'],
    });
    expect(listed.created_at).toEqual(expect.any(String));

    const path = `/notifications/channels/${channel.id}`;
    await refused('notification_channels', 'PATCH', path, { name: '' }, 'name');
    await refused('notification_channels', 'PATCH', path, { config: { url: 'ftp://example.com/x' } }, 'config.url');
    await refused(
      'notification_channels',
      'PATCH',
      path,
      { config: { url: receiver.url, secret: 'hunter2' } },
      'config.secret',
    );
    await refused('notification_channels', 'PATCH', path, { type: 'chat' }, 'type');
    await refused('notification_channels', 'PATCH', path, { name: 'x', config: 'url' }, 'config');
    expect((await call<ErrorBody>('PATCH', '/notifications/channels/ch_missing', { name: 'x' })).status).toBe(404);

    const renamed = await call<Channel>('PATCH', path, { name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'renamed',
      config: { url: `${receiver.url}/edit-me` },
      secrets_set: ['secret'],
    });

    const moved = await call<Channel>('PATCH', path, { config: { url: `${receiver.url}/moved` } });
    expect(moved.body.config).toEqual({ url: `${receiver.url}/moved` });
    expect(await storedSecrets(channel.id)).toEqual({ secret: WEBHOOK_SECRET });
    expect(JSON.stringify(moved.body)).not.toContain(WEBHOOK_SECRET.slice(6, 20));

    const other = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;
    await call('PATCH', path, { config: { url: `${receiver.url}/moved`, secret: other } });
    expect(await storedSecrets(channel.id)).toEqual({ secret: other });
    expect((await get<Channel>(path)).body).toMatchObject({
      name: 'renamed',
      config: { url: `${receiver.url}/moved` },
      secrets_set: ['secret'],
    });
  });

  it('PATCH keeps the secrets of other kinds too: a chat webhook URL, an SMTP password', async () => {
    const chat = (
      await call<Channel>('POST', '/notifications/channels', {
        type: 'chat',
        name: 'room',
        config: { channel: '#ops', webhook_url: `${receiver.url}/T1/B2/token` },
      })
    ).body;
    expect(chat.secrets_set).toEqual(['webhook_url']);
    const edited = await call<Channel>('PATCH', `/notifications/channels/${chat.id}`, {
      config: { channel: '#incidents' },
    });
    expect(edited.body).toMatchObject({
      config: { channel: '#incidents', webhook_host: new URL(receiver.url).host },
      secrets_set: ['webhook_url'],
    });
    expect(await storedSecrets(chat.id)).toEqual({ webhook_url: `${receiver.url}/T1/B2/token` });

    const smtp = { host: 'mail.example.com', port: 587, user: 'alerts' };
    const email = (
      await call<Channel>('POST', '/notifications/channels', {
        type: 'email',
        name: 'mail',
        config: { to: ['ops@example.com'], from: 'svc@example.com', smtp: { ...smtp, password: 'pw-1' } },
      })
    ).body;
    expect(email.secrets_set).toEqual(['smtp.password']);
    const mailed = await call<Channel>('PATCH', `/notifications/channels/${email.id}`, {
      config: { to: ['oncall@example.com'], from: 'svc@example.com', smtp },
    });
    expect(mailed.status, JSON.stringify(mailed.body)).toBe(200);
    expect(mailed.body.config.to).toEqual(['oncall@example.com']);
    expect(await storedSecrets(email.id)).toEqual({ smtp_password: 'pw-1' });
    expect(JSON.stringify(mailed.body)).not.toContain('pw-1');
  });

  it('PATCH a rule and PUT the order of all rules; GET lists them in evaluation order', async () => {
    for (const rule of (await get<{ data: Rule[] }>('/notifications/rules')).body.data)
      await call('DELETE', `/notifications/rules/${rule.id}`);
    const channel = await webhook('for-rules');
    const make = async (name: string) =>
      (await call<Rule>('POST', '/notifications/rules', { name, channels: [channel.id] })).body;
    const [a, b, c] = [await make('a'), await make('b'), await make('c')];
    const names = async () => (await get<{ data: Rule[] }>('/notifications/rules')).body.data.map((r) => r.name);
    expect(await names()).toEqual(['a', 'b', 'c']);

    await refused('notification_rules', 'PUT', '/notifications/rules/order', { ids: [c.id, b.id] }, 'ids');
    await refused('notification_rules', 'PUT', '/notifications/rules/order', { ids: [c.id, b.id, b.id] }, 'ids');
    await refused(
      'notification_rules',
      'PUT',
      '/notifications/rules/order',
      { ids: [c.id, b.id, a.id, 'rule_other'] },
      'ids',
    );
    await refused('notification_rules', 'PUT', '/notifications/rules/order', { ids: [c.id, b.id, 3] }, 'ids[2]');
    await refused('notification_rules', 'PUT', '/notifications/rules/order', {}, 'ids');

    const ordered = await call<{ data: Rule[] }>('PUT', '/notifications/rules/order', { ids: [c.id, a.id, b.id] });
    expect(ordered.status).toBe(200);
    expect(ordered.body.data.map((r) => [r.name, r.position])).toEqual([
      ['c', 1],
      ['a', 2],
      ['b', 3],
    ]);
    expect(await names()).toEqual(['c', 'a', 'b']);
    // A new rule goes after the reordered ones.
    await make('d');
    expect(await names()).toEqual(['c', 'a', 'b', 'd']);

    const path = `/notifications/rules/${a.id}`;
    await refused('notification_rules', 'PATCH', path, { name: '' }, 'name');
    await refused('notification_rules', 'PATCH', path, { channels: [] }, 'channels');
    await refused('notification_rules', 'PATCH', path, { channels: [channel.id, 'ch_missing'] }, 'channels[1]');
    await refused('notification_rules', 'PATCH', path, { delay_seconds: -5 }, 'delay_seconds');
    await refused(
      'notification_rules',
      'PATCH',
      path,
      { conditions: { severity: ['urgent'] } },
      'conditions.severity[0]',
    );
    await refused('notification_rules', 'PATCH', path, { position: 1 }, 'position');
    expect((await call('PATCH', '/notifications/rules/rule_missing', { name: 'x' })).status).toBe(404);

    const edited = await call<Rule>('PATCH', path, {
      name: 'a2',
      conditions: { severity: ['critical'], env: ['production'] },
      delay_seconds: 300,
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: 'a2',
      position: 2,
      conditions: { severity: ['critical'], env: ['production'] },
      channels: [channel.id],
      delay_seconds: 300,
    });
    expect((await get<{ data: Rule[] }>('/notifications/rules')).body.data[1]).toEqual(edited.body);
  });

  it('the delivery log: state, latency and answer per delivery, filtered by state, channel and incident, keyset-paged', async () => {
    const channel = await webhook('log');
    receiver.answer = () => ({ status: 200, body: 'ok' });
    const first = (
      await call<{
        id: string;
        state: string;
        latency_ms: number | null;
        attempt: number;
        response: { status: number; body: string };
      }>('POST', `/notifications/${channel.id}/test`)
    ).body;
    expect(first).toMatchObject({ state: 'delivered', attempt: 1, response: { status: 200, body: 'ok' } });
    expect(first.latency_ms).toEqual(expect.any(Number));
    receiver.answer = () => ({ status: 503, body: 'busy' });
    const second = (await call<{ id: string; state: string }>('POST', `/notifications/${channel.id}/test`)).body;
    expect(second.state).toBe('retrying');
    receiver.answer = () => ({ status: 200, body: 'ok' });

    const ids = (page: Page<{ id: string }>) => page.data.map((d) => d.id);
    expect(
      ids((await get<Page<{ id: string }>>(`/notifications/deliveries?channel_id=${channel.id}&state=retrying`)).body),
    ).toEqual([second.id]);
    expect(
      ids((await get<Page<{ id: string }>>(`/notifications/deliveries?channel_id=${channel.id}&state=delivered`)).body),
    ).toEqual([first.id]);
    expect(await allPages(`/notifications/deliveries?channel_id=${channel.id}`)).toEqual([second.id, first.id]);
    expect((await get<Page<unknown>>(`/notifications/deliveries?incident_id=inc_none`)).body.data).toEqual([]);
    expect((await get<ErrorBody>('/notifications/deliveries?state=lost')).body.error.details?.field).toBe('state');
  });

  it('the delivery log sorted by creation or latency, both ways, a delivery not attempted yet below any latency', async () => {
    const channel = await webhook('sorted');
    receiver.answer = () => ({ status: 200, body: 'ok' });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await call<{ id: string }>('POST', `/notifications/${channel.id}/test`)).body.id);
    // Fixed times and latencies, with ties on both and fractions the API rounds: (created_ms, latency_ms).
    const figures: Array<[number, number | null]> = [
      [1_000, 12.25],
      [1_000, null],
      [2_000, 12.75],
      [3_000, 12.25],
    ];
    for (const [i, [createdMs, latencyMs]] of figures.entries()) {
      await t.server.database.db
        .updateTable('deliveries')
        .set({ created_ms: createdMs, latency_ms: latencyMs })
        .where('id', '=', ids[i]!)
        .execute();
    }
    const path = `/notifications/deliveries?channel_id=${channel.id}`;
    await expectSorted(path, 'created', descending(ids.map((id, i) => ({ id, value: figures[i]![0] }))));
    await expectSorted(path, 'latency', descending(ids.map((id, i) => ({ id, value: figures[i]![1] ?? -1 }))));
    expect(
      (await get<Page<{ id: string; latency_ms: number | null }>>(`${path}&sort=latency`)).body.data.map(
        (d) => d.latency_ms,
      ),
    ).toEqual([13, 12, 12, null]);
    await expectForeignCursorRefused(path, 'latency', ['sort=created', 'sort=latency&order=asc', 'order=desc']);
    expect((await get<ErrorBody>(`${path}&sort=state`)).body.error.details?.field).toBe('sort');
  });

  it('incidents sorted by detection, severity (critical first) or last change, both ways', async () => {
    const specs: Array<{ severity: string; detected: number; updated: number }> = [
      { severity: 'critical', detected: 1_000, updated: 5_000 },
      { severity: 'low', detected: 2_000, updated: 5_000 },
      { severity: 'high', detected: 2_000, updated: 3_000 },
      { severity: 'low', detected: 3_000, updated: 4_000 },
      { severity: 'info', detected: 1_000, updated: 6_000 },
      { severity: 'medium', detected: 3_000, updated: 3_000 },
      // The severity issue events have and rules offer: an external detector may open an incident with it too.
      { severity: 'warning', detected: 2_500, updated: 2_000 },
    ];
    const ids: string[] = [];
    for (const spec of specs) {
      const { id } = (
        await call<{ id: string }>('POST', '/incidents', { title: 'sorted', severity: spec.severity, env: 'sorted-x' })
      ).body;
      await t.server.database.db
        .updateTable('incidents')
        .set({ detected_ms: spec.detected, updated_ms: spec.updated })
        .where('id', '=', id)
        .execute();
      ids.push(id);
    }
    const rank: Record<string, number> = { critical: 6, high: 5, medium: 4, low: 3, warning: 2, info: 1 };
    const path = '/incidents?env=sorted-x';
    await expectSorted(path, 'detected', descending(ids.map((id, i) => ({ id, value: specs[i]!.detected }))));
    await expectSorted(path, 'updated', descending(ids.map((id, i) => ({ id, value: specs[i]!.updated }))));
    await expectSorted(path, 'severity', descending(ids.map((id, i) => ({ id, value: rank[specs[i]!.severity]! }))));
    const bySeverity = (await get<Page<{ severity: string }>>(`${path}&sort=severity`)).body.data.map(
      (d) => d.severity,
    );
    expect(bySeverity).toEqual(['critical', 'high', 'medium', 'low', 'low', 'warning', 'info']);
    expect((await get<Page<{ id: string }>>(`${path}&severity=warning`)).body.data.map((d) => d.id)).toEqual([ids[6]]);
    await expectForeignCursorRefused(path, 'severity', ['sort=updated', 'sort=severity&order=asc', '']);
    await expectForeignCursorRefused(path, 'updated', ['sort=detected']);
    expect((await get<ErrorBody>(`${path}&order=newest`)).body.error.details?.field).toBe('order');
  });

  it('incidents: env and service filters, keyset paging, and the detail with the issue it grew from', async () => {
    const open = async (env: string, services: string[]) =>
      (await call<{ id: string }>('POST', '/incidents', { title: `${env} down`, severity: 'low', env, services })).body
        .id;
    const prod = await open('prod-x', ['Checkout', 'cart_api']);
    const stage = await open('stage-x', ['checkout']);
    const other = await open('prod-x', ['cart-api']);
    expect(await allPages('/incidents?env=prod-x')).toEqual([other, prod]);
    expect(await allPages('/incidents?service=checkout')).toEqual([stage, prod]);
    // `_` is a character here, not a LIKE wildcard; an element matches whole.
    expect(await allPages('/incidents?service=cart_api')).toEqual([prod]);
    expect(await allPages('/incidents?service=cart')).toEqual([]);
    expect((await get<ErrorBody>('/incidents?env=')).status).toBe(200);
    expect((await get<ErrorBody>(`/incidents?env=${'e'.repeat(101)}`)).body.error.details?.field).toBe('env');

    const detail = (await get<Record<string, unknown>>(`/incidents/${prod}`)).body;
    expect(detail).toMatchObject({ id: prod, issue_id: null, evidence: null });
    expect(Object.keys(detail)).toEqual(
      expect.arrayContaining(['cost_impact', 'analysis', 'dashboard_url', 'root_cause_summary']),
    );

    // A detected incident: its issue is the group it grew from.
    await sendErrors([{ sessionId: 'inc-s1' }]);
    const detector = issueDetector(t, systemClock, { threshold: 1 });
    await detector.runOnce();
    const detected = (await get<Page<{ id: string; source: string }>>('/incidents?limit=200')).body.data.find(
      (i) => i.source === 'detector',
    )!;
    const issues = (await get<Page<{ id: string }>>('/issues')).body.data;
    expect((await get<{ issue_id: string | null }>(`/incidents/${detected.id}`)).body.issue_id).toBe(issues[0]!.id);
  });

  /** Error logs of the bootstrapped app, one per entry; `user` names the session's user. */
  async function sendErrors(errors: Array<{ sessionId: string; message?: string; user?: string; atMs?: number }>) {
    for (const e of errors) {
      const body = errorLog({ sessionId: e.sessionId, message: e.message, atMs: e.atMs ?? Date.now() - 1000 });
      const record = body.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!;
      record.attributes.push(str('session.id', e.sessionId), ...(e.user ? [str('user.id', e.user)] : []));
      const res = await fetch(`${t.url}/otlp/v1/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
    }
  }

  it('issues: sorted by first_seen, and the detail lists affected sessions with their users', async () => {
    const now = Date.now();
    await sendErrors([
      { sessionId: 'old-1', message: 'old failure', atMs: now - 60_000 },
      { sessionId: 'new-1', message: 'new failure', user: 'u-ann', atMs: now - 30_000 },
      { sessionId: 'new-2', message: 'new failure', atMs: now - 20_000 },
      { sessionId: 'old-2', message: 'old failure', atMs: now - 10_000 },
    ]);
    await issueDetector(t, systemClock, { threshold: 100 }).runOnce();
    type Issue = { id: string; message: string };
    const order = async (sort: string) =>
      (await get<Page<Issue>>(`/issues?q=failure&sort=${sort}`)).body.data.map((i) => i.message);
    expect(await order('first_seen')).toEqual(['new failure', 'old failure']);
    expect(await order('last_seen')).toEqual(['old failure', 'new failure']);
    expect((await get<ErrorBody>('/issues?sort=newest')).body.error.details?.field).toBe('sort');

    const [newer] = (await get<Page<Issue>>('/issues?q=new%20failure')).body.data;
    const detail = (
      await get<{
        sessions: number;
        sessions_sample: Array<{ session_id: string; user_id: string | null; first_seen: string; last_seen: string }>;
      }>(`/issues/${newer!.id}`)
    ).body;
    expect(detail.sessions).toBe(2);
    expect(detail.sessions_sample.map((s) => [s.session_id, s.user_id])).toEqual([
      ['new-2', null],
      ['new-1', 'u-ann'],
    ]);
  });

  it("GET /issues/facets: the issue filters' environments and releases, the most recently seen release first", async () => {
    const body = errorLog({
      sessionId: 'facets-1',
      message: 'facets failure',
      release: '1.5.0',
      env: 'production',
      atMs: Date.now() - 500,
    });
    const sent = await fetch(`${t.url}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(sent.status).toBe(200);
    await issueDetector(t, systemClock, { threshold: 100 }).runOnce();
    expect((await get('/issues/facets')).body).toEqual({
      envs: ['production', 'staging'],
      releases: ['1.5.0', '1.4.2'],
    });
    expect((await get('/issues/facets', readKey)).status).toBe(200);
  });

  it("search: a session, trace, issue or incident id, or a user id, finds that object of the key's project only", async () => {
    // The sessions and issues of the test before: session new-1 of user u-ann, the issue "new failure".
    const [issue] = (await get<Page<{ id: string }>>('/issues?q=new%20failure')).body.data;
    const incident = (await call<{ id: string }>('POST', '/incidents', { title: 'search finds me', severity: 'low' }))
      .body;
    const traceId = 'ab'.repeat(16);
    const span = {
      traceId,
      spanId: 'cd'.repeat(8),
      name: 'click',
      kind: 1,
      startTimeUnixNano: `${Date.now() - 5000}000000`,
      endTimeUnixNano: `${Date.now() - 4900}000000`,
    };
    const attributes = [str('event_type', 'click'), str('target_element', 'BUTTON'), str('target.name', 'Pay')];
    const traces = {
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'web-app')] },
          scopeSpans: [{ scope: { name: '@svc/test' }, spans: [{ ...span, attributes }] }],
        },
      ],
    };
    const sent = await fetch(`${t.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(traces),
    });
    expect(sent.status).toBe(200);

    type Match = { kind: string; id: string; title: string; at: string | null };
    const search = async (q: string, key?: string) => {
      const res = await get<{ data: Match[] }>(`/search?q=${encodeURIComponent(q)}`, key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data;
    };
    expect(await search('new-1')).toEqual([
      { kind: 'session', id: 'new-1', title: 'Session of user u-ann', at: expect.any(String) },
    ]);
    expect(await search(' u-ann ')).toEqual([
      { kind: 'user', id: 'u-ann', title: 'User u-ann: 1 session', at: expect.any(String) },
    ]);
    // Hex ids in any case, as someone may paste them.
    expect(await search(issue!.id.toUpperCase())).toEqual([
      { kind: 'issue', id: issue!.id, title: expect.stringContaining('new failure'), at: expect.any(String) },
    ]);
    expect(await search(incident.id)).toEqual([
      { kind: 'incident', id: incident.id, title: 'Incident: search finds me', at: expect.any(String) },
    ]);
    expect(await search(traceId.toUpperCase())).toEqual([
      { kind: 'trace', id: traceId, title: 'Trace: click on Pay', at: expect.any(String) },
    ]);
    expect(await search('nothing-like-this')).toEqual([]);
    expect(await search('new-1', readKey)).toHaveLength(1);
    // Another project's key finds none of this project's objects.
    const other = (
      await call<{ control_key: { key: string } }>('POST', '/projects', { name: 'search-elsewhere' }, adminKey)
    ).body;
    for (const q of ['new-1', 'u-ann', issue!.id, incident.id, traceId])
      expect(await search(q, other.control_key.key), q).toEqual([]);

    for (const [query, field] of [
      ['', 'q'],
      ['q=%20', 'q'],
      [`q=${'x'.repeat(257)}`, 'q'],
      ['q=a&kind=session', 'kind'],
    ]) {
      const res = await get<ErrorBody>(`/search?${query}`);
      expect([query, res.status, res.body.error.details?.field]).toEqual([query, 400, field]);
    }
  });

  it('a read key views every console endpoint and changes nothing', async () => {
    const channel = await webhook('read-scope');
    const rule = (await call<Rule>('POST', '/notifications/rules', { name: 'read-scope', channels: [channel.id] }))
      .body;
    const incident = (await call<{ id: string }>('POST', '/incidents', { title: 'read scope', severity: 'low' })).body;
    const [issue] = (await get<Page<{ id: string }>>('/issues')).body.data;
    for (const path of [
      '/me',
      '/notifications/channels',
      `/notifications/channels/${channel.id}`,
      '/notifications/rules',
      '/notifications/deliveries?state=delivered',
      '/incidents?env=production',
      `/incidents/${incident.id}`,
      '/issues?sort=first_seen',
      `/issues/${issue!.id}`,
    ]) {
      expect((await get(path, readKey)).status, path).toBe(200);
    }
    const rules = (await get<{ data: Rule[] }>('/notifications/rules')).body.data.map((r) => r.id);
    const writes: Array<[string, string, unknown]> = [
      ['PATCH', `/notifications/channels/${channel.id}`, { name: 'taken over' }],
      ['POST', '/notifications/channels', { type: 'webhook', name: 'x', config: { url: receiver.url } }],
      ['DELETE', `/notifications/channels/${channel.id}`, undefined],
      ['PATCH', `/notifications/rules/${rule.id}`, { name: 'taken over' }],
      ['PUT', '/notifications/rules/order', { ids: [...rules].reverse() }],
      ['DELETE', `/notifications/rules/${rule.id}`, undefined],
      ['POST', `/notifications/${channel.id}/test`, undefined],
      ['POST', `/incidents/${incident.id}/acknowledge`, undefined],
      ['PATCH', `/issues/${issue!.id}`, { status: 'ignored' }],
    ];
    const tables = ['notification_channels', 'notification_rules', 'deliveries', 'incidents', 'detection_groups'];
    const before = await Promise.all(tables.map(rows));
    for (const [method, path, body] of writes) {
      const res = await call<ErrorBody>(method, path, body, readKey);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toContain('read key');
    }
    expect(await Promise.all(tables.map(rows))).toEqual(before);
  });
});
