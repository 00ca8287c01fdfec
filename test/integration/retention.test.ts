import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { applyRetention, createKey, createProject, registerApp } from '../../server/src/index';
import { retentionDefaults, type RetentionSignal } from '../../server/src/retention/signals';
import { databaseKinds } from '../support/databases';
import { logsBody, metricsBody, traceBody } from '../support/otlp';
import { createPerson, sessionHeaders, signInAs, type SignedIn } from '../support/people';
import { adminCliOnServerDatabase } from '../support/admin-cli';
import { controlCall, startTestServer, type TestServer } from '../support/server';

/**
 * Retention per signal and per project (issue 32, docs/server.md "Retention") through the real server over HTTP, on
 * SQLite and PostgreSQL: the API reads each signal's days and where they come from, sets and resets a project's own,
 * refuses bad input naming the field and a viewer with 403, changing nothing; the job, with a clock the test moves,
 * deletes each signal of each project by its own days, keeps younger rows and other projects', and deletes a backlog
 * larger than one batch to the last row.
 */
const kinds = await databaseKinds();
const DAY = 86_400_000;

interface Signal {
  signal: RetentionSignal;
  days: number;
  source: 'project' | 'server';
  server_days: number;
  settable: boolean;
}
type Retention = { project_id: string; signals: Signal[] };
type ErrorBody = { error: { code: string; message: string; details?: { field?: string } } };

const daysOf = (r: Retention) => Object.fromEntries(r.signals.map((s) => [s.signal, [s.days, s.source]]));

