import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reproductionTest, type ReproductionTest } from '../../server/src/ai/reproduction';
import type { LogItem } from '../../src/pipeline/items';
import { ENCODE_BODY } from '../../src/pipeline/otlp-json';
import { looksRandom } from '../../src/replay/body-redact';
import { chunkBody, eventsJson } from '../../src/replay/encode';
import { describeException, exceptionAttributes, exceptionBody } from '../../src/signals/exception';
import { INGEST_PATHS } from '../../wire/paths';
import type { RecipeStep } from '../../wire/replay';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import type { IssuePage } from '../support/issues';
import { click, el, pageLoad, txt, type RrwebEvent } from '../support/rrweb';
import { JWT } from '../support/secrets';
import { postIngest, startTestServer, type TestServer } from '../support/server';
import { specTypeErrors } from '../support/spec-typecheck';

/**
 * No secrets in URLs (docs/ingest.md, "Secrets in URLs"): a session whose recipes, replay, spans and logs carry
 * `?session_token=<random>&q=shoes` with a JWT and an e-mail in other query values goes through the real ingest; no
 * stored row, no reproduction test and no Playwright export holds any of the three values, and `q=shoes` stays.
 */

const kinds = await databaseKinds();

/** A fresh random token per run, drawn until it reads as random to the shared rules (base64url almost always does). */
function randomToken(): string {
  for (;;) {
    const token = randomBytes(24).toString('base64url');
    if (looksRandom(token)) return token;
  }
}

const SECRET = randomToken();
const EMAIL = 'ada.lovelace@example.com';
const SECRETS = [SECRET, JWT, EMAIL, encodeURIComponent(EMAIL)];

const T = 1_750_000_000_000;
const SESSION = 's-url-secrets';
const SEARCH_ERROR = "Cannot read properties of undefined (reading 'hits')";
const API = `http://shop.test/api/search?session_token=${SECRET}&q=shoes&ref=${JWT}&to=${EMAIL}`;
const PAGE = `http://shop.test/search?q=shoes&k=${SECRET}`;
const RESULTS = `http://shop.test/results?q=shoes&to=${EMAIL}`;

const custom = (at: number, tag: string, payload: Record<string, unknown>): RrwebEvent => ({
  type: 5,
  timestamp: at,
  data: { tag, payload },
});

const chunks: RrwebEvent[][] = [
  pageLoad(PAGE, T - 5_000, el(4, 'button', {}, txt(5, 'Search'))),
  [
    click(5, T - 1_000),
    custom(T - 990, 'network_error', { method: 'GET', url: API, status: 500, durationMs: 8, traceId: null }),
    custom(T - 980, 'navigation', { url: RESULTS, title: 'Results', trigger: 'pushState' }),
  ],
];

const recipe: RecipeStep = {
  ts: T - 990,
  method: 'GET',
  url: API,
  requestHeaders: { referer: PAGE },
  status: 500,
  responseHeaders: { 'content-type': 'application/json', location: RESULTS },
  responseBody: '{"error":"search is down"}',
  durationMs: 8,
};

function errorLog(): LogItem {
  const info = describeException(new TypeError(SEARCH_ERROR));
  const attributes = { ...exceptionAttributes(info), 'session.id': SESSION, 'url.full': PAGE };
  return { kind: 'log', timeMs: T, level: 'error', body: exceptionBody(info), sessionId: SESSION, attributes };
}

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** A fetch span and an interaction that changed route, as OTLP/JSON. */
function spans(): string {
  const span = (spanId: string, name: string, kind: number, attributes: ReturnType<typeof str>[]) => ({
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId,
    name,
    kind,
    startTimeUnixNano: `${(T - 990) * 1_000_000}`,
    endTimeUnixNano: `${(T - 982) * 1_000_000}`,
    attributes: [str('session.id', SESSION), ...attributes],
  });
  const fetchSpan = span('00f067aa0ba902b7', 'HTTP GET', 3, [
    str('url.full', API),
    str('http.url', API),
    str('url.query', new URL(API).search.slice(1)),
    str('app.next_page', RESULTS),
  ]);
  const interaction = span('00f067aa0ba902b8', `Navigation: /results?q=shoes&to=${EMAIL}`, 1, [
    str('event_type', 'click'),
    str('url.full', PAGE),
  ]);
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'web-app')] },
        scopeSpans: [{ scope: { name: 'test' }, spans: [fetchSpan, interaction] }],
      },
    ],
  });
}

