import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { createKey } from '../../server/src/index';
import { trendQuery } from '../../server/src/issues/store';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import type { IssueDetail, IssuePage, IssueSummary } from '../support/issues';
import { CART_ERROR, chromeStack, errorLog, resource, type ErrorInput } from '../support/error-logs';
import { detectionIncidentStore } from '../support/incident-store';
import { str } from '../support/otlp';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type TestServer } from '../support/server';
import { buildShop } from '../support/shop-build';

/**
 * The issues API on the real server over HTTP, on SQLite and PostgreSQL: errors ingested through OTLP, grouped by the
 * detector (driven here, as in incident-detection.test.ts), listed, filtered, sorted and paged, read in detail, given a
 * status, regressed (with one `issue.regressed` webhook however many detectors run), and grouped on their original
 * frame across two minified builds once their source maps are uploaded.
 */
const kinds = await databaseKinds();

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0';
const T0 = Date.UTC(2027, 0, 4, 9, 0, 0);

type ErrorBody = { error: { code: string; message: string; details?: { field: string } } };

describe.each(kinds)('issues API on %s', (kind) => {
  let t: TestServer;
  let receiver: Receiver;
  let now = T0;
  const clock = { now: () => now };

  const call = async <T>(method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${t.controlKey}`,
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const get = <T = IssuePage>(path: string) => call<T>('GET', path);
  const patch = <T = IssueSummary>(id: string, body: unknown) => call<T>('PATCH', `/issues/${id}`, body);
  const ingest = async (path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  /** One error log per call, at the clock's time; `debugIds` as the SDK sends them (`"<id> <url>"`). */
  const sendError = async (e: Omit<ErrorInput, 'atMs'>, debugIds: string[] = []) => {
    const body = errorLog({ ...e, atMs: now });
    if (debugIds.length > 0) {
      body.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.attributes.push({
        key: 'svc.exception.debug_ids',
        value: { arrayValue: { values: debugIds.map((stringValue) => ({ stringValue })) } },
      } as ReturnType<typeof str>);
    }
    await ingest('/otlp/v1/logs', body);
  };
  /** An error as the SDK sends it from a browser: its user agent on the resource, the page and the user on the record. */
  const sendBrowserError = async (e: Omit<ErrorInput, 'atMs'>, from: { ua?: string; path?: string; user?: string }) => {
    const body = errorLog({ ...e, atMs: now });
    const { resource, scopeLogs } = body.resourceLogs[0]!;
    if (from.ua) resource.attributes.push(str('user_agent.original', from.ua));
    const record = scopeLogs[0]!.logRecords[0]!;
    if (from.path) record.attributes.push(str('url.path', from.path));
    if (from.user) record.attributes.push(str('user.id', from.user));
    await ingest('/otlp/v1/logs', body);
  };
  const detect = () => issueDetector(t, clock).runOnce();
  const list = async (query: string) => {
    const res = await get(`/issues?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const only = async (query: string) => {
    const { data } = await list(query);
    expect(data).toHaveLength(1);
    return data[0]!;
  };
  const detail = async (id: string) => {
    const res = await get<IssueDetail>(`/issues/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const bad400 = async (res: Promise<{ status: number; body: unknown }>, field: string) => {
    const { status, body } = await res;
    expect(status, JSON.stringify(body)).toBe(400);
    expect((body as ErrorBody).error.details?.field).toBe(field);
  };
  const appId = async () =>
    (
      await t.server.database.db
        .selectFrom('apps')
        .select('id')
        .where('project_id', '=', t.projectId)
        .where('name', '=', 'web-app')
        .executeTakeFirstOrThrow()
    ).id;

  beforeAll(async () => {
    t = await startTestServer(kind, {
      clock,
      detection: false,
      allowPrivateTargets: true,
      secretKey: 'k'.repeat(40),
      outbox: { pollMs: 60_000 },
    });
  });
  afterAll(() => t?.close());

  it('lists issues filtered by app, env, release, status, text and time; sorted by last seen, events or sessions; keyset-paged', async () => {
    const env = 'sorting';
    // Alpha: 3 errors, 1 session, oldest. Beta: 1 error, newest, release 2.0. Gamma: 2 errors, 2 sessions.
    for (let i = 0; i < 3; i++) await sendError({ env, message: 'Alpha failure', sessionId: 'sort-1', release: '1.0' });
    now += MINUTE;
    await sendError({ env, message: 'Gamma gone', sessionId: 'sort-2', release: '1.0' });
    await sendError({ env, message: 'Gamma gone', sessionId: 'sort-3', release: '1.0' });
    now += MINUTE;
    await sendError({ env, message: 'Beta broken', sessionId: 'sort-4', release: '2.0' });
    expect(await detect()).toMatchObject({ errors: 6 });

    const titles = (page: IssuePage) => page.data.map((i) => i.message);
    expect(titles(await list(`env=${env}`))).toEqual(['Beta broken', 'Gamma gone', 'Alpha failure']);
    expect(titles(await list(`env=${env}&sort=events`))).toEqual(['Alpha failure', 'Gamma gone', 'Beta broken']);
    expect(titles(await list(`env=${env}&sort=sessions`))).toEqual([
      'Gamma gone',
      expect.any(String),
      expect.any(String),
    ]);
    const alpha = await only(`env=${env}&q=ALPHA`);
    expect(alpha).toMatchObject({
      status: 'unresolved',
      type: 'TypeError',
      app: 'web-app',
      env,
      events: 3,
      sessions: 1,
      first_seen: { at: new Date(T0).toISOString(), release: '1.0' },
      last_seen: { at: new Date(T0).toISOString(), release: '1.0' },
      top_frame: 'renderCart (checkout.js:42)',
      status_changed_at: null,
      in_next_release: false,
    });
    expect(alpha.id).toMatch(/^[0-9a-f]{16}$/);
    // The type matches too, and a LIKE wildcard is only itself.
    expect((await list(`env=${env}&q=typeerror`)).data).toHaveLength(3);
    expect((await list(`env=${env}&q=%25`)).data).toHaveLength(0);
    expect(titles(await list(`env=${env}&release=2.0`))).toEqual(['Beta broken']);
    expect(
      titles(
        await list(
          `env=${env}&from=${new Date(T0 + MINUTE).toISOString()}&to=${new Date(T0 + 2 * MINUTE).toISOString()}`,
        ),
      ),
    ).toEqual(['Gamma gone']);
    expect((await list(`env=${env}&app=web-app&status=unresolved`)).data).toHaveLength(3);
    expect((await list(`env=${env}&status=ignored`)).data).toHaveLength(0);

    for (const sort of ['last_seen', 'events', 'sessions']) {
      const whole = (await list(`env=${env}&sort=${sort}`)).data.map((i) => i.id);
      const paged: string[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const page: IssuePage = await list(`env=${env}&sort=${sort}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        paged.push(...page.data.map((i) => i.id));
        cursor = page.next_cursor;
      }
      expect(paged, sort).toEqual(whole);
    }
  });

  it('answers 400 naming the parameter for bad listings and bad status changes, which change nothing', async () => {
    now += MINUTE;
    await sendError({ env: 'bad-input', message: 'Delta down' });
    await detect();
    const issue = await only('env=bad-input');
    const bad = async (res: { status: number; body: unknown }, field: string) => {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect((res.body as ErrorBody).error.details?.field).toBe(field);
    };
    await bad(await get('/issues?sort=newest'), 'sort');
    await bad(await get('/issues?status=open'), 'status');
    await bad(await get('/issues?limit=0'), 'limit');
    await bad(await get('/issues?cursor=nope'), 'cursor');
    await bad(await get('/issues?from=yesterday'), 'from');
    await bad(await get('/issues?app=nope'), 'app');
    await bad(await get('/issues?colour=red'), 'colour');
    await bad(await get(`/issues?q=${'x'.repeat(201)}`), 'q');

    await bad(await patch(issue.id, {}), 'status');
    await bad(await patch(issue.id, { status: 'regressed' }), 'status');
    await bad(await patch(issue.id, { status: 'unresolved', in_next_release: true }), 'in_next_release');
    await bad(await patch(issue.id, { status: 'resolved', in_next_release: 'yes' }), 'in_next_release');
    await bad(await patch(issue.id, { status: 'resolved', by: 'me' }), 'by');
    expect(
      (await call('PATCH', `/issues/${issue.id}`, 'status=resolved', 'application/x-www-form-urlencoded')).status,
    ).toBe(415);
    expect((await patch('0123456789abcdef', { status: 'resolved' })).status).toBe(404);
    expect((await get('/issues/0123456789abcdef')).status).toBe(404);
    expect(await only('env=bad-input')).toEqual(issue);
  });

  it('details an issue: stack, counts per hour, releases, sessions with replay links, breadcrumbs of the newest error', async () => {
    const env = 'detail';
    now = T0 + 3 * 60 * MINUTE;
    await sendError({ env, message: 'Epsilon exploded', sessionId: 'detail-1', release: '3.0' });
    now += 60 * MINUTE;
    await ingest('/ingest/replay/chunk', {
      serviceName: 'web-app',
      sessionId: 'detail-2',
      replayId: 'replay-detail-2',
      seq: 0,
      startTs: now - 5000,
      endTs: now - 5000,
      eventCount: 1,
      encoding: 'json',
      data: JSON.stringify([
        { type: 4, timestamp: now - 5000, data: { href: 'https://shop.example.com/cart', width: 1280, height: 720 } },
      ]),
    });
    const info = errorLog({ env, sessionId: 'detail-2', message: 'cart opened', atMs: now - 2000 }, 9);
    info.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.body = { stringValue: 'cart opened' };
    await ingest('/otlp/v1/logs', info);
    await sendError({ env, message: 'Epsilon exploded', sessionId: 'detail-2', release: '3.1' });
    await detect();

    const { id } = await only(`env=${env}`);
    const issue = await detail(id);
    expect(issue).toMatchObject({
      events: 2,
      sessions: 2,
      first_seen: { release: '3.0' },
      last_seen: { at: new Date(now).toISOString(), release: '3.1' },
    });
    expect(issue.stack.raw).toBe(chromeStack('Epsilon exploded'));
    expect(issue.stack.frames.map((f) => [f.function, f.in_app, f.original])).toEqual([
      ['wrapListener', false, null],
      ['renderCart', true, null],
      ['HTMLButtonElement.onClick', true, null],
    ]);
    expect(issue.counts).toEqual([
      { start: new Date(T0 + 3 * 60 * MINUTE).toISOString(), count: 1 },
      { start: new Date(T0 + 4 * 60 * MINUTE).toISOString(), count: 1 },
    ]);
    expect(issue.releases.map((r) => [r.release, r.events])).toEqual([
      ['3.1', 1],
      ['3.0', 1],
    ]);
    expect(issue.sessions_sample).toEqual([
      {
        session_id: 'detail-2',
        user_id: null,
        first_seen: new Date(now).toISOString(),
        last_seen: new Date(now).toISOString(),
        replay_url: `${t.server.publicUrl}/session/detail-2`,
      },
      {
        session_id: 'detail-1',
        user_id: null,
        first_seen: new Date(T0 + 3 * 60 * MINUTE).toISOString(),
        last_seen: new Date(T0 + 3 * 60 * MINUTE).toISOString(),
        replay_url: null,
      },
    ]);
    expect(issue.breadcrumbs.map((b) => b.kind)).toContain('navigation');
    expect(issue.breadcrumbs.some((b) => b.message.includes('cart opened'))).toBe(true);
  });

  it('keeps the fingerprint of errors without a map: app, env, type, normalised message and top frame as sent', async () => {
    await sendError({ env: 'no-maps', sessionId: 'nomap-1' });
    await sendError({
      env: 'no-maps',
      sessionId: 'nomap-2',
      release: '1.4.3',
      stack: chromeStack(CART_ERROR, 'a7b8c9d0', 57),
    });
    await detect();
    const issue = await only('env=no-maps');
    const parts = [await appId(), 'no-maps', 'TypeError', CART_ERROR, 'renderCart@checkout.js'];
    expect(issue).toMatchObject({
      id: createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16),
      events: 2,
      top_frame: 'renderCart (checkout.js:42)',
    });
  });

  it('resolves, regresses on a new error (in next release: only from a later release), notifies once, and leaves ignored issues alone', async () => {
    receiver = await startReceiver();
    const channel = await call<{ id: string }>('POST', '/notifications/channels', {
      type: 'webhook',
      name: 'issues',
      config: { url: `${receiver.url}/hook` },
    });
    expect(channel.status).toBe(201);
    expect((await call('POST', '/notifications/rules', { name: 'all', channels: [channel.body.id] })).status).toBe(201);
    const env = 'regress';
    await sendError({ env, message: 'Zeta zapped', release: '5.0' });
    await detect();
    const { id } = await only(`env=${env}`);

    // An error ingested before the resolution but counted after it is not news.
    await sendError({ env, message: 'Zeta zapped', release: '5.0' });
    now += MINUTE;
    const resolved = await patch(id, { status: 'resolved' });
    expect(resolved.body).toMatchObject({
      status: 'resolved',
      status_by: expect.stringMatching(/^key:/),
      status_changed_at: new Date(now).toISOString(),
      in_next_release: false,
      resolved_release: '5.0',
    });
    await detect();
    expect(await only(`env=${env}`)).toMatchObject({ status: 'resolved', events: 2 });
    now += MINUTE;
    await sendError({ env, message: 'Zeta zapped', release: '5.0' });
    await detect();
    expect(await only(`env=${env}`)).toMatchObject({
      status: 'regressed',
      status_by: 'detector',
      status_changed_at: new Date(now).toISOString(),
    });

    expect((await patch(id, { status: 'resolved', in_next_release: true })).body).toMatchObject({
      status: 'resolved',
      in_next_release: true,
      resolved_release: '5.0',
    });
    now += MINUTE;
    await sendError({ env, message: 'Zeta zapped', release: '5.0' });
    await detect();
    expect(await only(`env=${env}`)).toMatchObject({ status: 'resolved', events: 4 });
    now += MINUTE;
    await sendError({ env, message: 'Zeta zapped', release: '5.1' });
    // Three detectors at once: one regression, one notification.
    await Promise.all([detect(), detect(), detect()]);
    expect(await only(`env=${env}`)).toMatchObject({ status: 'regressed', events: 5, last_seen: { release: '5.1' } });
    await t.server.notify.outbox.drain();
    const regressions = receiver.received
      .map((r) => JSON.parse(r.body) as Record<string, unknown>)
      .filter((p) => p.event === 'issue.regressed');
    // One per regression: the plain resolve, then the one "in next release".
    expect(regressions).toHaveLength(2);
    const summaries = regressions.map((p) => p.root_cause_summary as string).sort();
    expect(summaries[0]).toMatch(
      /^TypeError: Zeta zapped at renderCart \(checkout\.js:42\)\. Resolved at \S+; it occurred again 1 time \(release 5\.0\)\.$/,
    );
    expect(summaries[1]).toMatch(
      /^TypeError: Zeta zapped at renderCart \(checkout\.js:42\)\. Resolved at \S+ for the release after 5\.0; it occurred again 1 time \(release 5\.1\)\.$/,
    );
    for (const payload of regressions) {
      expect(payload).toMatchObject({
        issue_id: id,
        severity: 'warning',
        env,
        services: ['web-app'],
        dashboard_url: expect.stringMatching(
          new RegExp(`^${t.server.publicUrl}/issues/${id}\\?p=[^&]+&exp=\\d+&sig=[\\w-]+$`),
        ),
      });
    }
    // Its page says why the frames read as minified: the app's files without a map, and the command that uploads them.
    const issuePage = await (await fetch(regressions[0]!.dashboard_url as string)).text();
    expect(issuePage).toContain('No source map covers these files of the app');
    for (const file of [
      'https://shop.example.com/assets/checkout.3f9a1c2b.js',
      'https://shop.example.com/assets/app-DiwrgTda.js',
    ])
      expect(issuePage).toContain(`<li><code>${file}</code></li>`);
    expect(issuePage).toContain(
      `<pre><code>npx svc-server sourcemaps upload path/to/build --release 5.1 --url ${t.server.publicUrl} --control-key &lt;control key&gt;</code></pre>`,
    );

    expect((await patch(id, { status: 'ignored' })).body).toMatchObject({
      status: 'ignored',
      in_next_release: false,
      resolved_release: null,
    });
    now += MINUTE;
    await sendError({ env, message: 'Zeta zapped', release: '5.2' });
    await detect();
    expect(await only(`env=${env}`)).toMatchObject({ status: 'ignored', events: 6 });
    expect((await patch(id, { status: 'unresolved' })).body).toMatchObject({ status: 'unresolved' });
    await receiver.close();
  });

  it('one mistake, one issue: failed requests and console errors are logs unless marked svc.issue; marked requests are titled by their route pattern', async () => {
    const env = 'one-mistake';
    /** The SDK's records of one mistake: a 500 and a network failure (outcome logs), the app's console errors about them. */
    const records = (issue: boolean) => {
      const mark = issue ? [{ key: 'svc.issue', value: { boolValue: true } }] : [];
      const record = (body: string, attributes: Array<ReturnType<typeof str>>) => ({
        timeUnixNano: `${now}000000`,
        severityNumber: 17,
        severityText: 'ERROR',
        body: { stringValue: body },
        attributes: [...attributes, ...mark],
      });
      const request = (url: string, status: number, failure?: string) => [
        str('http.method', 'GET'),
        str('http.url', url),
        { key: 'http.status_code', value: { intValue: String(status) } },
        { key: 'http.duration_ms', value: { doubleValue: 87.4 } },
        ...(failure ? [str('error.message', failure)] : []),
      ];
      const consoleError = (message?: string) => [
        str('log.source', 'console'),
        ...(message
          ? [
              str('exception.type', 'TypeError'),
              str('exception.message', message),
              str('exception.stacktrace', chromeStack(message)),
            ]
          : []),
      ];
      return [
        record(
          `GET https://shop.example.com/api/items/${issue ? 42 : 7} → 500 (87 ms)`,
          request(`https://shop.example.com/api/items/${issue ? 42 : 7}?x=1`, 500),
        ),
        record(
          'GET https://shop.example.com/api/cart failed: TypeError: Failed to fetch (3 ms)',
          request('https://shop.example.com/api/cart', 0, 'TypeError: Failed to fetch'),
        ),
        record('saving the cart failed: 500', consoleError()),
        record('network down TypeError: Failed to fetch', consoleError('Failed to fetch')),
      ];
    };
    const body = (issue: boolean) => ({
      resourceLogs: [
        {
          resource: resource({ env, sessionId: 'mistake-1' }),
          scopeLogs: [{ scope: { name: '@svc/browser' }, logRecords: records(issue) }],
        },
      ],
    });
    await ingest('/otlp/v1/logs', body(false));
    // The exception the mistake threw is the one issue.
    await sendError({ env, sessionId: 'mistake-1', message: "Cannot read properties of undefined (reading 'price')" });
    await detect();
    expect((await list(`env=${env}`)).data.map((i) => `${i.type}: ${i.message}`)).toEqual([
      "TypeError: Cannot read properties of undefined (reading 'price')",
    ]);

    // Marked by an app that asks for them (issuesFrom): issues, the requests grouped and titled by method, route and outcome.
    await ingest('/otlp/v1/logs', body(true));
    await detect();
    const titles = (await list(`env=${env}`)).data.map((i) => `${i.type}: ${i.message}`).sort();
    expect(titles).toEqual([
      'Error: saving the cart failed: 500',
      'RequestError: GET /api/cart failed: TypeError: Failed to fetch',
      'RequestError: GET /api/items/:id → 500',
      "TypeError: Cannot read properties of undefined (reading 'price')",
      'TypeError: Failed to fetch',
    ]);
  });

  it('silences an ignored issue: its burst is counted but opens no incident, until it is no longer ignored', async () => {
    const env = 'ignored';
    await sendError({ env, message: 'Omega overflowed' });
    await detect();
    const { id } = await only(`env=${env}`);
    expect((await patch(id, { status: 'ignored' })).status).toBe(200);
    for (let i = 0; i < 6; i++) await sendError({ env, message: 'Omega overflowed' });
    expect((await detect()).opened).toEqual([]);
    expect(await only(`env=${env}`)).toMatchObject({ status: 'ignored', events: 7, incident_id: null });
    expect((await patch(id, { status: 'unresolved' })).status).toBe(200);
    await sendError({ env, message: 'Omega overflowed' });
    const { opened } = await detect();
    expect(opened).toHaveLength(1);
    expect(await only(`env=${env}`)).toMatchObject({ incident_id: opened[0] });
  });

  it("says which of the app's files had no map and how to upload it; the map arriving merges the issue into the original frame's, once", async () => {
    const env = 'maps';
    const message = "Cannot read properties of undefined (reading 'price')";
    const [one, two] = [await buildShop(false), await buildShop(true)];
    // Different builds: new hash, and the throwing function minified under another name.
    const topFrame = (stack: string) => /at (\S+) \((\S+)\)/.exec(stack)!.slice(1);
    expect(topFrame(one.stack)).not.toEqual(topFrame(two.stack));
    const debugId = randomUUID();

    // Before any map: five errors of the first build in three sessions, grouped on the minified frame, and an incident.
    for (const sessionId of ['maps-0', 'maps-0', 'maps-1', 'maps-1', 'maps-2'])
      await sendError({ env, message, stack: one.stack, release: '7.0', sessionId }, [`${debugId} ${one.url}`]);
    const { opened } = await detect();
    expect(opened).toHaveLength(1);
    const unmapped = await only(`env=${env}`);
    expect(unmapped).toMatchObject({
      events: 5,
      sessions: 3,
      incident_id: opened[0],
      top_frame: expect.stringMatching(/^\w \(main\.js:1\)$/),
    });
    expect((await detail(unmapped.id)).stack.missing_maps).toEqual({
      files: [{ url: one.url, debug_id: debugId }],
      release: '7.0',
      upload_command: `npx svc-server sourcemaps upload path/to/build --release 7.0 --url ${t.server.publicUrl} --control-key <control key>`,
    });

    // Its map arrives, by two uploads at once: the issue moves into the issue of the original frame, once.
    const upload = async (release: string | undefined, map: Record<string, unknown>) => {
      const res = await call<{ regrouped: Array<{ from: string; into: string }> }>('POST', '/sourcemaps', {
        ...(release ? { release } : {}),
        maps: [map],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.regrouped;
    };
    const regrouped = (
      await Promise.all([
        upload(undefined, { map: one.map, debug_id: debugId }),
        upload(undefined, { map: one.map, debug_id: debugId }),
      ])
    ).flat();
    const parts = [await appId(), env, 'TypeError', message, 'lineTotal@src/cart/total.ts'];
    const mappedId = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
    expect(regrouped).toEqual([{ from: unmapped.id, into: mappedId }]);
    const mapped = await only(`env=${env}`);
    expect(mapped).toMatchObject({
      id: mappedId,
      events: 5,
      sessions: 3,
      first_seen: unmapped.first_seen,
      incident_id: opened[0],
      top_frame: expect.stringMatching(/^lineTotal \(src\/cart\/total\.ts:2:\d+\)$/),
    });
    // The old id answers as the merged issue: links sent before keep working.
    const read = await detail(unmapped.id);
    expect(read).toMatchObject({
      id: mappedId,
      merged_from: [{ id: unmapped.id }],
      stack: { missing_maps: null },
      releases: [{ release: '7.0', events: 5 }],
    });
    const top = read.stack.frames.find((f) => f.in_app)!;
    expect(top).toMatchObject({
      url: one.url,
      debug_id: debugId,
      original: { file: 'src/cart/total.ts', line: 2, function: 'lineTotal' },
    });
    expect(top.original!.context!.lines[2 - top.original!.context!.start_line]).toBe(
      '  const price = item.product!.price;',
    );
    expect(
      await upload(undefined, { map: one.map, debug_id: debugId }),
      'uploaded again: nothing left to merge',
    ).toEqual([]);

    // The second build's map, by release and URL; the next errors of both builds join the issue and its incident.
    await upload('7.1', { map: two.map, url: two.url.replace('https://shop.example.com', '~') });
    now += MINUTE;
    await sendError({ env, message, stack: one.stack, release: '7.0', sessionId: 'maps-3' }, [`${debugId} ${one.url}`]);
    await sendError({ env, message, stack: two.stack, release: '7.1', sessionId: 'maps-4' });
    expect((await detect()).opened).toEqual([]);
    expect(await only(`env=${env}`)).toMatchObject({ id: mappedId, events: 7, sessions: 5 });

    // Its incident moved with it: it names the original function, file and line, and quotes the line.
    const incident = await detectionIncidentStore(t, clock).get(t.projectId, opened[0]!);
    expect(incident).toMatchObject({
      title: `TypeError: ${message} in src/cart/total.ts`,
      evidence: {
        fingerprint: mappedId,
        error_count: 7,
        top_frame: mapped.top_frame,
        top_frame_source: {
          file: 'src/cart/total.ts',
          function: 'lineTotal',
          line: 2,
          code: '  const price = item.product!.price;',
        },
      },
    });
    expect(incident!.root_cause_summary).toContain(
      `at ${mapped.top_frame!}, 7 times in 60 seconds across 5 sessions. The line: \`const price = item.product!.price;\`.`,
    );
  });

  it("symbolicates any one error log's stack (GET /logs/{id}/frames), as a session's Errors pane shows it", async () => {
    // The maps of the test before: session maps-1's error came from the first build, mapped by debug ID.
    const logs = await get<{ data: Array<{ id: number; severity_number: number }> }>('/logs?session_id=maps-1');
    const errorLogId = logs.body.data.find((l) => l.severity_number >= 17)!.id;
    const frames = await get<{
      log_id: number;
      raw: string;
      frames: Array<{ in_app: boolean; original: { file: string; line: number; function: string | null } | null }>;
    }>(`/logs/${errorLogId}/frames`);
    expect(frames.status, JSON.stringify(frames.body)).toBe(200);
    expect(frames.body.log_id).toBe(errorLogId);
    expect(frames.body.raw).toContain('main');
    expect(frames.body.frames.find((f) => f.in_app)!.original).toMatchObject({
      file: 'src/cart/total.ts',
      line: 2,
      function: 'lineTotal',
    });

    // Not an error with a stack, not of this project, or no such record: 404; not an id: 400 naming it.
    await ingest(
      '/otlp/v1/logs',
      errorLog({ env: 'maps', message: 'only a warning', atMs: now, sessionId: 'maps-warn' }, 13),
    );
    const warning = await get<{ data: Array<{ id: number }> }>('/logs?session_id=maps-warn');
    expect(warning.body.data).toHaveLength(1);
    for (const id of [warning.body.data[0]!.id, 2 ** 31 - 1])
      expect((await get(`/logs/${id}/frames`)).status, String(id)).toBe(404);
    const bad = await get<{ error: { details: { field: string } } }>('/logs/abc/frames');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('id');
  });

  it('trends over 24 hours and 14 days on the list and the detail, a breakdown by browser, system, release, route and user', async () => {
    const env = 'depth';
    // On the hour, two days after the tests before: the buckets below are whole hours and days back from it.
    now = T0 + 40 * DAY;
    const at = async (agoMs: number, send: () => Promise<void>) => {
      const saved = now;
      now = saved - agoMs;
      await send();
      now = saved;
    };
    const error = { env, message: 'Zeta zapped' };
    for (let i = 0; i < 3; i++) {
      await at(2 * DAY, () =>
        sendBrowserError(
          { ...error, sessionId: 'depth-1', release: '5.0' },
          { ua: CHROME_WINDOWS, path: `/products/${1000 + i}`, user: 'u-1' },
        ),
      );
    }
    for (let i = 0; i < 2; i++)
      await at(3 * HOUR, () =>
        sendBrowserError(
          { ...error, sessionId: 'depth-2', release: '5.1' },
          { ua: FIREFOX_MAC, path: '/cart', user: 'u-2' },
        ),
      );
    await sendBrowserError({ ...error, sessionId: 'depth-3', release: '5.1' }, {});
    // Another issue of the same page: its hours are not this one's.
    await sendBrowserError({ env, message: 'Eta erred', sessionId: 'depth-4' }, {});
    await detect();

    const zeta = (await list(`env=${env}&q=zeta`)).data[0]!;
    const hourly = new Array<number>(24).fill(0);
    hourly[20] = 2;
    hourly[23] = 1;
    expect(zeta.trend).toEqual({
      period: '24h',
      start: new Date(now + HOUR - DAY).toISOString(),
      bucket_ms: HOUR,
      counts: hourly,
    });
    const daily = new Array<number>(14).fill(0);
    daily[11] = 3;
    daily[13] = 3;
    const days = { period: '14d', start: new Date(now + HOUR - 14 * DAY).toISOString(), bucket_ms: DAY, counts: daily };
    expect((await list(`env=${env}&q=zeta&trend=14d`)).data[0]!.trend).toEqual(days);
    const eta = (await list(`env=${env}&q=erred`)).data[0]!;
    expect(eta.trend.counts.reduce((a, b) => a + b)).toBe(1);

    const issue = await detail(zeta.id);
    expect(issue.trend).toEqual({ hours: zeta.trend, days });
    expect(issue.breakdown).toEqual({
      browser: {
        top: [
          { value: 'Chrome 131', count: 3 },
          { value: 'Firefox 128', count: 2 },
          { value: null, count: 1 },
        ],
        distinct: 2,
        distinct_capped: false,
        total: 6,
      },
      os: {
        top: [
          { value: 'Windows', count: 3 },
          { value: 'macOS', count: 2 },
          { value: null, count: 1 },
        ],
        distinct: 2,
        distinct_capped: false,
        total: 6,
      },
      release: {
        top: [
          { value: '5.1', count: 3 },
          { value: '5.0', count: 3 },
        ],
        distinct: 2,
        distinct_capped: false,
        total: 6,
      },
      // Ids in paths are folded into the route pattern, as Web Vitals fold them.
      route: {
        top: [
          { value: '/products/:id', count: 3 },
          { value: '/cart', count: 2 },
          { value: null, count: 1 },
        ],
        distinct: 2,
        distinct_capped: false,
        total: 6,
      },
      user: {
        top: [
          { value: 'u-1', count: 3 },
          { value: 'u-2', count: 2 },
          { value: null, count: 1 },
        ],
        distinct: 2,
        distinct_capped: false,
        total: 6,
      },
    });
    await bad400(get('/issues?trend=7d'), 'trend');

    // The trend reads the listed issues' hours of the period by issue_hours' primary key (project, fingerprint, hour),
    // not the project's other issues: checked among 20,000 hours of 200 other issues, the statistics taken.
    const db = t.server.database.db;
    const fillers =
      kind === 'postgres'
        ? sql`insert into issue_hours (project_id, fingerprint, hour_ms, count) select ${t.projectId}, 'filler-' || f, cast(${T0} as bigint) - h * cast(${HOUR} as bigint), 1 from generate_series(1, 200) f, generate_series(1, 100) h`
        : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000) insert into issue_hours (project_id, fingerprint, hour_ms, count) select ${t.projectId}, 'filler-' || (i % 200), ${T0} - (i / 200) * ${HOUR}, 1 from n`;
    await fillers.execute(db);
    await sql.raw('analyze').execute(db);
    const query = trendQuery(db, t.projectId, [zeta.id, eta.id], now - 14 * DAY, DAY).compile();
    const { rows } = await db.executeQuery({
      ...query,
      sql: `${kind === 'postgres' ? 'explain' : 'explain query plan'} ${query.sql}`,
    });
    const plan = rows.map((r) => Object.values(r as Record<string, unknown>).join(' ')).join('\n');
    if (kind === 'postgres')
      expect(plan).toMatch(
        /Index (Only )?Scan using issue_hours_pk on issue_hours[\s\S]*Index Cond: .*fingerprint = ANY .*hour_ms >=/,
      );
    else
      expect(plan).toMatch(
        /SEARCH issue_hours USING (PRIMARY KEY|INDEX sqlite_autoindex_issue_hours_1) \(project_id=\? AND fingerprint=\? AND hour_ms>\?\)/,
      );
    expect(plan).not.toMatch(/Seq Scan|SCAN issue_hours/);
  });

  it('changes the status of several issues at once, each recorded as one change is; an unknown id changes nothing', async () => {
    const env = 'bulk';
    now += MINUTE;
    for (const message of ['Theta thrown', 'Iota invalid', 'Kappa killed'])
      await sendError({ env, message, sessionId: `bulk-${message}` });
    await detect();
    const byMessage = new Map((await list(`env=${env}`)).data.map((i) => [i.message, i.id]));
    const [theta, iota, kappa] = ['Theta thrown', 'Iota invalid', 'Kappa killed'].map((m) => byMessage.get(m)!);
    const bulk = (body: unknown, key = t.controlKey) =>
      fetch(`${t.url}/control-plane/issues`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    now += MINUTE;
    const res = await bulk({ ids: [iota, theta], status: 'ignored' });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: IssueSummary[] };
    expect(data.map((i) => [i.id, i.status])).toEqual([
      [iota, 'ignored'],
      [theta, 'ignored'],
    ]);
    // As PATCH /issues/{id} records one: when and which key.
    const single = await patch(kappa!, { status: 'resolved' });
    for (const changed of [...data, single.body])
      expect(changed).toMatchObject({
        status_changed_at: new Date(now).toISOString(),
        status_by: expect.stringMatching(/^key:/),
      });
    expect(data[0]!.status_by).toBe(single.body.status_by);

    const resolved = await bulk({ ids: [iota, theta], status: 'resolved', in_next_release: true });
    expect(
      ((await resolved.json()) as { data: IssueSummary[] }).data.map((i) => [i.status, i.in_next_release]),
    ).toEqual([
      ['resolved', true],
      ['resolved', true],
    ]);

    // An id of no issue of this project: 404 naming it, and the others are not changed either.
    const before = (await list(`env=${env}`)).data;
    const unknown = await bulk({ ids: [theta, '0123456789abcdef'], status: 'unresolved' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ErrorBody).error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('0123456789abcdef'),
      details: { field: 'ids[1]' },
    });
    for (const [body, field] of [
      [{ ids: [], status: 'ignored' }, 'ids'],
      [{ ids: [theta, theta], status: 'ignored' }, 'ids'],
      [{ ids: new Array(101).fill(theta), status: 'ignored' }, 'ids'],
      [{ ids: [theta], status: 'regressed' }, 'status'],
      [{ ids: [theta], status: 'ignored', in_next_release: true }, 'in_next_release'],
      [{ status: 'ignored' }, 'ids'],
    ] as const) {
      await bad400(
        bulk(body).then(async (r) => ({ status: r.status, body: await r.json() })),
        field,
      );
    }
    const readKey = (
      await createKey(t.server.database.db, systemClock, { projectId: t.projectId, scope: 'read', name: 'bulk-viewer' })
    ).key;
    expect((await bulk({ ids: [theta], status: 'unresolved' }, readKey)).status).toBe(403);
    expect((await list(`env=${env}`)).data).toEqual(before);
  });
});