describe.each(kinds)('retention on %s', (kind) => {
  let t: TestServer;
  let now = Date.now();
  const clock = { now: () => now };
  // Server defaults: 30 days, metrics 90, replays 20, audit 365.
  const defaults = retentionDefaults(30, { metrics: 90, replays: 20, audit: 365 });
  let viewer: SignedIn;
  let other: { projectId: string; ingestKey: string };

  beforeAll(async () => {
    t = await startTestServer(kind, {
      clock,
      detection: false,
      retentionDays: 30,
      retentionBySignal: { metrics: 90, replays: 20, audit: 365 },
    });
    const { db } = t.server.database;
    const tenantId = t.server.bootstrap!.tenantId;
    const person = await createPerson(db, { tenantId, email: 'viewer@example.com', name: 'Viewer', role: 'viewer' });
    viewer = await signInAs(db, systemClock, person);
    const projectId = await createProject(db, systemClock, tenantId, 'other');
    await registerApp(db, systemClock, projectId, 'web-app');
    const key = await createKey(db, systemClock, { projectId, scope: 'ingest' });
    other = { projectId, ingestKey: key.key };
  });
  afterAll(async () => t?.close());

  const put = (body: unknown) => controlCall<Retention & ErrorBody>(t, 'PUT', '/retention', body);
  const get = async () => (await controlCall<Retention>(t, 'GET', '/retention')).body;

  it('reads every signal with its days, its source and the server default', async () => {
    const res = await controlCall<Retention>(t, 'GET', '/retention');
    expect(res.status).toBe(200);
    expect(res.body.project_id).toBe(t.projectId);
    expect(res.body.signals).toEqual([
      { signal: 'spans', days: 30, source: 'server', server_days: 30, settable: true },
      { signal: 'logs', days: 30, source: 'server', server_days: 30, settable: true },
      { signal: 'metrics', days: 90, source: 'server', server_days: 90, settable: true },
      { signal: 'replays', days: 20, source: 'server', server_days: 20, settable: true },
      { signal: 'recipes', days: 30, source: 'server', server_days: 30, settable: true },
      { signal: 'sessions', days: 30, source: 'server', server_days: 30, settable: true },
      { signal: 'issues', days: 30, source: 'server', server_days: 30, settable: true },
      { signal: 'audit', days: 365, source: 'server', server_days: 365, settable: false },
    ]);
  });

  it("sets a project's own days, resets one to the server default with null, and records the change", async () => {
    const set = await put({ replays: 14, logs: 0, metrics: 7 });
    expect(set.status).toBe(200);
    expect(daysOf(set.body)).toMatchObject({ replays: [14, 'project'], logs: [0, 'project'], metrics: [7, 'project'] });
    expect(daysOf(await get())).toMatchObject({ replays: [14, 'project'], spans: [30, 'server'] });
    const reset = await put({ metrics: null });
    expect(daysOf(reset.body)).toMatchObject({
      metrics: [90, 'server'],
      replays: [14, 'project'],
      logs: [0, 'project'],
    });
    const audit = await t.server.database.db
      .selectFrom('audit_log')
      .select(['changes', 'target_type', 'target_id'])
      .where('operation', '=', 'PUT /control-plane/retention')
      .orderBy('id', 'desc')
      .execute();
    expect(audit.every((e) => e.target_type === 'project' && e.target_id === t.projectId)).toBe(true);
    expect(audit.map((e) => JSON.parse(e.changes) as unknown)).toEqual([
      { before: { metrics: 7 }, after: { metrics: null } },
      { before: { replays: null, logs: null, metrics: null }, after: { replays: 14, logs: 0, metrics: 7 } },
    ]);
  });

  it('refuses bad input with a 400 naming the field, and a viewer with 403; nothing changes', async () => {
    const before = await get();
    for (const [body, field] of [
      [{ spanz: 3 }, 'spanz'],
      [{ audit: 10 }, 'audit'],
      [{ logs: -1 }, 'logs'],
      [{ logs: 36_501 }, 'logs'],
      [{ replays: 1.5 }, 'replays'],
      [{ replays: '14' }, 'replays'],
      [{ spans: 3, sessions: 'x' }, 'sessions'],
    ] as const) {
      const res = await put(body);
      expect([res.status, res.body.error.code, res.body.error.details?.field], JSON.stringify(body)).toEqual([
        400,
        'invalid_request',
        field,
      ]);
      expect(res.body.error.message).toContain(field);
    }
    const res = await fetch(`${t.url}/control-plane/retention`, {
      method: 'PUT',
      headers: { ...sessionHeaders(viewer, t.url), 'content-type': 'application/json' },
      body: JSON.stringify({ replays: 1 }),
    });
    expect(res.status).toBe(403);
    const read = await fetch(`${t.url}/control-plane/retention`, { headers: sessionHeaders(viewer, t.url) });
    expect(read.status).toBe(200);
    expect(await get()).toEqual(before);
  });

  /** One of each telemetry signal, received now, in `session` of the project the key names. */
  async function seed(key: string, session: string): Promise<void> {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${t.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(body),
      });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
    };
    await post('/otlp/v1/traces', traceBody([{ sessionId: session }]));
    await post('/otlp/v1/logs', logsBody('web-app', session, `log of ${session}`));
    await post('/otlp/v1/metrics', metricsBody('web-app', session));
    const events = [{ type: 3, timestamp: 1_700_000_000_000, data: { source: 1, positions: [] } }];
    await post('/ingest/replay/chunk', {
      ...{ serviceName: 'web-app', sessionId: session, replayId: `r-${session}`, seq: 0, encoding: 'json' },
      ...{ startTs: 1_700_000_000_000, endTs: 1_700_000_000_000, eventCount: 1, data: JSON.stringify(events) },
    });
    await post('/ingest/replay/recipes', {
      ...{ serviceName: 'web-app', sessionId: session, replayId: `r-${session}` },
      steps: [{ ts: 1_700_000_000_100, method: 'GET', url: 'https://api.example.com/a', status: 200, durationMs: 3 }],
    });
    // Issue facts are the detector's; written here as it writes them, by the reporter's time (now).
    const { db } = t.server.database;
    const project = key === other.ingestKey ? other.projectId : t.projectId;
    await db
      .insertInto('issue_sessions')
      .values({ project_id: project, fingerprint: 'fp', session_id: session, first_ms: now, last_ms: now })
      .execute();
  }

  /** The sessions each table still holds rows of, per project ('mine' or 'other'). */
  async function held(): Promise<Record<string, string[]>> {
    const { db } = t.server.database;
    const out: Record<string, string[]> = {};
    for (const table of ['spans', 'logs', 'metric_points', 'replay_chunks', 'recipes', 'sessions', 'issue_sessions']) {
      const rows = await db
        .selectFrom(table as 'spans')
        .select(['project_id', 'session_id'])
        .distinct()
        .execute();
      const names = rows.map((r) => `${r.project_id === t.projectId ? 'mine' : 'other'}:${r.session_id}`);
      out[table] = names.filter((n) => !n.endsWith(':null')).sort();
    }
    return out;
  }

  it("deletes each signal by its project's days, from receipt; younger rows and other projects' stay", async () => {
    // This project: replays 14, logs forever, metrics back to the server's 90; spans, recipes, sessions 30; issues 10.
    await put({ issues: 10 });
    const start = now;
    await seed(t.ingestKey, 'old');
    await seed(other.ingestKey, 'old');
    now = start + 16 * DAY;
    await seed(t.ingestKey, 'new');
    await seed(other.ingestKey, 'new');
    const lines: string[] = [];
    await applyRetention(t.server.database.db, clock, defaults, { log: (l) => lines.push(l) });
    const both = ['mine:new', 'mine:old', 'other:new', 'other:old'];
    expect(await held()).toEqual({
      spans: both,
      logs: both,
      metric_points: both,
      // Mine keeps replays 14 days, the other project the server's 20.
      replay_chunks: ['mine:new', 'other:new', 'other:old'],
      recipes: both,
      sessions: both,
      issue_sessions: ['mine:new', 'other:new', 'other:old'],
    });
    expect(lines).toEqual([
      'retention: replays: deleted 1 rows (replay_chunks 1)',
      expect.stringMatching(/^retention: issues: deleted 1 rows \(issue_sessions 1, issue_hours 0, /),
    ]);

    now = start + 31 * DAY;
    const { deleted } = await applyRetention(t.server.database.db, clock, defaults);
    expect(await held()).toEqual({
      spans: ['mine:new', 'other:new'],
      logs: ['mine:new', 'mine:old', 'other:new'],
      metric_points: both,
      // Mine's new ones are 15 days old now: past its 14 days of replays and 10 of issue facts.
      replay_chunks: ['other:new'],
      recipes: ['mine:new', 'other:new'],
      sessions: ['mine:new', 'other:new'],
      issue_sessions: ['other:new'],
    });
    expect(deleted).toMatchObject({ spans: 2, logs: 1, metric_points: 0, replay_chunks: 2, sessions: 2 });
  });

  it('deletes a backlog larger than one batch to the last row, and no other project’s', async () => {
    const { db } = t.server.database;
    const old = now - 400 * DAY;
    const span = (project: string, i: number) => ({
      project_id: project,
      app_id: 'backlog',
      session_id: 'backlog',
      received_ms: old + i,
      time_ms: old + i,
      trace_id: 'ab'.repeat(16),
      trace_key: 1,
      span_id: i.toString(16).padStart(16, '0'),
      parent_span_id: null,
      name: 'backlog',
      kind: 1,
      start_ns: '1',
      end_ns: '2',
      duration_ms: 1,
      status_code: 0,
      status_message: null,
      attributes: '{}',
      resource: '{}',
      events: '[]',
      links: '[]',
      scope: '{}',
    });
    const rows = 12_345;
    for (let i = 0; i < rows; i += 500) {
      const chunk = Array.from({ length: Math.min(500, rows - i) }, (_, j) => span(t.projectId, i + j));
      await db.insertInto('spans').values(chunk).execute();
    }
    await db
      .insertInto('spans')
      .values(Array.from({ length: 10 }, (_, i) => span(other.projectId, i)))
      .execute();
    // This project keeps spans 300 days; the other project's (400 days old) are kept forever.
    await put({ spans: 300 });
    const { deleted } = await applyRetention(db, clock, retentionDefaults(0), { batchSize: 1_000 });
    expect(deleted.spans).toBe(rows);
    const left = await db.selectFrom('spans').select(['project_id']).where('app_id', '=', 'backlog').execute();
    expect(left.map((r) => r.project_id)).toEqual(Array(10).fill(other.projectId));
  });
});

