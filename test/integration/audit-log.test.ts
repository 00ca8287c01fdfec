import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { systemClock } from '../../server/src/clock';
import { applyRetention, createKey } from '../../server/src/index';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { errorLog } from '../support/error-logs';
import { createPerson, sessionHeaders, signInAs } from '../support/people';
import { startReceiver, type Receiver } from '../support/receiver';
import { postIngest, startTestServer, type TestServer } from '../support/server';

/**
 * The audit log (issue 31, docs/teams.md "Audit log") through the real server over HTTP on SQLite and PostgreSQL:
 * every control-plane write operation of the OpenAPI document, performed once with a sample request, leaves exactly
 * one entry naming the key, the operation and its target; no entry holds a secret the requests carried or the answers
 * showed once; a person's change names their e-mail, in the audit log and in the issue's and incident's history; the
 * listing's filters and paging, the JSON lines export, and retention.
 */
const kinds = await databaseKinds();

const GITHUB_TOKEN = 'github_pat_11AUDIT0Q7xYzWv3KpLmN2_s3cr3tT0k3nF0rAud1tL0gT3st';
const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const WEBHOOK_QUERY_TOKEN = 'q9Zk2LmX7vB4nR8tY1wP6sD3fG5hJ0cA';
const CHAT_PATH_TOKEN = 'T0AUDIT/B0AUDIT/Xq7Lm2Np9Rs4Tv6Wy8Za1Bc3';
const BOT_TOKEN = 'xoxb-1234-5678-auditBotTokenSecret';
const SIGNING_SECRET = 'a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4';
const TWILIO_TOKEN = 'twilio-audit-auth-token-value';
const AWS_ROLE = 'arn:aws:iam::123456789012:role/audit-secret-role';
const ERASED_USER = 'u-audit-erased-person';