/** Every row of every table as text, gzip payloads (replay chunks) unpacked. */
async function everyRow(t: TestServer): Promise<string> {
  const { db } = t.server.database;
  const tables = [...new Set((await db.introspection.getTables()).map((table) => table.name))];
  const text = (value: unknown): unknown => {
    if (!(value instanceof Uint8Array)) return value;
    try {
      return gunzipSync(value).toString('utf8');
    } catch {
      return Buffer.from(value).toString('utf8');
    }
  };
  const rows: string[] = [];
  for (const table of tables) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of result.rows)
      rows.push(JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, text(v)]))));
  }
  return rows.join('\n');
}

describe.each(kinds)('no secrets in URLs on %s', (kind) => {
  let t: TestServer;
  const clock = { now: () => T + 120_000 };
  let made: ReproductionTest | null;
  let exported: string;

  const post = (path: string, body: string) => postIngest(t, path, body);

  beforeAll(async () => {
    t = await startTestServer(kind, { clock, detection: false });
    const owner = { sessionId: SESSION, replayId: `r-${SESSION}` };
    for (const [seq, events] of chunks.entries()) {
      const payload = eventsJson(events.map((e) => JSON.stringify(e)));
      const at = events.map((e) => e.timestamp);
      await post(INGEST_PATHS.replayChunk, chunkBody('web-app', { ...owner, nextSeq: seq + 1 }, seq, at, payload));
    }
    await post(INGEST_PATHS.replayRecipes, JSON.stringify({ serviceName: 'web-app', ...owner, steps: [recipe] }));
    await post(INGEST_PATHS.logs, ENCODE_BODY.logs([errorLog()], { 'service.name': 'web-app' }));
    await post(INGEST_PATHS.traces, spans());
    await issueDetector(t, clock).runOnce();
    const control = { authorization: `Bearer ${t.controlKey}` };
    const issues = ((await (await fetch(`${t.url}/control-plane/issues`, { headers: control })).json()) as IssuePage)
      .data;
    const issue = issues.find((i) => i.message === SEARCH_ERROR)!;
    made = await reproductionTest(t.server.database.db, { projectId: t.projectId, issueId: issue.id });
    const res = await fetch(`${t.url}/control-plane/sessions/${SESSION}/playwright`, { headers: control });
    expect(res.status).toBe(200);
    exported = await res.text();
  });
  afterAll(() => t?.close());

  it('stores no secret in any row, and keeps ordinary values and parameter names', async () => {
    const rows = await everyRow(t);
    for (const secret of SECRETS) expect(rows, secret).not.toContain(secret);
    expect(rows).toContain('/api/search?session_token=[REDACTED]&q=shoes&ref=[REDACTED]&to=[REDACTED]');
    // JSON columns inside a row's JSON: their quotes are escaped.
    expect(rows).toContain('url.query\\":\\"session_token=[REDACTED]&q=shoes&ref=[REDACTED]&to=[REDACTED]\\"');
    expect(rows).toContain('Navigation: /results?q=shoes&to=[REDACTED]');
    expect(rows).toContain('href\\":\\"http://shop.test/search?q=shoes&k=[REDACTED]\\"');
  });

  it('makes a reproduction test and an export that hold none of the values, matching requests by path and names', () => {
    expect(made?.sessionId).toBe(SESSION);
    for (const content of [made!.content, exported]) {
      for (const secret of SECRETS) expect(content, secret).not.toContain(secret);
      expect(content).toContain(`'GET /api/search?q&ref&session_token&to': [`);
      expect(content).toContain("await page.goto('/search?q=shoes&k=[REDACTED]');");
      expect(content).toContain(
        "await expect(page).toHaveURL((url) => url.pathname === '/results' && [...new Set(url.searchParams.keys())].sort().join('&') === 'q&to');",
      );
      expect(specTypeErrors(content)).toEqual([]);
    }
  });
});