describe('svc-server retention (the CLI, on the server database)', () => {
  // SVC_RETENTION_DAYS empty: the defaults the test expects, whatever the environment says.
  const cli = adminCliOnServerDatabase('retention');
  const run = (args: string[], env: Record<string, string> = {}) => cli(args, { SVC_RETENTION_DAYS: '', ...env });

  it("shows each signal's days and source, sets and resets a project's own", () => {
    const shown = run(['show'], { SVC_RETENTION_METRICS_DAYS: '90' });
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toMatch(/^project default \(\S+\)$/m);
    expect(shown.out).toMatch(/^ {2}spans +30 days +server default \(SVC_RETENTION_DAYS\)$/m);
    expect(shown.out).toMatch(/^ {2}metrics +90 days +server default \(SVC_RETENTION_METRICS_DAYS\)$/m);
    expect(shown.out).toMatch(/^ {2}audit +30 days +server default \(SVC_RETENTION_DAYS\), per organisation$/m);
    const set = run(['set', '--replays', '14', '--logs', '0']);
    expect(set.code, set.err).toBe(0);
    expect(set.out).toMatch(/^ {2}replays +14 days +project's own \(server default 30\)$/m);
    expect(set.out).toMatch(/^ {2}logs +for ever +project's own \(server default 30\)$/m);
    const reset = run(['set', '--replays', 'default']);
    expect(reset.out).toMatch(/^ {2}replays +30 days +server default/m);
    expect(reset.out).toMatch(/^ {2}logs +for ever +project's own/m);
  });

  it('exits 2 naming the mistake, changing nothing', () => {
    const before = run(['show']).out;
    for (const [args, message] of [
      [['set', '--replays', '36501'], '--replays must be days from 0 to 36500'],
      [['set', '--logs', 'soon'], '--logs must be days'],
      [['set'], 'retention set needs at least one of --spans'],
      [['set', '--audit', '5'], "Unknown option '--audit'"],
      [['show', '--logs', '5'], 'retention show takes no signal flags'],
      [['clear'], 'usage: retention show | retention set'],
    ] as const) {
      const res = run([...args]);
      expect([res.code, res.err], args.join(' ')).toEqual([2, expect.stringContaining(message)]);
    }
    expect(run(['show']).out).toBe(before);
  });
});
