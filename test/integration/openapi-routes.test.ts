import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hc } from 'hono/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { CONSOLE_PATHS } from '../../server/src/console/routes';
import { incidentLinks, issuePageUrl } from '../../server/src/incidents/links';
import { createKey, type IssuesApi, type ProjectsApi, type RulesApi } from '../../server/src/index';
import { testKey } from '../../server/src/test-runs/store';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { errorLog } from '../support/error-logs';
import { logsBody, metricsBody, resourceAttrs, str, TRACE_ID, traceBody } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';
import { pageLoad } from '../support/rrweb';
import { startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';
import { createPerson, sessionHeaders, signInAs } from '../support/people';

/**
 * The proof of issue 19: every operation of the generated /openapi.json gets one valid request, which succeeds, and
 * one invalid request, which gets a 400 naming the field and changes nothing (every table compared before and after).
 * The table below must cover the document exactly: a route added without a case here fails the first test.
 */

const kinds = await databaseKinds();
const SIGNING_SECRET = 'a'.repeat(32);
const DEBUG_ID = '6a8f1e2c-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const SESSION = 'openapi-session-1';
const demoDir = mkdtempSync(join(tmpdir(), 'svc-openapi-demo-'));
for (const name of ['svc.min.js', 'svc.min.js.map', 'svc-recorder.min.js', 'svc-recorder.min.js.map'])
  writeFileSync(join(demoDir, name), '{}');

/** What the cases need: the server, its keys and objects made for the valid requests. */
interface Ctx {
  t: TestServer;
  adminKey: string;
  receiver: Receiver;
  ids: Record<string, string>;
}

interface Req {
  path?: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Sent as is, with this Content-Type. */
  raw?: { type: string; text: string };
  headers?: Record<string, string>;
  key?: 'control' | 'ingest' | 'admin' | 'none';
}

interface Case {
  /** Runs before the valid request: makes what it needs (an object to delete, a session to read). */
  prepare?: (ctx: Ctx) => Promise<void>;
  valid: (ctx: Ctx) => Req;
  /** Statuses the valid request may get; 2xx unless told (and why). */
  ok?: number[];
  /** The invalid request and the field its 400 names; null when the route takes no input to get wrong. */
  invalid: ((ctx: Ctx) => Req & { field: string }) | null;
  /** Keyless HTML pages answer a bad link with their own page, not the JSON 400 (a person reads them). */
  invalidStatus?: number;
}

const json = (body: unknown): Req => ({ body });
const ALERT_CONDITION = { type: 'threshold', op: 'above', value: 4000 };
const signed = (url: string) => Object.fromEntries(new URL(url).searchParams);
const withSignature = (form: string): Req => {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${ts}:${form}`).digest('hex')}`;
  return {
    raw: { type: 'application/x-www-form-urlencoded', text: form },
    headers: { 'x-slack-request-timestamp': ts, 'x-slack-signature': signature },
    key: 'none',
  };
};
const links = (ctx: Ctx) => incidentLinks(ctx.t.server.notify.box, ctx.t.server.publicUrl, Date.now());
const noKey = (req: Req): Req => ({ ...req, key: 'none' });
const unknownQuery = (field = 'bogus') => ({ query: { [field]: '1' }, field });

/** A chunk of the session's replay: the page load the Playwright export starts from. */
const chunk = (seq: number) => ({
  serviceName: 'web-app',
  sessionId: SESSION,
  replayId: 'replay-1',
  seq,
  startTs: Date.now() - 1000,
  endTs: Date.now() - 999,
  eventCount: 2,
  events: pageLoad('https://shop.example.com/', Date.now() - 1000),
});
const recipes = {
  serviceName: 'web-app',
  sessionId: SESSION,
  replayId: 'replay-1',
  steps: [
    {
      ts: Date.now() - 900,
      method: 'GET',
      url: 'https://shop.example.com/api/cart',
      requestHeaders: {},
      status: 200,
      responseHeaders: {},
      durationMs: 12,
    },
  ],
};
const testResult = {
  test_id: 'abc-1',
  file: 'tests/a.spec.ts',
  line: 3,
  title_path: ['a', 'works'],
  project: 'chromium',
  retry: 0,
  status: 'passed',
  expected_status: 'passed',
  duration_ms: 120,
  started_at: new Date().toISOString(),
};
const sourceMap = { version: 3, sources: ['src/app.ts'], names: [], mappings: 'AAAA', debugId: DEBUG_ID };

/** A public POST as the console's own page sends it: no key, the server's own Origin. */
const publicPost = (ctx: Ctx): Req => ({ key: 'none', headers: { origin: ctx.t.url } });

/** A request of the organisation's owner, whose session `get /control-plane/organisation` prepares. */
const asOwner = (ctx: Ctx): Req => ({
  key: 'none',
  headers: JSON.parse(ctx.ids.ownerHeaders!) as Record<string, string>,
});

/** An invitation made with the admin key: its id and its link's token. */
async function invite(ctx: Ctx, email: string): Promise<{ id: string; token: string }> {
  const res = await fetch(`${ctx.t.url}/control-plane/members/invitations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, role: 'member' }),
  });
  const body = (await res.json()) as { id: string; link: string };
  return { id: body.id, token: body.link.split('#token=')[1] ?? '' };
}

const CASES: Record<string, Case> = {
  'get /': { valid: () => noKey({}), invalid: null },
  'get /healthz': { valid: () => noKey({}), invalid: null },
  'get /openapi.json': { valid: () => noKey({}), invalid: null },
  'get /docs/api': { valid: () => noKey({}), invalid: null },
  // The console's pages: any id is a well-formed id (the page asks the API, which answers 404 for an unknown one).
  ...Object.fromEntries(
    CONSOLE_PATHS.map((path): [string, Case] => [
      `get ${path}`,
      { valid: () => noKey({ path: path.replace('{id}', 'some-id') }), invalid: null },
    ]),
  ),
  'get /docs/api/{file}': {
    valid: () => noKey({ path: '/docs/api/start.js' }),
    invalid: () => ({ ...noKey({ path: '/docs/api/other.js' }), field: 'file' }),
  },
  'get /viewer': { valid: () => noKey({}), ok: [302], invalid: null },
  'get /viewer/': { valid: () => noKey({}), ok: [302], invalid: null },
  'get /console/assets/{file}': {
    prepare: async (ctx) => {
      const html = await (await fetch(`${ctx.t.url}/`)).text();
      ctx.ids.consoleFile = /\/console\/assets\/([^"]+\.js)/.exec(html)![1]!;
    },
    valid: (ctx) => noKey({ path: `/console/assets/${ctx.ids.consoleFile}` }),
    // Any name is a well-formed name: an unknown one is a 404, the only way this request can be wrong.
    invalid: null,
  },
  'get /demo': { valid: () => noKey({}), ok: [302], invalid: null },
  'get /demo/': { valid: () => noKey({ query: { api_key: 'k' } }), invalid: null },
  'get /demo/svc.min.js': { valid: () => noKey({}), invalid: null },
  'get /demo/svc.min.js.map': { valid: () => noKey({}), invalid: null },
  'get /demo/svc-recorder.min.js': { valid: () => noKey({}), invalid: null },
  'get /demo/svc-recorder.min.js.map': { valid: () => noKey({}), invalid: null },
  'get /demo/api/echo': {
    valid: () => noKey({ query: { status: '201' } }),
    invalid: () => ({ ...noKey({ query: { status: 'abc' } }), field: 'status' }),
  },
  'post /demo/api/echo': {
    valid: () => noKey({ query: { delay: '0' }, body: {} }),
    invalid: () => ({ ...noKey({ query: { delay: '-1' }, body: {} }), field: 'delay' }),
  },

  // Ingest: their own readers, the same error shape.
  'post /otlp/v1/traces': {
    valid: () => ({ body: traceBody([{ sessionId: SESSION }]), key: 'ingest' }),
    invalid: () => ({ body: { resourceSpans: 'x' }, key: 'ingest', field: 'resourceSpans' }),
  },
  'post /otlp/v1/logs': {
    valid: () => ({ body: logsBody('web-app', SESSION), key: 'ingest' }),
    invalid: () => ({ body: { resourceLogs: 'x' }, key: 'ingest', field: 'resourceLogs' }),
  },
  'post /otlp/v1/metrics': {
    valid: () => ({ body: metricsBody('web-app', SESSION), key: 'ingest' }),
    invalid: () => ({ body: { resourceMetrics: 'x' }, key: 'ingest', field: 'resourceMetrics' }),
  },
  'post /ingest/replay/chunk': {
    valid: () => ({ body: chunk(0), key: 'ingest' }),
    invalid: () => ({ body: { ...chunk(1), seq: -1 }, key: 'ingest', field: 'seq' }),
  },
  'post /ingest/replay/recipes': {
    valid: () => ({ body: recipes, key: 'ingest' }),
    invalid: () => ({ body: { ...recipes, steps: [] }, key: 'ingest', field: 'steps' }),
  },

  // Query API.
  'get /control-plane/apps': { valid: () => ({}), invalid: null },
  'get /control-plane/me': { valid: () => ({}), invalid: null },
  'get /control-plane/setup': { valid: () => ({}), invalid: null },
  'get /control-plane/ingest/health': {
    valid: () => ({ query: { from: '2020-01-01T00:00:00Z' } }),
    invalid: () => ({ query: { from: 'yesterday' }, field: 'from' }),
  },
  'get /control-plane/sessions': {
    valid: () => ({ query: { limit: '5', 'attr.tier': 'gold' } }),
    invalid: () => ({ query: { limit: '0' }, field: 'limit' }),
  },
  'get /control-plane/sessions/sampling': {
    valid: () => ({ query: { from: '2020-01-01T00:00:00Z' } }),
    invalid: () => ({ query: { from: 'yesterday' }, field: 'from' }),
  },
  'get /control-plane/sessions/facets': {
    valid: () => ({ query: { app: 'web-app', from: '2020-01-01T00:00:00Z' } }),
    invalid: () => ({ query: { sort: 'errors' }, field: 'sort' }),
  },
  'get /control-plane/spans': {
    valid: () => ({ query: { session_id: SESSION } }),
    invalid: () => ({ query: { trace_id: 'xyz' }, field: 'trace_id' }),
  },
  'get /control-plane/logs': { valid: () => ({ query: { app: 'web-app' } }), invalid: () => unknownQuery('severity') },
  'get /control-plane/metrics': {
    valid: () => ({ query: { name: 'x' } }),
    invalid: () => ({ query: { limit: '1001' }, field: 'limit' }),
  },
  'get /control-plane/traces': {
    valid: () => ({ query: { session_id: SESSION, status: 'ok' } }),
    invalid: () => ({ query: { status: 'failed' }, field: 'status' }),
  },
  'get /control-plane/logs/{id}/frames': {
    // The error log of the issue, stored before the cases.
    prepare: async (ctx) => {
      const res = await send(ctx, 'get /', { path: '/control-plane/logs', query: { session_id: SESSION } });
      const logs = (JSON.parse(res.body) as { data: Array<{ id: number; severity_number: number }> }).data;
      ctx.ids.errorLog = String(logs.find((l) => l.severity_number >= 17)!.id);
    },
    valid: (ctx) => ({ path: `/control-plane/logs/${ctx.ids.errorLog}/frames` }),
    invalid: () => ({ path: '/control-plane/logs/abc/frames', field: 'id' }),
  },
  // The trace 'post /otlp/v1/traces' stored above.
  'get /control-plane/traces/{trace_id}': {
    valid: () => ({ path: `/control-plane/traces/${TRACE_ID}` }),
    invalid: () => ({ path: '/control-plane/traces/xyz', field: 'trace_id' }),
  },
  'get /control-plane/vitals': {
    valid: () => ({ query: { route: '/products/:id', bucket: 'hour' } }),
    invalid: () => ({ query: { bucket: 'week' }, field: 'bucket' }),
  },
  'get /control-plane/releases': {
    valid: () => ({ query: { app: 'web-app', env: 'production' } }),
    invalid: () => ({ query: { app: 'no-such-app' }, field: 'app' }),
  },
  'get /control-plane/releases/compare': {
    // A session of release 1.0.0, its facts stored with the log that names it.
    prepare: async (ctx) => {
      const body = logsBody('web-app', 'openapi-release-session') as { resourceLogs: Array<{ resource: object }> };
      body.resourceLogs[0]!.resource = {
        attributes: [...resourceAttrs('web-app', 'openapi-release-session'), str('service.version', '1.0.0')],
      };
      expect((await send(ctx, 'post /otlp/v1/logs', { body, key: 'ingest' })).status).toBe(200);
      await eventually('the release 1.0.0 session', async () => {
        const res = await send(ctx, 'get /control-plane/releases', { query: { app: 'web-app' } });
        return res.body.includes('"1.0.0"') || undefined;
      });
    },
    valid: () => ({ query: { app: 'web-app', release: '1.0.0' } }),
    invalid: () => ({ query: { app: 'web-app' }, field: 'release' }),
  },
  'post /control-plane/alert-rules/preview': {
    // An hour: 12 points rather than the default week's 500, to keep the suite quick.
    valid: () =>
      json({
        signal: 'spans',
        query: { aggregate: 'p95' },
        condition: ALERT_CONDITION,
        from: new Date(Date.now() - 3_600_000).toISOString(),
      }),
    invalid: () => ({
      body: { signal: 'spans', query: { aggregate: 'p75' }, condition: ALERT_CONDITION },
      field: 'query.aggregate',
    }),
  },
  'post /control-plane/alert-rules': {
    valid: () =>
      json({
        name: 'slow checkout',
        signal: 'vitals',
        query: { aggregate: 'p75', metric: 'LCP' },
        condition: ALERT_CONDITION,
      }),
    invalid: () => ({
      body: { name: 'r', signal: 'vitals', query: { aggregate: 'p75' }, condition: ALERT_CONDITION },
      field: 'query.metric',
    }),
  },
  'get /control-plane/alert-rules': {
    valid: () => ({ query: { limit: '10' } }),
    invalid: () => ({ query: { limit: '501' }, field: 'limit' }),
  },
  'get /control-plane/alert-rules/{id}': {
    valid: (ctx) => ({ path: `/control-plane/alert-rules/${ctx.ids.alertRule}` }),
    invalid: null,
  },
  'patch /control-plane/alert-rules/{id}': {
    valid: (ctx) => ({ path: `/control-plane/alert-rules/${ctx.ids.alertRule}`, body: { window_seconds: 600 } }),
    invalid: (ctx) => ({
      path: `/control-plane/alert-rules/${ctx.ids.alertRule}`,
      body: { window_seconds: 10 },
      field: 'window_seconds',
    }),
  },
  'delete /control-plane/alert-rules/{id}': {
    valid: (ctx) => ({ path: `/control-plane/alert-rules/${ctx.ids.alertRule}` }),
    invalid: null,
  },
  'get /control-plane/replay/chunks': {
    valid: () => ({ query: { limit: '100' } }),
    invalid: () => ({ query: { limit: '101' }, field: 'limit' }),
  },
  'get /control-plane/recipes': {
    valid: () => ({ query: { to: String(Date.now()) } }),
    invalid: () => ({ query: { user_id: '' }, field: 'user_id' }),
  },
  'get /control-plane/sessions/{id}': {
    valid: () => ({ path: `/control-plane/sessions/${SESSION}` }),
    invalid: () => ({ path: `/control-plane/sessions/${SESSION}`, ...unknownQuery() }),
  },
  'get /control-plane/sessions/{id}/replay': {
    valid: () => ({ path: `/control-plane/sessions/${SESSION}/replay` }),
    invalid: () => ({
      path: `/control-plane/sessions/${SESSION}/replay`,
      query: { cursor: 'not-a-cursor' },
      field: 'cursor',
    }),
  },
  'get /control-plane/sessions/{id}/recipes': {
    valid: () => ({ path: `/control-plane/sessions/${SESSION}/recipes`, query: { limit: '1000' } }),
    invalid: () => ({ path: `/control-plane/sessions/${SESSION}/recipes`, query: { limit: 'many' }, field: 'limit' }),
  },
  'get /control-plane/sessions/{id}/playwright': {
    valid: () => ({
      path: `/control-plane/sessions/${SESSION}/playwright`,
      query: { base_url: 'http://localhost:3000' },
    }),
    invalid: () => ({
      path: `/control-plane/sessions/${SESSION}/playwright`,
      query: { base_url: 'http://localhost:3000/app' },
      field: 'base_url',
    }),
  },

  // Issues, their analyses and pull requests (the issue comes from the detector, in beforeAll).
  'get /control-plane/search': {
    valid: () => ({ query: { q: SESSION } }),
    invalid: () => ({ query: { q: ' ' }, field: 'q' }),
  },
  'get /control-plane/issues': {
    valid: () => ({ query: { sort: 'events', status: 'unresolved' } }),
    invalid: () => ({ query: { sort: 'newest' }, field: 'sort' }),
  },
  'get /control-plane/issues/{id}': {
    valid: (ctx) => ({ path: `/control-plane/issues/${ctx.ids.issue}` }),
    invalid: null,
  },
  'get /control-plane/issues/facets': { valid: () => ({}), invalid: null },
  'patch /control-plane/issues': {
    valid: (ctx) => ({ body: { ids: [ctx.ids.issue], status: 'unresolved' } }),
    invalid: (ctx) => ({ body: { ids: [ctx.ids.issue, ctx.ids.issue], status: 'ignored' }, field: 'ids' }),
  },
  'patch /control-plane/issues/{id}': {
    valid: (ctx) => ({ path: `/control-plane/issues/${ctx.ids.issue}`, body: { status: 'unresolved' } }),
    invalid: (ctx) => ({
      path: `/control-plane/issues/${ctx.ids.issue}`,
      body: { status: 'ignored', in_next_release: true },
      field: 'in_next_release',
    }),
  },
  'put /control-plane/issues/{id}/assignee': {
    valid: (ctx) => ({ path: `/control-plane/issues/${ctx.ids.issue}/assignee`, body: { assignee: null } }),
    // `me` is a person: a key names a user id.
    invalid: (ctx) => ({
      path: `/control-plane/issues/${ctx.ids.issue}/assignee`,
      body: { assignee: 'me' },
      field: 'assignee',
    }),
  },
  'post /control-plane/issues/{id}/analysis': {
    valid: (ctx) => ({ path: `/control-plane/issues/${ctx.ids.issue}/analysis` }),
    invalid: null,
  },
  'get /control-plane/issues/{id}/analysis': {
    // The analysis runs in the background: wait until it is done, so that it writes nothing during the cases after.
    prepare: async (ctx) => {
      await eventually('the analysis to finish', async () => {
        const res = await send(ctx, 'get /', { path: `/control-plane/issues/${ctx.ids.issue}/analysis` });
        return ['done', 'failed'].includes((JSON.parse(res.body) as { state: string }).state) || undefined;
      });
    },
    valid: (ctx) => ({ path: `/control-plane/issues/${ctx.ids.issue}/analysis` }),
    invalid: null,
  },
  'post /control-plane/issues/{id}/pull-request': {
    valid: (ctx) => ({ path: `/control-plane/issues/${ctx.ids.issue}/pull-request` }),
    // Well-formed; the heuristic analysis proposes no diff, so there is nothing to open (github-pull-request.test.ts opens one).
    ok: [409],
    invalid: null,
  },
  'get /control-plane/issues/{id}/pull-request': {
    // None opened (see the case above): null.
    valid: (ctx) => ({ path: `/control-plane/issues/${ctx.ids.issue}/pull-request` }),
    invalid: null,
  },
  'get /issues/{id}': {
    valid: (ctx) =>
      noKey({
        path: `/issues/${ctx.ids.issue}`,
        query: signed(
          issuePageUrl(ctx.t.server.notify.box, ctx.t.server.publicUrl, Date.now(), ctx.t.projectId, ctx.ids.issue!),
        ),
      }),
    invalid: (ctx) => ({
      ...noKey({ path: `/issues/${ctx.ids.issue}`, query: { p: ctx.t.projectId, exp: '1', sig: 'x' } }),
      field: 'sig',
    }),
    invalidStatus: 403,
  },

  // Projects and keys (admin key).
  'get /control-plane/projects': { valid: () => ({ key: 'admin' }), invalid: null },
  'post /control-plane/projects': {
    valid: () => ({ key: 'admin', body: { name: 'second' } }),
    invalid: () => ({ key: 'admin', body: { name: ' padded' }, field: 'name' }),
  },
  'post /control-plane/projects/{id}/keys': {
    valid: (ctx) => ({
      key: 'admin',
      path: `/control-plane/projects/${ctx.t.projectId}/keys`,
      body: { scope: 'control', name: 'ci' },
    }),
    invalid: (ctx) => ({
      key: 'admin',
      path: `/control-plane/projects/${ctx.t.projectId}/keys`,
      body: { scope: 'admin' },
      field: 'scope',
    }),
  },

  // Incidents and their signed pages.
  'post /control-plane/incidents': {
    valid: () => json({ title: 'Checkout down', severity: 'high', services: ['web-app'] }),
    invalid: () => ({ body: { title: 'Checkout down', severity: 'urgent' }, field: 'severity' }),
  },
  'get /control-plane/incidents': {
    valid: () => ({ query: { status: 'detected', limit: '200' } }),
    invalid: () => ({ query: { severity: 'urgent' }, field: 'severity' }),
  },
  'get /control-plane/incidents/{id}': {
    valid: (ctx) => ({ path: `/control-plane/incidents/${ctx.ids.incident}` }),
    invalid: null,
  },
  'post /control-plane/incidents/{id}/acknowledge': {
    valid: (ctx) => ({ path: `/control-plane/incidents/${ctx.ids.incident}/acknowledge` }),
    invalid: (ctx) => ({
      path: `/control-plane/incidents/${ctx.ids.incident}/acknowledge`,
      body: { by: '' },
      field: 'by',
    }),
  },
  'post /control-plane/incidents/{id}/resolve': {
    valid: (ctx) => ({ path: `/control-plane/incidents/${ctx.ids.incident}/resolve`, body: { by: 'alice' } }),
    invalid: (ctx) => ({
      path: `/control-plane/incidents/${ctx.ids.incident}/resolve`,
      body: { who: 'alice' },
      field: 'who',
    }),
  },
  'put /control-plane/incidents/{id}/assignee': {
    valid: (ctx) => ({ path: `/control-plane/incidents/${ctx.ids.incident}/assignee`, body: { assignee: null } }),
    invalid: (ctx) => ({
      path: `/control-plane/incidents/${ctx.ids.incident}/assignee`,
      body: { assignee: 'me' },
      field: 'assignee',
    }),
  },
  'get /incidents/test': { valid: () => noKey({}), invalid: null },
  'get /incidents/{id}': {
    valid: (ctx) =>
      noKey({
        path: `/incidents/${ctx.ids.incident}`,
        query: signed(links(ctx).dashboardUrl(ctx.t.projectId, ctx.ids.incident!)),
      }),
    invalid: (ctx) => ({
      ...noKey({ path: `/incidents/${ctx.ids.incident}`, query: { p: ctx.t.projectId } }),
      field: 'sig',
    }),
    invalidStatus: 403,
  },
  'get /incidents/{id}/acknowledge': {
    valid: (ctx) =>
      noKey({
        path: `/incidents/${ctx.ids.incident}/acknowledge`,
        query: signed(links(ctx).acknowledgeUrl(ctx.t.projectId, ctx.ids.incident!)),
      }),
    invalid: (ctx) => ({
      ...noKey({
        path: `/incidents/${ctx.ids.incident}/acknowledge`,
        query: signed(links(ctx).resolveUrl(ctx.t.projectId, ctx.ids.incident!)),
      }),
      field: 'sig',
    }),
    invalidStatus: 403,
  },
  'post /incidents/{id}/acknowledge': {
    valid: (ctx) =>
      noKey({
        path: `/incidents/${ctx.ids.incident}/acknowledge`,
        query: signed(links(ctx).acknowledgeUrl(ctx.t.projectId, ctx.ids.incident!)),
      }),
    invalid: (ctx) => ({
      ...noKey({
        path: `/incidents/${ctx.ids.incident}/acknowledge`,
        query: { p: ctx.t.projectId, exp: '1', sig: 'x' },
      }),
      field: 'sig',
    }),
    invalidStatus: 403,
  },
  'get /incidents/{id}/resolve': {
    valid: (ctx) =>
      noKey({
        path: `/incidents/${ctx.ids.incident}/resolve`,
        query: signed(links(ctx).resolveUrl(ctx.t.projectId, ctx.ids.incident!)),
      }),
    invalid: (ctx) => ({ ...noKey({ path: `/incidents/${ctx.ids.incident}/resolve`, query: {} }), field: 'sig' }),
    invalidStatus: 403,
  },
  'post /incidents/{id}/resolve': {
    valid: (ctx) =>
      noKey({
        path: `/incidents/${ctx.ids.incident}/resolve`,
        query: signed(links(ctx).resolveUrl(ctx.t.projectId, ctx.ids.incident!)),
      }),
    invalid: (ctx) => ({
      ...noKey({
        path: `/incidents/${ctx.ids.incident}/resolve`,
        query: signed(links(ctx).acknowledgeUrl(ctx.t.projectId, ctx.ids.incident!)),
      }),
      field: 'sig',
    }),
    invalidStatus: 403,
  },

  // Notifications and integrations.
  'post /control-plane/notifications/channels': {
    valid: (ctx) => json({ type: 'webhook', name: 'hook', config: { url: `${ctx.receiver.url}/hook` } }),
    invalid: () => ({ body: { type: 'pager', name: 'hook', config: {} }, field: 'type' }),
  },
  'get /control-plane/notifications/channels': { valid: () => ({}), invalid: null },
  'get /control-plane/notifications/channels/{id}': {
    valid: (ctx) => ({ path: `/control-plane/notifications/channels/${ctx.ids.channel}` }),
    invalid: null,
  },
  'patch /control-plane/notifications/channels/{id}': {
    valid: (ctx) => ({
      path: `/control-plane/notifications/channels/${ctx.ids.channel}`,
      body: { name: 'hook 2', config: { url: `${ctx.receiver.url}/hook2` } },
    }),
    invalid: (ctx) => ({
      path: `/control-plane/notifications/channels/${ctx.ids.channel}`,
      body: { config: { url: 'ftp://example.com/hook' } },
      field: 'config.url',
    }),
  },
  'post /control-plane/notifications/rules': {
    valid: (ctx) => json({ name: 'all high', conditions: { severity: ['high'] }, channels: [ctx.ids.channel] }),
    invalid: (ctx) => ({
      body: { name: 'all', channels: [ctx.ids.channel], delay_seconds: 1e9 },
      field: 'delay_seconds',
    }),
  },
  'get /control-plane/notifications/rules': { valid: () => ({}), invalid: null },
  'patch /control-plane/notifications/rules/{id}': {
    valid: (ctx) => ({ path: `/control-plane/notifications/rules/${ctx.ids.rule}`, body: { delay_seconds: 60 } }),
    invalid: (ctx) => ({
      path: `/control-plane/notifications/rules/${ctx.ids.rule}`,
      body: { delay_seconds: -1 },
      field: 'delay_seconds',
    }),
  },
  'put /control-plane/notifications/rules/order': {
    valid: (ctx) => json({ ids: [ctx.ids.rule] }),
    invalid: () => ({ body: { ids: ['rule_unknown'] }, field: 'ids' }),
  },
  'delete /control-plane/notifications/rules/{id}': {
    valid: (ctx) => ({ path: `/control-plane/notifications/rules/${ctx.ids.rule}` }),
    invalid: null,
  },
  'get /control-plane/notifications/deliveries': {
    valid: (ctx) => ({ query: { channel_id: ctx.ids.channel! } }),
    invalid: () => ({ query: { limit: '500' }, field: 'limit' }),
  },
  'post /control-plane/notifications/{channelId}/test': {
    valid: (ctx) => ({ path: `/control-plane/notifications/${ctx.ids.channel}/test` }),
    invalid: null,
  },
  'delete /control-plane/notifications/channels/{id}': {
    valid: (ctx) => ({ path: `/control-plane/notifications/channels/${ctx.ids.channel}` }),
    invalid: null,
  },
  'get /control-plane/retention': { valid: () => ({}), invalid: null },
  'get /control-plane/limits': { valid: () => ({}), invalid: null },
  'put /control-plane/limits': {
    valid: () => json({ spans: { daily: 50_000_000 }, logs: { rate: null } }),
    invalid: () => ({ body: { spans: { burst: 5 } }, field: 'spans.burst' }),
  },
  'get /control-plane/usage': {
    valid: () => ({ query: { days: '7' } }),
    invalid: () => ({ query: { days: '93' }, field: 'days' }),
  },
  'get /control-plane/erasures': {
    valid: () => ({}),
    invalid: () => ({ query: { limit: '501' }, field: 'limit' }),
  },
  // Its job works in the background, until the next case waits for it: no table comparison in between.
  'post /control-plane/erasures': {
    valid: () => json({ session_id: 'openapi-erased-session' }),
    invalid: () => ({ body: { user_id: 'u-1', session_id: 'openapi-erased-session' }, field: 'session_id' }),
  },
  'get /control-plane/erasures/{id}': {
    // The job queued above works in the background: done before the next case compares the tables.
    prepare: (ctx) =>
      eventually('the erasure job to finish', async () => {
        const res = await send(ctx, 'get /control-plane/erasures', {});
        const [job] = (JSON.parse(res.body) as { data: Array<{ id: string; status: string }> }).data;
        return job?.status === 'done' ? (ctx.ids.erasure = job.id) : undefined;
      }).then(() => undefined),
    valid: (ctx) => ({ path: `/control-plane/erasures/${ctx.ids.erasure}` }),
    invalid: null,
  },
  'put /control-plane/retention': {
    valid: () => json({ replays: 14, metrics: null }),
    invalid: () => ({ body: { replays: 14, audit: 7 }, field: 'audit' }),
  },
  'put /control-plane/integrations/chat-app': {
    valid: () => json({ bot_token: 'xoxb-1-2-abc', signing_secret: SIGNING_SECRET }),
    invalid: () => ({ body: { bot_token: 'xoxp-1', signing_secret: SIGNING_SECRET }, field: 'bot_token' }),
  },
  'put /control-plane/integrations/telephony': {
    valid: () => json({ account_sid: `AC${'1'.repeat(32)}`, auth_token: 'token', from: '+15550100000' }),
    invalid: () => ({ body: { account_sid: 'AC1', auth_token: 'token', from: '+15550100000' }, field: 'account_sid' }),
  },
  'get /control-plane/integrations/{kind}': {
    valid: () => ({ path: '/control-plane/integrations/chat-app' }),
    invalid: () => ({ path: '/control-plane/integrations/pager', field: 'kind' }),
  },
  'post /integrations/chat/{projectId}/interactions': {
    valid: (ctx) => ({
      path: `/integrations/chat/${ctx.t.projectId}/interactions`,
      ...withSignature(`payload=${encodeURIComponent(JSON.stringify({ type: 'view_closed' }))}`),
    }),
    invalid: (ctx) => ({
      path: `/integrations/chat/${ctx.t.projectId}/interactions`,
      ...withSignature('text=status'),
      field: 'payload',
    }),
  },
  'post /integrations/chat/{projectId}/commands': {
    valid: (ctx) => ({
      path: `/integrations/chat/${ctx.t.projectId}/commands`,
      ...withSignature('command=%2Fsvc&text=status'),
    }),
    // Every form is a command; the signature is what can be wrong, and it is a 401 (the chat app's own check).
    invalid: null,
  },
  'delete /control-plane/integrations/{kind}': {
    valid: () => ({ path: '/control-plane/integrations/telephony' }),
    invalid: () => ({ path: '/control-plane/integrations/fax', field: 'kind' }),
  },

  // Repositories (GitHub).
  'put /control-plane/apps/{app}/repository': {
    valid: () => ({
      path: '/control-plane/apps/web-app/repository',
      body: { owner: 'acme', repo: 'shop', token: 'github_pat_example' },
    }),
    invalid: () => ({
      path: '/control-plane/apps/web-app/repository',
      body: { owner: 'acme', repo: 'shop', app_id: 0 },
      field: 'app_id',
    }),
  },
  'get /control-plane/apps/{app}/repository': {
    valid: () => ({ path: '/control-plane/apps/web-app/repository' }),
    invalid: null,
  },
  'delete /control-plane/apps/{app}/repository': {
    valid: () => ({ path: '/control-plane/apps/web-app/repository' }),
    invalid: null,
  },

  // Cost.
  'post /control-plane/cost/providers': {
    valid: () =>
      json({
        provider: 'aws',
        config: { role_arn: 'arn:aws:iam::123456789012:role/svc-cost', cur_bucket: 'billing-1', cur_prefix: 'cur/' },
      }),
    invalid: () => ({ body: { provider: 'oracle', config: {} }, field: 'provider' }),
  },
  'get /control-plane/cost/providers': { valid: () => ({}), invalid: null },
  'get /control-plane/cost/providers/{id}': {
    valid: (ctx) => ({ path: `/control-plane/cost/providers/${ctx.ids.provider}` }),
    invalid: null,
  },
  'get /control-plane/cost/providers/{id}/sync': {
    valid: (ctx) => ({ path: `/control-plane/cost/providers/${ctx.ids.provider}/sync` }),
    invalid: null,
  },
  'post /control-plane/cost/providers/{id}/sync': {
    valid: (ctx) => ({ path: `/control-plane/cost/providers/${ctx.ids.provider}/sync` }),
    ok: [202, 409], // 409 while the first sync runs
    invalid: null,
  },
  'delete /control-plane/cost/providers/{id}': {
    valid: (ctx) => ({ path: `/control-plane/cost/providers/${ctx.ids.provider}` }),
    invalid: null,
  },
  'post /control-plane/cost/mappings': {
    valid: () => json({ rules: [{ match: { tag: 'app', pattern: 'shop-*' }, attribute_to: 'service' }] }),
    invalid: () => ({ body: { rules: [{ match: { tag: 'app' }, attribute_to: 'service' }] }, field: 'rules[0].match' }),
  },
  'get /control-plane/cost/mappings': { valid: () => ({}), invalid: null },
  'get /control-plane/cost/summary': {
    valid: () => ({ query: { period: '2026-01' } }),
    invalid: () => ({ query: { period: '2026-13' }, field: 'period' }),
  },
  'get /control-plane/cost/by-service': { valid: () => ({}), invalid: () => unknownQuery('month') },
  'get /control-plane/cost/estimate': {
    valid: () => ({ query: { period: 'weekly', trailing_days: '7' } }),
    invalid: () => ({ query: { threshold_pct: '-5' }, field: 'threshold_pct' }),
  },
  'get /control-plane/cost/recommendations': {
    valid: () => ({ query: { lookback_days: '30' } }),
    invalid: () => ({ query: { lookback_days: '365' }, field: 'lookback_days' }),
  },

  // Source maps.
  'post /control-plane/sourcemaps': {
    valid: () => json({ maps: [{ map: sourceMap }] }),
    invalid: () => ({ body: { maps: [{ map: { version: 2 } }] }, field: 'maps[0].map' }),
  },
  'get /control-plane/sourcemaps': {
    valid: () => ({ query: { release: '1.0.0' } }),
    invalid: () => ({ query: { limit: '0' }, field: 'limit' }),
  },
  'delete /control-plane/sourcemaps/{debug_id}': {
    valid: () => ({ path: `/control-plane/sourcemaps/${DEBUG_ID}` }),
    invalid: () => ({ path: '/control-plane/sourcemaps/not-a-uuid', field: 'debug_id' }),
  },

  // Test runs: made, given a result, finished, then read.
  'put /control-plane/test-runs/{run_id}': {
    valid: () => ({
      path: '/control-plane/test-runs/run-1',
      body: { started_at: new Date().toISOString(), branch: 'main', commit: 'abc123' },
    }),
    invalid: () => ({ path: '/control-plane/test-runs/run-1', body: { started_at: 'today' }, field: 'started_at' }),
  },
  'post /control-plane/test-runs/{run_id}/results': {
    valid: () => ({ path: '/control-plane/test-runs/run-1/results', body: { results: [testResult] } }),
    invalid: () => ({
      path: '/control-plane/test-runs/run-1/results',
      body: { results: [{ ...testResult, tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }] },
      field: 'results[0].tags',
    }),
  },
  'post /control-plane/test-runs/{run_id}/finish': {
    valid: () => ({ path: '/control-plane/test-runs/run-1/finish', body: { status: 'passed', duration_ms: 1200 } }),
    invalid: () => ({
      path: '/control-plane/test-runs/run-1/finish',
      body: { status: 'green', duration_ms: 1200 },
      field: 'status',
    }),
  },
  'get /control-plane/test-runs': {
    valid: () => ({ query: { branch: 'main', status: 'passed' } }),
    invalid: () => ({ query: { status: 'green' }, field: 'status' }),
  },
  'get /control-plane/test-runs/{run_id}': {
    valid: () => ({ path: '/control-plane/test-runs/run-1' }),
    invalid: () => ({ path: '/control-plane/test-runs/run%201', field: 'run_id' }),
  },
  'get /control-plane/tests/flaky': {
    valid: () => ({ query: { runs: '10' } }),
    invalid: () => ({ query: { runs: '0' }, field: 'runs' }),
  },
  'get /control-plane/tests/{test_key}': {
    valid: () => ({
      path: `/control-plane/tests/${testKey(testResult.file, testResult.title_path, testResult.project)}`,
    }),
    invalid: () => ({ path: '/control-plane/tests/not-a-key', field: 'test_key' }),
  },

  // People and machine keys (admin key; the invitation routes are public and checked for the server's own Origin).
  'post /control-plane/members/invitations': {
    valid: () => ({ key: 'admin', body: { email: 'invited@example.com', role: 'member' } }),
    invalid: () => ({ key: 'admin', body: { email: 'not an address', role: 'member' }, field: 'email' }),
  },
  'get /control-plane/members/invitations': { valid: () => ({ key: 'admin' }), invalid: null },
  'delete /control-plane/members/invitations/{id}': {
    prepare: async (ctx) => {
      ctx.ids.invitation = (await invite(ctx, 'withdrawn@example.com')).id;
    },
    valid: (ctx) => ({ key: 'admin', path: `/control-plane/members/invitations/${ctx.ids.invitation}` }),
    invalid: null,
  },
  // The first owner, with the one-time link the server made at start (no person had an account yet).
  'post /auth/setup': {
    valid: (ctx) => ({
      ...publicPost(ctx),
      body: {
        token: new URL(ctx.t.server.setupLink!).hash.slice('#token='.length),
        email: 'owner@example.com',
        name: 'Owner',
        password: 'correct horse battery',
      },
    }),
    ok: [201],
    invalid: (ctx) => ({ ...publicPost(ctx), body: { token: 'x', email: 'not an address' }, field: 'email' }),
  },
  'get /auth/options': { valid: () => noKey({}), invalid: null },
  'post /auth/sign-in': {
    valid: (ctx) => ({ ...publicPost(ctx), body: { email: 'owner@example.com', password: 'correct horse battery' } }),
    invalid: (ctx) => ({ ...publicPost(ctx), body: { email: 'owner@example.com' }, field: 'password' }),
  },
  // Without a cookie there is no session to read (401); with one, the sign-in case above shows the same answer.
  'get /auth/session': { valid: () => noKey({}), ok: [401], invalid: null },
  'post /auth/sign-out': { valid: (ctx) => publicPost(ctx), invalid: null },
  'post /auth/password-reset': {
    valid: (ctx) => ({ ...publicPost(ctx), body: { email: 'owner@example.com' } }),
    invalid: (ctx) => ({ ...publicPost(ctx), body: {}, field: 'email' }),
  },
  // A token no link carries: the route answers the 400 its document gives for a used or expired link.
  'post /auth/password-reset/complete': {
    valid: (ctx) => ({ ...publicPost(ctx), body: { token: 'unknown-token', password: 'correct horse battery' } }),
    ok: [400],
    invalid: (ctx) => ({ ...publicPost(ctx), body: { token: 'x', password: 'short' }, field: 'password' }),
  },
  'get /control-plane/audit': {
    valid: () => ({ key: 'admin', query: { limit: '10' } }),
    invalid: () => ({ key: 'admin', query: { limit: '0' }, field: 'limit' }),
  },
  'get /control-plane/audit/export': {
    valid: () => ({ key: 'admin' }),
    invalid: () => ({ key: 'admin', query: { from: 'yesterday' }, field: 'from' }),
  },
  'get /control-plane/export': {
    valid: () => ({ query: { signal: 'spans', from: '2020-01-01T00:00:00Z' } }),
    invalid: () => ({ query: { signal: 'replay', page_size: '500' }, field: 'page_size' }),
  },
  'post /auth/invitations/inspect': {
    prepare: async (ctx) => {
      ctx.ids.inviteToken = (await invite(ctx, 'looking@example.com')).token;
    },
    valid: (ctx) => ({ ...publicPost(ctx), body: { token: ctx.ids.inviteToken } }),
    invalid: (ctx) => ({ ...publicPost(ctx), body: {}, field: 'token' }),
  },
  'post /auth/invitations/accept': {
    prepare: async (ctx) => {
      ctx.ids.inviteToken = (await invite(ctx, 'joiner@example.com')).token;
    },
    valid: (ctx) => ({
      ...publicPost(ctx),
      body: { token: ctx.ids.inviteToken, name: 'Joiner', password: 'correct horse battery' },
    }),
    invalid: (ctx) => ({ ...publicPost(ctx), body: { token: 'x', name: 'Joiner' }, field: 'password' }),
  },
  'get /control-plane/members': { valid: () => ({ key: 'admin' }), invalid: null },
  'patch /control-plane/members/{user_id}': {
    prepare: async (ctx) => {
      const joiner = await ctx.t.server.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'joiner@example.com')
        .executeTakeFirstOrThrow();
      ctx.ids.member = joiner.id;
    },
    valid: (ctx) => ({ key: 'admin', path: `/control-plane/members/${ctx.ids.member}`, body: { role: 'viewer' } }),
    invalid: () => ({ key: 'admin', path: '/control-plane/members/someone', body: { role: 'boss' }, field: 'role' }),
  },
  'delete /control-plane/members/{user_id}/sessions': {
    valid: (ctx) => ({ key: 'admin', path: `/control-plane/members/${ctx.ids.member}/sessions` }),
    invalid: null,
  },
  'delete /control-plane/members/{user_id}': {
    valid: (ctx) => ({ key: 'admin', path: `/control-plane/members/${ctx.ids.member}` }),
    invalid: null,
  },
  'get /control-plane/me/sessions': { valid: () => ({ key: 'admin' }), invalid: null },
  'delete /control-plane/me/sessions/{id}': {
    prepare: async (ctx) => {
      const { db } = ctx.t.server.database;
      const tenantId = ctx.t.server.bootstrap!.tenantId;
      const person = await createPerson(db, { tenantId, email: 'sessions@example.com', name: 'S', role: 'viewer' });
      const session = await signInAs(db, systemClock, person);
      ctx.ids.session = session.sessionId;
      ctx.ids.sessionHeaders = JSON.stringify(sessionHeaders(session, ctx.t.url));
    },
    valid: (ctx) => ({
      key: 'none',
      path: `/control-plane/me/sessions/${ctx.ids.session}`,
      headers: JSON.parse(ctx.ids.sessionHeaders!) as Record<string, string>,
    }),
    invalid: null,
  },
  'get /control-plane/organisation': {
    // Makes the owner the change below needs (no key manages the organisation): its invalid request precedes its prepare.
    prepare: async (ctx) => {
      const { db } = ctx.t.server.database;
      const tenantId = ctx.t.server.bootstrap!.tenantId;
      const person = await createPerson(db, { tenantId, email: 'org-owner@example.com', name: 'O', role: 'owner' });
      ctx.ids.ownerHeaders = JSON.stringify(sessionHeaders(await signInAs(db, systemClock, person), ctx.t.url));
    },
    valid: () => ({ key: 'admin' }),
    invalid: null,
  },
  'patch /control-plane/organisation': {
    valid: (ctx) => ({ ...asOwner(ctx), body: { name: 'Renamed', sso_policy: { allowed_domains: ['example.com'] } } }),
    invalid: (ctx) => ({
      ...asOwner(ctx),
      body: { sso_policy: { default_role: 'root' } },
      field: 'sso_policy.default_role',
    }),
  },
  'get /control-plane/keys': { valid: () => ({ key: 'admin' }), invalid: null },
  'post /control-plane/keys': {
    valid: () => ({ key: 'admin', body: { scope: 'read', name: 'dashboards' } }),
    invalid: () => ({ key: 'admin', body: { scope: 'admin', name: 'root' }, field: 'scope' }),
  },
  'delete /control-plane/keys/{id}': {
    prepare: async (ctx) => {
      const made = await createKey(ctx.t.server.database.db, systemClock, {
        projectId: ctx.t.projectId,
        scope: 'read',
      });
      ctx.ids.key = made.id;
    },
    valid: (ctx) => ({ key: 'admin', path: `/control-plane/keys/${ctx.ids.key}` }),
    invalid: null,
  },
};

/** The documented operations, as `method /path/{param}`. */
async function documented(url: string): Promise<string[]> {
  const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
}

/** The tables a snapshot reads, per server: the catalog is read once, not before every snapshot. */
const snapshotTables = new WeakMap<TestServer, Promise<string[]>>();

/**
 * Every table but those background workers write on their own schedule: what a request could change.
 * `ingest_refusals` counts refused ingest requests (the one thing an invalid ingest request is meant to leave behind),
 * booked by a flush every few seconds, so an earlier case's refusal can land between two snapshots of a later one;
 * `ingest_usage` the same for every ingest request, and `ingest_rate_buckets` the limiter's own buckets.
 */
async function tablesOf(t: TestServer): Promise<string[]> {
  const background = [
    'cost_syncs',
    'deliveries',
    'ingest_refusals',
    'ingest_usage',
    'ingest_rate_buckets',
    'kysely_migration',
    'kysely_migration_lock',
  ];
  const tables = (await t.server.database.db.introspection.getTables())
    .map((table) => table.name)
    .filter((name) => !background.includes(name));
  return tables.sort();
}

/** Every row of every table of {@link tablesOf}, sorted: equal before and after means the request changed nothing. */
async function snapshot(t: TestServer): Promise<string> {
  const { db } = t.server.database;
  if (!snapshotTables.has(t)) snapshotTables.set(t, tablesOf(t));
  const tables = await snapshotTables.get(t)!;
  const rows: Record<string, unknown[]> = {};
  for (const table of tables)
    rows[table] = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows
      .map((r) => JSON.stringify(r))
      .sort();
  return JSON.stringify(rows);
}

async function send(ctx: Ctx, route: string, req: Req): Promise<{ status: number; body: string }> {
  const [method, docPath] = route.split(' ') as [string, string];
  const url = new URL(`${ctx.t.url}${req.path ?? docPath}`);
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
  const key = req.key ?? 'control';
  const headers: Record<string, string> = { ...req.headers };
  if (key === 'control') headers.authorization = `Bearer ${ctx.t.controlKey}`;
  if (key === 'admin') headers.authorization = `Bearer ${ctx.adminKey}`;
  if (key === 'ingest') headers['x-api-key'] = ctx.t.ingestKey;
  let body: string | undefined;
  if (req.raw) [headers['content-type'], body] = [req.raw.type, req.raw.text];
  else if (req.body !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(req.body)];
  const res = await fetch(url, { method: method.toUpperCase(), headers, body, redirect: 'manual' });
  return { status: res.status, body: await res.text() };
}

describe.each(kinds)('every documented route, one valid and one invalid request, on %s', (kind) => {
  const ctx = { ids: {} } as Ctx;

  beforeAll(async () => {
    ctx.receiver = await startReceiver();
    ctx.t = await startTestServer(kind, {
      detection: false,
      allowPrivateTargets: true,
      secretKey: 'k'.repeat(40),
      demoSdk: join(demoDir, 'svc.min.js'),
    });
    const { t } = ctx;
    ctx.adminKey = (await createKey(t.server.database.db, systemClock, { projectId: t.projectId, scope: 'admin' })).key;
    // An issue: an error log the detector groups.
    const logs = await fetch(`${t.url}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(errorLog({ atMs: Date.now() - 5000, sessionId: SESSION })),
    });
    expect(logs.status).toBe(200);
    await issueDetector(t, systemClock).runOnce();
  });
  afterAll(async () => {
    await ctx.t.close();
    await ctx.receiver.close();
  });

  it('has a case for every operation of the document, and the document for every case', async () => {
    expect(new Set(await documented(ctx.t.url))).toEqual(new Set(Object.keys(CASES)));
  });

  it('answers each invalid request with a 400 naming the field and changes nothing; each valid one succeeds', async () => {
    const checked: string[] = [];
    for (const [route, c] of Object.entries(CASES)) {
      if (c.invalid) {
        const { field, ...req } = c.invalid(ctx);
        const before = await snapshot(ctx.t);
        const res = await send(ctx, route, req);
        const expected = c.invalidStatus ?? 400;
        expect(res.status, `${route} invalid: ${res.body}`).toBe(expected);
        if (expected === 400) {
          const error = (
            JSON.parse(res.body) as { error: { code: string; message: string; details?: { field?: string } } }
          ).error;
          expect(error.details?.field, `${route}: ${res.body}`).toBe(field);
          expect(error.message, route).toContain(field.split(/[.[]/)[0]);
        }
        expect(await snapshot(ctx.t), `${route}: the invalid request changed something`).toBe(before);
      }
      await c.prepare?.(ctx);
      const res = await send(ctx, route, c.valid(ctx));
      const ok = c.ok ?? [];
      expect(
        res.status >= 200 && res.status < 300 ? 'success' : ok.includes(res.status) ? 'expected' : res.status,
        `${route} valid: ${res.body.slice(0, 300)}`,
      ).not.toBeTypeOf('number');
      remember(ctx, route, res.body);
      checked.push(route);
    }
    expect(checked).toHaveLength(Object.keys(CASES).length);
    // Every route, each invalid request between two reads of every table: bounded work, but 30 s of it on PostgreSQL
    // on a busy 2-core machine.
  }, 120_000);

  it('serves typed clients (hc) whose requests and answers are the declared schemas', async () => {
    const headers = { authorization: `Bearer ${ctx.adminKey}` };
    const projects = hc<ProjectsApi>(`${ctx.t.url}/control-plane/projects`, { headers });
    const created = await projects.index.$post({ json: { name: 'typed' } });
    expect(created.status).toBe(201);
    if (created.status !== 201) return;
    const project = await created.json();
    expect(project.ingest_key.scope).toBe('ingest');

    const control = { authorization: `Bearer ${ctx.t.controlKey}` };
    const issues = hc<IssuesApi>(`${ctx.t.url}/control-plane/issues`, { headers: control });
    const page = await issues.index.$get({ query: { sort: 'events', limit: '1' } });
    expect(page.status).toBe(200);
    if (page.status !== 200) return;
    expect((await page.json()).data[0]!.id).toBe(ctx.ids.issue);

    const rules = hc<RulesApi>(`${ctx.t.url}/control-plane/notifications/rules`, { headers: control });
    const bad = await rules.index.$post({ json: { name: 'r', channels: [] } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_request', details: { field: 'channels' } } });
  });
});

/** Keeps the ids the valid requests made, for the cases after them. */
function remember(ctx: Ctx, route: string, body: string): void {
  const id = () => (JSON.parse(body) as { id: string }).id;
  if (route === 'post /control-plane/incidents') ctx.ids.incident = id();
  if (route === 'post /control-plane/notifications/channels') ctx.ids.channel = id();
  if (route === 'post /control-plane/notifications/rules') ctx.ids.rule = id();
  if (route === 'post /control-plane/alert-rules') ctx.ids.alertRule = id();
  if (route === 'post /control-plane/cost/providers') ctx.ids.provider = id();
  if (route === 'get /control-plane/issues')
    ctx.ids.issue = (JSON.parse(body) as { data: { id: string }[] }).data[0]!.id;
}
