import { randomUUID } from 'node:crypto';
import { applyPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisView } from '../../server/src/ai/store';
import type { AiSettings } from '../../server/src/ai/settings';
import { databaseKinds, type DatabaseKind } from '../support/databases';
import { issueDetector } from '../support/detector';
import { errorLog } from '../support/error-logs';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai';
import { startMailbox } from '../support/mailbox';
import { str } from '../support/otlp';
import { startReceiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';
import { buildShop, TOTAL_TS, type ShopBuild } from '../support/shop-build';
import { eventually } from '../support/until';

/**
 * Root-cause analyses of issues (docs/ai-fixes.md) on the real server over HTTP, on SQLite and PostgreSQL: an error of
 * a minified build whose map was uploaded, analysed without a model (heuristic), and with a model behind a local
 * server speaking the chat-completions wire format to the production `openai` client: a fix that applies, one that
 * does not, invalid output, a rate limit, a timeout; what was sent holds no secret; a repeated POST runs nothing twice.
 */
const kinds = await databaseKinds();

const T0 = Date.UTC(2027, 2, 1, 9, 0, 0);
const API_KEY = 'sk-test-7f3a9c2e4b1d8f6a0e5c3b7d9a2f4e6c';
const USER_TOKEN = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const USER_EMAIL = 'jane.doe@example.org';
const MESSAGE = "Cannot read properties of undefined (reading 'price')";
const FIX = `--- a/src/cart/total.ts
+++ b/src/cart/total.ts
@@ -1,4 +1,5 @@
 export function lineTotal(item: { product?: { price: number }; qty: number }): number {
-  const price = item.product!.price;
+  if (!item.product) return 0;
+  const price = item.product.price;
   return price * item.qty;
 }
`;
const STALE_FIX = FIX.replace('const price = item.product!.price;', 'const price = item.product.cost;');
const answer = (diff: string | null) =>
  JSON.stringify({
    root_cause: 'An item without a product reaches lineTotal',
    confidence: 0.8,
    locations: [{ file: 'src/cart/total.ts', line: 2 }],
    diff,
    explanation: 'Guard the missing product.',
  });

type ErrorBody = { error: { code: string; message: string } };

describe.each(kinds)('issue analyses on %s', (kind: DatabaseKind) => {
  let fake: FakeOpenAi;
  let shop: ShopBuild;
  const servers: TestServer[] = [];
  const logLines: string[] = [];
  const clock = { now: () => T0 };

  const send = async <T = AnalysisView>(t: TestServer, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const call = <T = AnalysisView>(t: TestServer, method: string, path: string) => send<T>(t, method, path);
  const ingest = async (t: TestServer, path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };

  /** A server (with `ai` when given) holding one issue: the shop's error in session `s-1`, its map uploaded, breadcrumbs before it. */
  async function serverWithIssue(ai?: AiSettings): Promise<{ t: TestServer; issueId: string }> {
    const log = (line: string) => void logLines.push(line);
    const t = await startTestServer(kind, {
      clock,
      log,
      detection: false,
      allowPrivateTargets: true,
      secretKey: 'k'.repeat(40),
      outbox: { pollMs: 60_000 },
      ...(ai ? { ai } : {}),
    });
    servers.push(t);
    const debugId = randomUUID();
    const upload = await fetch(`${t.url}/control-plane/sourcemaps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.controlKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ maps: [{ map: shop.map, debug_id: debugId }] }),
    });
    expect(upload.status, await upload.clone().text()).toBe(201);
    // A log before the error, carrying personal data and a token the SDK's redaction would have missed.
    const info = errorLog({ sessionId: 's-1', release: '7.0', message: 'x', atMs: T0 - 2000 }, 9);
    const record = info.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!;
    record.body = { stringValue: `checkout for ${USER_EMAIL} with ${USER_TOKEN}` };
    record.attributes = [];
    info.resourceLogs[0]!.resource.attributes.push(str('user_agent.original', 'Mozilla/5.0 Chrome/131.0'));
    await ingest(t, '/otlp/v1/logs', info);
    // The session's requests: one failed (its query carries the token), one did not.
    const step = (url: string, status: number, ts: number) => ({
      ts,
      method: 'GET',
      url,
      requestHeaders: {},
      status,
      responseHeaders: {},
      durationMs: 12,
    });
    await ingest(t, '/ingest/replay/recipes', {
      serviceName: 'web-app',
      sessionId: 's-1',
      replayId: 'r-1',
      steps: [
        step(`https://api.shop.example.com/api/cart?token=${USER_TOKEN}`, 500, T0 - 1500),
        step('https://api.shop.example.com/api/user', 200, T0 - 1000),
      ],
    });
    const error = errorLog({ sessionId: 's-1', release: '7.0', message: MESSAGE, stack: shop.stack, atMs: T0 });
    error.resourceLogs[0]!.resource.attributes.push(str('user_agent.original', 'Mozilla/5.0 Chrome/131.0'));
    error.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.attributes.push({
      key: 'svc.exception.debug_ids',
      value: { arrayValue: { values: [{ stringValue: `${debugId} ${shop.url}` }] } },
    } as ReturnType<typeof str>);
    await ingest(t, '/otlp/v1/logs', error);
    await issueDetector(t, clock).runOnce();
    const list = await call<{ data: Array<{ id: string }> }>(t, 'GET', '/issues');
    expect(list.body.data).toHaveLength(1);
    return { t, issueId: list.body.data[0]!.id };
  }

  const settled = (t: TestServer, issueId: string) =>
    eventually('the analysis to end', async () => {
      const { body } = await call(t, 'GET', `/issues/${issueId}/analysis`);
      return body.state === 'done' || body.state === 'failed' ? body : undefined;
    });

  let model: { t: TestServer; issueId: string };

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    shop = await buildShop(false);
    model = await serverWithIssue({ baseUrl: fake.baseUrl, apiKey: API_KEY, model: 'gpt-test', timeoutMs: 60_000 });
  });
  afterAll(async () => {
    await fake?.close();
    for (const t of servers) await t.close();
  });

  it('without a model: the heuristic root cause, marked as such, nothing sent', async () => {
    const { t, issueId } = await serverWithIssue();
    // None asked for yet: an answer (null), not a 404, so the console's issue page logs no failed request.
    expect(await call(t, 'GET', `/issues/${issueId}/analysis`)).toMatchObject({ status: 200, body: null });
    const started = await call(t, 'POST', `/issues/${issueId}/analysis`);
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ issue_id: issueId, mode: 'heuristic', model: null });
    const done = await settled(t, issueId);
    expect(done).toMatchObject({ state: 'done', mode: 'heuristic', sent: null, usage: null, error: null });
    expect(done.result).toMatchObject({ confidence: 0, diff: null, diff_applies: false });
    // The in-app frames a map covered, top first: the throw, its callers in the module, the entry point.
    expect(new Set(done.result!.locations.map((l) => l.file))).toEqual(new Set(['src/cart/total.ts', 'src/main.ts']));
    expect(done.result!.locations[0]).toEqual({ file: 'src/cart/total.ts', line: 2 });
    expect(done.result!.root_cause).toMatch(
      /^TypeError: Cannot read properties of undefined \(reading 'price'\) at lineTotal \(src\/cart\/total\.ts:2:\d+\)\. The line: `const price = item\.product!\.price;`\./,
    );
    expect(done.result!.explanation).toMatch(/^Heuristic summary: no model is configured/);
  });

  it('with a model: the redacted evidence sent exactly as recorded, a fix that applies to the source the map holds', async () => {
    const { t, issueId } = model;
    const before = fake.requests.length;
    fake.script({ content: answer(FIX), usage: { prompt_tokens: 1234, completion_tokens: 56 } });
    expect((await call(t, 'POST', `/issues/${issueId}/analysis`)).status).toBe(202);
    const done = await settled(t, issueId);
    expect(done).toMatchObject({
      state: 'done',
      mode: 'model',
      model: 'gpt-test',
      error: null,
      usage: { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 },
    });
    expect(done.result).toEqual({
      root_cause: 'An item without a product reaches lineTotal',
      confidence: 0.8,
      locations: [{ file: 'src/cart/total.ts', line: 2 }],
      diff: FIX,
      diff_applies: true,
      explanation: 'Guard the missing product.',
    });
    expect(applyPatch(TOTAL_TS, FIX)).toContain('if (!item.product) return 0;');
    expect(logLines).toContainEqual(
      expect.stringMatching(/^ai: gpt-test answered in \d+ ms, 1234 prompt \+ 56 completion tokens$/),
    );

    const request = fake.requests[before]!;
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.body).toMatchObject({ model: 'gpt-test', response_format: { type: 'json_object' } });
    expect(request.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    // What the API shows as sent is exactly the user message.
    expect(request.body.messages[1]!.content).toBe(JSON.stringify(done.sent));
    const sent = done.sent!;
    expect(sent).toMatchObject({
      release: '7.0',
      env: 'staging',
      browser: 'Mozilla/5.0 Chrome/131.0',
      issue: { id: issueId, type: 'TypeError', app: 'web-app' },
    });
    expect(sent.stack.find((f) => f.in_app)).toMatchObject({
      file: 'src/cart/total.ts',
      line: 2,
      function: 'lineTotal',
    });
    expect(sent.sources.map((f) => f.path)).toEqual(['src/cart/total.ts', 'src/main.ts']);
    expect(sent.sources[0]!.content).toBe(TOTAL_TS);
    expect(sent.breadcrumbs.some((b) => b.message.includes('checkout for <email> with <token>'))).toBe(true);
    expect(sent.failing_requests).toEqual([
      { at: new Date(T0 - 1500).toISOString(), method: 'GET', path: '/api/cart', status: 500 },
    ]);
  });

  it("sends no key or secret: not the API key, the user's token or e-mail address, nor the server's keys", async () => {
    const { t } = model;
    const wire = JSON.stringify(fake.requests.map((r) => r.body));
    expect(wire.length).toBeGreaterThan(0);
    for (const secret of [API_KEY, USER_TOKEN, USER_EMAIL, t.ingestKey, t.controlKey])
      expect(wire).not.toContain(secret);
  });

  it('keeps a diff that does not apply as text, marked not applicable', async () => {
    const { t, issueId } = model;
    fake.script({ content: answer(STALE_FIX) });
    await call(t, 'POST', `/issues/${issueId}/analysis`);
    const done = await settled(t, issueId);
    expect(done.state).toBe('done');
    expect(done.result).toMatchObject({
      diff: STALE_FIX,
      diff_applies: false,
      root_cause: 'An item without a product reaches lineTotal',
    });
  });

  it('fails clearly on invalid model output, a 429 with Retry-After and a 5xx; nothing of a result is kept', async () => {
    const { t, issueId } = model;
    const failure = async () => {
      expect((await call(t, 'POST', `/issues/${issueId}/analysis`)).status).toBe(202);
      const done = await settled(t, issueId);
      expect(done).toMatchObject({ state: 'failed', result: null });
      return done;
    };
    fake.script({ content: 'The bug is in lineTotal, I think.' });
    expect((await failure()).error).toEqual({
      code: 'model_invalid_output',
      message: 'the model did not answer with JSON',
      retry_after_s: null,
    });
    fake.script({
      content: JSON.stringify({ root_cause: 'x', confidence: 7, locations: [], diff: null, explanation: '' }),
    });
    expect((await failure()).error).toMatchObject({
      code: 'model_invalid_output',
      message: expect.stringContaining('confidence'),
    });
    fake.script({ status: 429, headers: { 'retry-after': '30' } });
    const limited = await failure();
    expect(limited.error).toMatchObject({ code: 'model_rate_limited', retry_after_s: 30 });
    expect(limited.sent).not.toBeNull();
    fake.script({ status: 503 });
    expect((await failure()).error).toMatchObject({
      code: 'model_unavailable',
      message: 'the model endpoint answered 503',
    });
    expect(logLines).toContainEqual(
      expect.stringMatching(/^ai: gpt-test failed after \d+ ms \(model_rate_limited\): /),
    );
  });

  it('runs one analysis however often it is asked while it runs', async () => {
    const { t, issueId } = model;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const before = fake.requests.length;
    fake.script({ until: held, then: { content: answer(FIX) } });
    const first = await call(t, 'POST', `/issues/${issueId}/analysis`);
    await fake.received(before + 1);
    const again = await Promise.all([
      call(t, 'POST', `/issues/${issueId}/analysis`),
      call(t, 'POST', `/issues/${issueId}/analysis`),
    ]);
    for (const res of again) expect(res).toMatchObject({ status: 202, body: { id: first.body.id, state: 'running' } });
    expect((await call(t, 'GET', `/issues/${issueId}/analysis`)).body).toMatchObject({
      id: first.body.id,
      state: 'running',
      result: null,
    });
    release();
    expect(await settled(t, issueId)).toMatchObject({
      id: first.body.id,
      state: 'done',
      result: { diff_applies: true },
    });
    expect(fake.requests.length).toBe(before + 1);
  });

  it("shows the issue's latest analysis on its incident, and chat, Teams and e-mail notices link to it; the webhook keeps SPEC 2.6's fields", async () => {
    const { t, issueId } = model;
    const receiver = await startReceiver();
    const mail = await startMailbox();
    try {
      const channels = [
        { type: 'webhook', name: 'hook', config: { url: `${receiver.url}/webhook` } },
        { type: 'teams', name: 'teams', config: { webhook_url: `${receiver.url}/teams` } },
        { type: 'chat', name: 'chat', config: { channel: '#ops', webhook_url: `${receiver.url}/chat` } },
        {
          type: 'email',
          name: 'mail',
          config: {
            to: ['oncall@example.com'],
            from: 'svc@example.com',
            smtp: { host: '127.0.0.1', port: mail.port, secure: false },
          },
        },
      ];
      const ids: string[] = [];
      for (const channel of channels) {
        const res = await send<{ id: string }>(t, 'POST', '/notifications/channels', channel);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        ids.push(res.body.id);
      }
      expect((await send(t, 'POST', '/notifications/rules', { name: 'all', channels: ids })).status).toBe(201);

      const at = new Date(T0).toISOString();
      const evidence = {
        fingerprint: issueId,
        error_type: 'TypeError',
        message: MESSAGE,
        top_frame: null,
        error_count: 1,
        first_seen_release: '7.0',
        first_seen_at: at,
        last_seen_at: at,
        affected_sessions: 1,
        sessions: [],
        failing_requests: [],
      };
      const opened = await t.server.notify.incidents.open({
        projectId: t.projectId,
        title: 'Cart broken',
        severity: 'high',
        env: 'staging',
        services: ['web-app'],
        rootCauseSummary: 'x',
        fingerprint: issueId,
        evidence,
      });
      const detail = await call<{ dashboard_url: string; analysis: Record<string, unknown> }>(
        t,
        'GET',
        `/incidents/${opened.id}`,
      );
      const latest = (await call(t, 'GET', `/issues/${issueId}/analysis`)).body;
      expect(detail.body.analysis).toEqual({ ...latest, sent: undefined, usage: undefined });
      expect(detail.body.analysis).not.toHaveProperty('sent');
      const page = await (await fetch(detail.body.dashboard_url)).text();
      expect(page).toContain(
        '<h2 id="analysis">Root-cause analysis</h2><p><em>Model gpt-test, confidence 80%</em></p><p>An item without a product reaches lineTotal</p>',
      );
      expect(page).toContain('+  if (!item.product) return 0;');

      await t.server.notify.outbox.drain();
      const analysisUrl = `${detail.body.dashboard_url}#analysis`;
      const bodyOf = (path: string) => receiver.received.find((r) => r.path === path)!.body;
      expect(Object.keys(JSON.parse(bodyOf('/webhook')) as object).sort()).toEqual([
        'dashboard_url',
        'env',
        'event',
        'incident_id',
        'root_cause_summary',
        'services',
        'severity',
        'title',
      ]);
      expect(bodyOf('/webhook')).not.toContain('#analysis');
      const teams = JSON.parse(bodyOf('/teams')) as {
        attachments: Array<{ content: { actions: Array<{ title: string; url: string }> } }>;
      };
      expect(teams.attachments[0]!.content.actions).toContainEqual({
        type: 'Action.OpenUrl',
        title: 'Open the root-cause analysis',
        url: analysisUrl,
      });
      expect(bodyOf('/chat')).toContain(
        JSON.stringify(`<${analysisUrl.replaceAll('&', '&amp;')}|Root-cause analysis>`).slice(1, -1),
      );
      const [message] = await eventually('the e-mail', async () => (mail.inbox.length > 0 ? mail.inbox : undefined));
      expect(message!.mail.text).toContain(`Root-cause analysis: ${analysisUrl}`);
    } finally {
      await receiver.close();
      await mail.close();
    }
  });

  it('fails with model_timeout when the model does not answer in time', async () => {
    const { t, issueId } = await serverWithIssue({ baseUrl: fake.baseUrl, model: 'gpt-test', timeoutMs: 300 });
    fake.script({ until: new Promise(() => undefined), then: { content: answer(FIX) } });
    await call(t, 'POST', `/issues/${issueId}/analysis`);
    expect((await settled(t, issueId)).error).toEqual({
      code: 'model_timeout',
      message: 'the model did not answer in time',
      retry_after_s: null,
    });
  });

  it('answers 404 for an unknown issue, changing nothing', async () => {
    const { t } = model;
    const res = await call<ErrorBody>(t, 'POST', '/issues/0123456789abcdef/analysis');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await call<ErrorBody>(t, 'GET', '/issues/0123456789abcdef/analysis')).status).toBe(404);
  });
});