type Json = Record<string, unknown>;
interface Entry {
  id: string;
  at: string;
  actor: { kind: string; id: string; label: string };
  operation: string;
  target: { type: string; id: string } | null;
  changes: { before?: unknown; after?: unknown };
  address: string | null;
  status: number;
  project_id: string | null;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** One write operation as the test performs it: its path and body from what earlier ones made, and its target. */
interface Sample {
  path: () => string;
  body?: () => unknown;
  admin?: boolean;
  /** Made by the organisation's owner in a console session: no key manages the organisation. */
  owner?: boolean;
  /** The expected target: a function of the answer; null when the operation acts on no one object. */
  target: (answer: Json) => { type: string; id: string } | null;
  /** Keeps what later samples need (ids) and what no entry may hold (keys shown once). */
  keep?: (answer: Json) => void;
}

/**
 * Operations a key cannot exercise here, each with the reason; the test fails if the document has a write operation
 * in neither this list nor the samples.
 */
const SKIPPED: Record<string, string> = {
  'POST /control-plane/issues/{id}/pull-request':
    'opens a pull request on GitHub: needs a GitHub API (github-fix tests)',
  'DELETE /control-plane/me/sessions/{id}':
    "a person's own session: keys have none (the person case below changes as one)",
  'DELETE /control-plane/members/{user_id}':
    'removing the person the member samples change would leave nothing for them; covered by the members tests',
  'POST /control-plane/cost/providers/{id}/sync': 'starts a sync against the cloud provider, which this test has not',
  'POST /control-plane/alert-rules/preview':
    'changes nothing (declared x-svc-changes: false): no entry; the alert rules suite checks it writes none',
};

describe.each(kinds)('audit log on %s', (kind) => {
  let t: TestServer;
  let receiver: Receiver;
  let admin: { id: string; key: string; name: string };
  let owner: { id: string; email: string; headers: Record<string, string> };
  const made: Record<string, string> = {};
  /** Secrets the requests carried or the answers showed once: no entry may hold any. */
  const secrets = [
    GITHUB_TOKEN,
    WEBHOOK_SECRET,
    WEBHOOK_QUERY_TOKEN,
    CHAT_PATH_TOKEN,
    BOT_TOKEN,
    SIGNING_SECRET,
    TWILIO_TOKEN,
    AWS_ROLE,
  ];
  const shownOnce = (answer: Json, ...path: string[]) => {
    const value = path.reduce<unknown>((v, step) => (v as Json)[step], answer);
    expect(typeof value).toBe('string');
    secrets.push(value as string);
  };

  /** A request with a key, or with a console session's headers. */
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    who: string | Record<string, string> = t.controlKey,
  ) => {
    const auth = typeof who === 'string' ? { authorization: `Bearer ${who}` } : who;
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Json };
  };
  const auditPage = async (query: string) => {
    const res = await call('GET', `/control-plane/audit${query}`, undefined, admin.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as unknown as Page<Entry>;
  };
  const allEntries = async (query = '') => {
    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const sep = query ? '&' : '?';
      const page: Page<Entry> = await auditPage(`${query}${sep}limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return seen;
  };
  const newest = async () => (await auditPage('?limit=1')).data[0];

  const created = (type: string) => (answer: Json) => ({ type, id: answer.id as string });
  const at = (type: string, id: () => string) => () => ({ type, id: id() });
  const issueIds = () => [made.issue!, made.issue2!];

  const samples = (): Record<string, Sample> => ({
    'POST /control-plane/projects': {
      admin: true,
      path: () => '/control-plane/projects',
      body: () => ({ name: 'audited' }),
      target: created('project'),
      keep: (a) => {
        made.project = a.id as string;
        shownOnce(a, 'ingest_key', 'key');
        shownOnce(a, 'control_key', 'key');
      },
    },
    'POST /control-plane/projects/{id}/keys': {
      admin: true,
      path: () => `/control-plane/projects/${made.project}/keys`,
      body: () => ({ scope: 'control', name: 'ci' }),
      target: created('key'),
      keep: (a) => shownOnce(a, 'key'),
    },
    'POST /control-plane/keys': {
      admin: true,
      path: () => '/control-plane/keys',
      body: () => ({ scope: 'control', name: 'deploys' }),
      target: created('key'),
      keep: (a) => {
        made.key = a.id as string;
        shownOnce(a, 'key');
      },
    },
    'DELETE /control-plane/keys/{id}': {
      admin: true,
      path: () => `/control-plane/keys/${made.key}`,
      target: at('key', () => made.key!),
    },
    'POST /control-plane/incidents': {
      path: () => '/control-plane/incidents',
      body: () => ({ title: 'Checkout fails', severity: 'high', env: 'production', services: ['checkout'] }),
      target: created('incident'),
      keep: (a) => (made.incident = a.id as string),
    },
    'POST /control-plane/incidents/{id}/acknowledge': {
      path: () => `/control-plane/incidents/${made.incident}/acknowledge`,
      body: () => ({}),
      target: at('incident', () => made.incident!),
    },
    'POST /control-plane/incidents/{id}/resolve': {
      path: () => `/control-plane/incidents/${made.incident}/resolve`,
      body: () => ({}),
      target: at('incident', () => made.incident!),
    },
    'POST /control-plane/notifications/channels': {
      path: () => '/control-plane/notifications/channels',
      body: () => ({
        type: 'webhook',
        name: 'on-call',
        config: { url: `${receiver.url}/hook?token=${WEBHOOK_QUERY_TOKEN}`, secret: WEBHOOK_SECRET },
      }),
      target: created('channel'),
      keep: (a) => (made.channel = a.id as string),
    },
    'PATCH /control-plane/notifications/channels/{id}': {
      path: () => `/control-plane/notifications/channels/${made.channel}`,
      body: () => ({ name: 'on-call 2', config: { url: `${receiver.url}/services/${CHAT_PATH_TOKEN}` } }),
      target: at('channel', () => made.channel!),
    },
    'POST /control-plane/notifications/{channelId}/test': {
      path: () => `/control-plane/notifications/${made.channel}/test`,
      target: at('channel', () => made.channel!),
    },
    'POST /control-plane/alert-rules': {
      path: () => '/control-plane/alert-rules',
      body: () => ({
        name: 'slow checkout',
        signal: 'vitals',
        query: { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout*' } },
        condition: { type: 'threshold', op: 'above', value: 4000 },
      }),
      target: created('alert_rule'),
      keep: (a) => (made.alertRule = a.id as string),
    },
    'PATCH /control-plane/alert-rules/{id}': {
      path: () => `/control-plane/alert-rules/${made.alertRule}`,
      body: () => ({ for_seconds: 300 }),
      target: at('alert_rule', () => made.alertRule!),
    },
    'DELETE /control-plane/alert-rules/{id}': {
      path: () => `/control-plane/alert-rules/${made.alertRule}`,
      target: at('alert_rule', () => made.alertRule!),
    },
    'POST /control-plane/notifications/rules': {
      path: () => '/control-plane/notifications/rules',
      body: () => ({
        name: 'page',
        conditions: { severity: ['critical'] },
        channels: [made.channel],
        delay_seconds: 0,
      }),
      target: created('rule'),
      keep: (a) => (made.rule = a.id as string),
    },
    'PUT /control-plane/retention': {
      path: () => '/control-plane/retention',
      body: () => ({ replays: 14, metrics: null }),
      target: () => ({ type: 'project', id: t.projectId }),
    },
    'PUT /control-plane/limits': {
      path: () => '/control-plane/limits',
      body: () => ({ spans: { daily: 50_000_000 } }),
      target: () => ({ type: 'project', id: t.projectId }),
    },
    'POST /control-plane/erasures': {
      path: () => '/control-plane/erasures',
      body: () => ({ user_id: ERASED_USER }),
      target: created('erasure'),
      // The entry names the job and a digest of the person's id, never the id (docs/governance.md).
      keep: () => secrets.push(ERASED_USER),
    },
    'PUT /control-plane/notifications/rules/order': {
      path: () => '/control-plane/notifications/rules/order',
      body: () => ({ ids: [made.rule] }),
      target: () => null,
    },
    'PATCH /control-plane/notifications/rules/{id}': {
      path: () => `/control-plane/notifications/rules/${made.rule}`,
      body: () => ({ delay_seconds: 300 }),
      target: at('rule', () => made.rule!),
    },
    'DELETE /control-plane/notifications/rules/{id}': {
      path: () => `/control-plane/notifications/rules/${made.rule}`,
      target: at('rule', () => made.rule!),
    },
    'DELETE /control-plane/notifications/channels/{id}': {
      path: () => `/control-plane/notifications/channels/${made.channel}`,
      target: at('channel', () => made.channel!),
    },
    'PUT /control-plane/integrations/chat-app': {
      path: () => '/control-plane/integrations/chat-app',
      body: () => ({ bot_token: BOT_TOKEN, signing_secret: SIGNING_SECRET }),
      target: () => ({ type: 'integration', id: 'chat-app' }),
    },
    'PUT /control-plane/integrations/telephony': {
      path: () => '/control-plane/integrations/telephony',
      body: () => ({
        account_sid: `AC${'0123456789abcdef'.repeat(2)}`,
        auth_token: TWILIO_TOKEN,
        from: '+15550100000',
      }),
      target: () => ({ type: 'integration', id: 'telephony' }),
    },
    'DELETE /control-plane/integrations/{kind}': {
      path: () => '/control-plane/integrations/chat-app',
      target: () => ({ type: 'integration', id: 'chat-app' }),
    },
    'PUT /control-plane/apps/{app}/repository': {
      path: () => `/control-plane/apps/${t.appName}/repository`,
      body: () => ({ owner: 'acme', repo: 'shop', token: GITHUB_TOKEN }),
      target: () => ({ type: 'repository', id: t.appName }),
    },
    'DELETE /control-plane/apps/{app}/repository': {
      path: () => `/control-plane/apps/${t.appName}/repository`,
      target: () => ({ type: 'repository', id: t.appName }),
    },
    'POST /control-plane/cost/providers': {
      path: () => '/control-plane/cost/providers',
      body: () => ({
        provider: 'aws',
        name: 'billing',
        config: { role_arn: AWS_ROLE, cur_bucket: 'billing-exports', cur_prefix: 'cur/' },
      }),
      target: created('cost_provider'),
      keep: (a) => (made.provider = a.id as string),
    },
    'DELETE /control-plane/cost/providers/{id}': {
      path: () => `/control-plane/cost/providers/${made.provider}`,
      target: at('cost_provider', () => made.provider!),
    },
    'POST /control-plane/cost/mappings': {
      path: () => '/control-plane/cost/mappings',
      body: () => ({ rules: [{ match: { tag: 'app', pattern: 'checkout-*' }, attribute_to: 'service' }] }),
      target: () => null,
    },
    'POST /control-plane/sourcemaps': {
      path: () => '/control-plane/sourcemaps',
      body: () => ({
        maps: [{ map: { version: 3, sources: ['src/app.ts'], names: [], mappings: 'AAAA', debugId: made.debugId } }],
      }),
      target: () => null,
    },
    'DELETE /control-plane/sourcemaps/{debug_id}': {
      path: () => `/control-plane/sourcemaps/${made.debugId}`,
      target: at('sourcemap', () => made.debugId!),
    },
    'PUT /control-plane/test-runs/{run_id}': {
      path: () => '/control-plane/test-runs/run-audit-1',
      body: () => ({ started_at: new Date().toISOString(), commit: '4f2a9c0', branch: 'main' }),
      target: () => ({ type: 'test_run', id: 'run-audit-1' }),
    },
    'POST /control-plane/test-runs/{run_id}/results': {
      path: () => '/control-plane/test-runs/run-audit-1/results',
      body: () => ({
        results: [
          {
            test_id: 'a1b2c3-d4e5',
            file: 'tests/checkout.spec.ts',
            line: 12,
            title_path: ['checkout', 'pays by card'],
            project: 'chromium',
            retry: 0,
            status: 'passed',
            expected_status: 'passed',
            duration_ms: 1520,
            started_at: new Date().toISOString(),
          },
        ],
      }),
      target: () => ({ type: 'test_run', id: 'run-audit-1' }),
    },
    'POST /control-plane/test-runs/{run_id}/finish': {
      path: () => '/control-plane/test-runs/run-audit-1/finish',
      body: () => ({ status: 'passed', duration_ms: 61_000 }),
      target: () => ({ type: 'test_run', id: 'run-audit-1' }),
    },
    'PATCH /control-plane/issues/{id}': {
      path: () => `/control-plane/issues/${made.issue}`,
      body: () => ({ status: 'resolved' }),
      target: at('issue', () => made.issue!),
    },
    'PATCH /control-plane/issues': {
      path: () => '/control-plane/issues',
      body: () => ({ ids: issueIds(), status: 'ignored' }),
      target: () => null,
    },
    'PUT /control-plane/issues/{id}/assignee': {
      path: () => `/control-plane/issues/${made.issue}/assignee`,
      body: () => ({ assignee: made.member }),
      target: at('issue', () => made.issue!),
    },
    'PUT /control-plane/incidents/{id}/assignee': {
      path: () => `/control-plane/incidents/${made.incident}/assignee`,
      body: () => ({ assignee: made.member }),
      target: at('incident', () => made.incident!),
    },
    'POST /control-plane/issues/{id}/analysis': {
      path: () => `/control-plane/issues/${made.issue}/analysis`,
      target: at('issue', () => made.issue!),
    },
    'POST /control-plane/members/invitations': {
      admin: true,
      path: () => '/control-plane/members/invitations',
      body: () => ({ email: 'invitee@example.com', role: 'member' }),
      target: created('invitation'),
      keep: (a) => {
        made.invitation = a.id as string;
        secrets.push(new URL(a.link as string).hash.replace(/^#token=/, ''));
      },
    },
    'DELETE /control-plane/members/invitations/{id}': {
      admin: true,
      path: () => `/control-plane/members/invitations/${made.invitation}`,
      target: at('invitation', () => made.invitation!),
    },
    'PATCH /control-plane/members/{user_id}': {
      admin: true,
      path: () => `/control-plane/members/${made.member}`,
      body: () => ({ role: 'viewer' }),
      target: at('member', () => made.member!),
    },
    'DELETE /control-plane/members/{user_id}/sessions': {
      admin: true,
      path: () => `/control-plane/members/${made.member}/sessions`,
      target: at('member', () => made.member!),
    },
    'PATCH /control-plane/organisation': {
      owner: true,
      path: () => '/control-plane/organisation',
      body: () => ({
        name: 'Audited',
        sso_policy: { allowed_domains: ['example.com'], group_roles: { ops: 'admin' } },
      }),
      target: () => ({ type: 'organisation', id: made.tenant! }),
    },
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestServer(kind, {
      detection: false,
      allowPrivateTargets: true,
      secretKey: 'a'.repeat(40),
      outbox: { pollMs: 60_000 },
    });
    const db = t.server.database.db;
    admin = await createKey(db, systemClock, { projectId: t.projectId, scope: 'admin', name: 'auditor' });
    const now = Date.now();
    for (const message of ['audit failure one', 'audit failure two'])
      await postIngest(t, '/otlp/v1/logs', JSON.stringify(errorLog({ message, atMs: now - 1000 })));
    await issueDetector(t, systemClock, { threshold: 100 }).runOnce();
    const issues = (await call('GET', '/control-plane/issues?q=audit%20failure')).body.data as Json[];
    expect(issues).toHaveLength(2);
    made.issue = issues[0]!.id as string;
    made.issue2 = issues[1]!.id as string;
    made.debugId = '6a8f1e2c-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
    const tenantId = (await db.selectFrom('projects').select('tenant_id').executeTakeFirstOrThrow()).tenant_id;
    made.tenant = tenantId;
    made.member = (await createPerson(db, { tenantId, email: 'member@example.com', name: 'Mem', role: 'member' })).id;
    const person = await createPerson(db, { tenantId, email: 'owner@example.com', name: 'Own', role: 'owner' });
    owner = { ...person, headers: sessionHeaders(await signInAs(db, systemClock, person), t.url) };
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('every write operation of the document leaves exactly one entry naming the key (the owner for the organisation), the operation and its target', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, Json> };
    const writes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/control-plane'))
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ['post', 'put', 'patch', 'delete'].includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
    const table = samples();
    expect(writes.filter((op) => !(op in table) && !(op in SKIPPED))).toEqual([]);

    const db = t.server.database.db;
    const control = t.server.bootstrap!.controlKey;
    for (const [op, sample] of Object.entries(table)) {
      if (!writes.includes(op)) continue;
      const before = await db.selectFrom('audit_log').select('id').orderBy('id', 'desc').executeTakeFirst();
      const key = sample.admin ? admin : control;
      const res = await call(op.split(' ')[0]!, sample.path(), sample.body?.(), sample.owner ? owner.headers : key.key);
      expect([op, res.status]).toEqual([op, expect.any(Number)]);
      expect(res.status, `${op}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      sample.keep?.(res.body);
      const added = await db
        .selectFrom('audit_log')
        .selectAll()
        .where('id', '>', Number(before?.id ?? 0))
        .execute();
      expect(added.length, op).toBe(1);
      const entry = (await newest())!;
      expect(entry, op).toMatchObject({
        actor: sample.owner
          ? { kind: 'person', id: owner.id, label: owner.email }
          : { kind: 'key', id: key.id, label: `key:${key.name}` },
        operation: op,
        target: sample.target(res.body),
        status: res.status,
        project_id: t.projectId,
      });
    }
    const everything = JSON.stringify(await allEntries());
    for (const secret of secrets) expect(everything, secret).not.toContain(secret);
  });

  it("a change by a person names their e-mail: in the audit log, the issue's status and the incident's history", async () => {
    const db = t.server.database.db;
    const person = await createPerson(db, {
      tenantId: made.tenant!,
      email: 'ada@example.com',
      name: 'Ada',
      role: 'admin',
    });
    const session = await signInAs(db, systemClock, person);
    const res = await fetch(`${t.url}/control-plane/issues/${made.issue}`, {
      method: 'PATCH',
      headers: { ...sessionHeaders(session, t.url), 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'unresolved' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).status_by).toBe('ada@example.com');
    const entry = (await newest())!;
    expect(entry).toMatchObject({
      actor: { kind: 'person', id: person.id, label: 'ada@example.com' },
      operation: 'PATCH /control-plane/issues/{id}',
      target: { type: 'issue', id: made.issue },
      changes: { before: { status: expect.any(String) }, after: { status: 'unresolved' } },
    });

    const incident = await fetch(`${t.url}/control-plane/incidents`, {
      method: 'POST',
      headers: { ...sessionHeaders(session, t.url), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Payments down', severity: 'high', env: 'production', services: ['pay'] }),
    });
    const { id } = (await incident.json()) as { id: string };
    const ack = await fetch(`${t.url}/control-plane/incidents/${id}/acknowledge`, {
      method: 'POST',
      headers: sessionHeaders(session, t.url),
    });
    expect(ack.status).toBe(200);
    expect(((await ack.json()) as Json).acknowledged_by).toBe('ada@example.com');
    expect(await newest()).toMatchObject({ actor: { label: 'ada@example.com' }, target: { type: 'incident', id } });
  });

  it('a change whose entry cannot be appended does not happen: 500, and the issue keeps its status', async () => {
    const db = t.server.database.db;
    const statusOf = async () =>
      (
        await db
          .selectFrom('detection_groups')
          .select('status')
          .where('fingerprint', '=', made.issue2!)
          .executeTakeFirstOrThrow()
      ).status;
    const before = await statusOf();
    const target = before === 'ignored' ? 'resolved' : 'ignored';
    await sql`alter table audit_log rename to audit_log_away`.execute(db);
    try {
      const res = await call('PATCH', `/control-plane/issues/${made.issue2}`, { status: target });
      expect(res.status, JSON.stringify(res.body)).toBe(500);
      expect(await statusOf()).toBe(before);
    } finally {
      await sql`alter table audit_log_away rename to audit_log`.execute(db);
    }
    const res = await call('PATCH', `/control-plane/issues/${made.issue2}`, { status: target });
    expect(res.status).toBe(200);
    expect(await statusOf()).toBe(target);
  });

  it('filters by actor, operation, target and time; pages without gaps; exports the same as JSON lines', async () => {
    const all = await allEntries();
    expect(all.length).toBeGreaterThan(10);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    const times = all.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const byPerson = await allEntries('?actor=ada%40example.com');
    expect(byPerson.length).toBe(3);
    expect(byPerson.every((e) => e.actor.label === 'ada@example.com')).toBe(true);
    expect((await allEntries(`?actor=${admin.id}`)).every((e) => e.actor.id === admin.id)).toBe(true);
    const op = encodeURIComponent('PATCH /control-plane/issues/{id}');
    expect((await allEntries(`?operation=${op}`)).map((e) => e.operation)).toEqual(
      all.filter((e) => e.operation === 'PATCH /control-plane/issues/{id}').map((e) => e.operation),
    );
    const issue = await allEntries(`?target_type=issue&target_id=${made.issue}`);
    expect(issue.length).toBeGreaterThan(1);
    expect(issue.every((e) => e.target?.id === made.issue)).toBe(true);
    const middle = all[Math.floor(all.length / 2)]!.at;
    const older = await allEntries(`?to=${encodeURIComponent(middle)}`);
    expect(older.every((e) => e.at < middle)).toBe(true);
    expect((await allEntries(`?from=${encodeURIComponent(middle)}`)).length + older.length).toBe(all.length);
    const bad = await call('GET', '/control-plane/audit?cursor=nope', undefined, admin.key);
    expect([bad.status, (bad.body.error as Json).code]).toEqual([400, 'invalid_request']);
    // A control key works one project; the audit log is the organisation's.
    expect((await call('GET', '/control-plane/audit')).status).toBe(403);

    const exported = await fetch(`${t.url}/control-plane/audit/export`, {
      headers: { authorization: `Bearer ${admin.key}` },
    });
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await exported.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry);
    expect(lines).toEqual(all);
    const exportOf = async (query: string) =>
      (
        await (
          await fetch(`${t.url}/control-plane/audit/export${query}`, {
            headers: { authorization: `Bearer ${admin.key}` },
          })
        ).text()
      )
        .trimEnd()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Entry);
    // The listing's filters narrow the export the same way.
    expect(await exportOf(`?target_type=issue&target_id=${made.issue}`)).toEqual(issue);
    const bogus = await fetch(`${t.url}/control-plane/audit/export?colour=blue`, {
      headers: { authorization: `Bearer ${admin.key}` },
    });
    expect(bogus.status).toBe(400);
  });

  it('retention deletes entries older than the retention days', async () => {
    const count = (await allEntries()).length;
    const later = await applyRetention(t.server.database.db, { now: () => Date.now() + 31 * 86_400_000 }, 30);
    expect(later.deleted.audit_log).toBe(count);
    expect((await auditPage('')).data).toEqual([]);
  });
});
