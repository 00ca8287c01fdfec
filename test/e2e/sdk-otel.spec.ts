import type { Page } from '@playwright/test';
import { build } from 'esbuild';
import { expect, test } from './fixtures';
import { ensureSdkBuilt, ROOT } from '../support/build-sdk';
import { controlGet, type TestServer } from '../support/svc-server';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';

/**
 * `@svc/browser/otel` in Chromium against the real server: an app bundled (esbuild) from the built ESM entries and the
 * official OpenTelemetry instrumentations as installed (fetch, XHR, document load, user interaction; context-zone
 * with zone.js), their spans stored with the session id, the headers only where `propagation.origins` allow, each
 * request, page load and click traced by OpenTelemetry's instrumentation and not also by the SDK's own (whose spans
 * carry the SDK's version as scope version; the instrumentations' carry theirs).
 */

type Row = Record<string, unknown> & {
  name: string;
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  session_id: string;
  attributes: Record<string, unknown>;
  scope: { name: string; version?: string };
  resource: { attributes: Record<string, unknown> };
};

/** The app: the SDK with the otel integration, the four instrumentations, zone.js and its context manager or not. */
const appSource = (zone: boolean, ownTracingToo: boolean): string => `
${zone ? "import 'zone.js';\nimport { ZoneContextManager } from '@opentelemetry/context-zone';" : ''}
import { initBrowserSDK } from '@svc/browser';
import { otelIntegration, withOtel } from '@svc/browser/otel';
import { FetchInstrumentation } from '@opentelemetry/instrumentation-fetch';
import { XMLHttpRequestInstrumentation } from '@opentelemetry/instrumentation-xml-http-request';
import { DocumentLoadInstrumentation } from '@opentelemetry/instrumentation-document-load';
import { UserInteractionInstrumentation } from '@opentelemetry/instrumentation-user-interaction';

const options = {
  instrumentations: [
    new FetchInstrumentation(),
    new XMLHttpRequestInstrumentation(),
    new DocumentLoadInstrumentation(),
    new UserInteractionInstrumentation(),
  ],
  ${zone ? 'contextManager: new ZoneContextManager(),' : ''}
};
window.sdk = initBrowserSDK({
  ...window.SVC_CONFIG,
  // An array is added to the defaults, the SDK's own tracing among them: both are asked.
  integrations: ${ownTracingToo ? '[otelIntegration(options)]' : 'withOtel(options)'},
});
`;

const bundles = new Map<string, string>();

async function bundle(zone: boolean, ownTracingToo = false): Promise<string> {
  const key = `${zone}-${ownTracingToo}`;
  if (!bundles.has(key)) {
    const out = await build({
      stdin: { contents: appSource(zone, ownTracingToo), resolveDir: ROOT, loader: 'js', sourcefile: 'otel-app.js' },
      bundle: true,
      format: 'iife',
      target: 'es2020',
      platform: 'browser',
      // The package as installed (its exports map: dist/esm), not the repository's tsconfig paths to src/.
      tsconfigRaw: '{}',
      write: false,
      logLevel: 'silent',
    });
    bundles.set(key, out.outputFiles[0]!.text);
  }
  return bundles.get(key)!;
}

let app: SdkPageServer;
/** Listed in `propagation.origins`. */
let listed: SdkPageServer;
/** An origin never listed. */
let stranger: SdkPageServer;

test.beforeAll(async () => {
  await ensureSdkBuilt();
  [app, listed, stranger] = await Promise.all([startSdkPage(), startSdkPage(), startSdkPage()]);
});
test.afterAll(() => Promise.all([app, listed, stranger].map((server) => server.close())));
test.beforeEach(() => {
  for (const server of [app, listed, stranger]) server.echoed.length = 0;
});

interface Opened {
  sessionId: string;
  pageErrors: string[];
  warnings: string[];
}

async function open(page: Page, ingest: TestServer, zone: boolean, ownTracingToo = false): Promise<Opened> {
  const pageErrors: string[] = [];
  const warnings: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'warning') warnings.push(message.text());
  });
  const project = { apiKey: ingest.ingestKey, serviceName: 'web-app', ingestUrl: ingest.url };
  const config = { ...project, flushIntervalMs: 100, debug: true, propagation: { origins: [listed.origin] } };
  app.setScript('/app.js', await bundle(zone, ownTracingToo));
  app.setHtml(`<!doctype html><html><head><title>otel</title>
<script>window.SVC_CONFIG = ${JSON.stringify(config)};</script><script src="/app.js"></script></head>
<body><button id="buy" type="button">Buy</button></body></html>`);
  await page.goto(`${app.origin}/`);
  const sessionId = await page.evaluate(() => (window as any).sdk.sessionId as string);
  return { sessionId, pageErrors, warnings };
}

/** The session's spans once `count` of them match `select`. */
async function sessionSpans(ingest: TestServer, sessionId: string, select: (row: Row) => boolean, count: number) {
  let rows: Row[] = [];
  await expect
    .poll(
      async () => {
        rows = (await controlGet<{ data: Row[] }>(ingest, `/spans?session_id=${sessionId}&limit=1000`)).body.data;
        return rows.filter(select).length;
      },
      { message: `spans of session ${sessionId}`, timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(count);
  return rows;
}

const scoped = (name: string) => (row: Row) => row.scope.name === `@opentelemetry/instrumentation-${name}`;
/** A span of the SDK's own tracing: its scope's version is the SDK's. */
const own = (row: Row) => row.scope.version === row.resource.attributes['telemetry.sdk.version'];
const traceparentPattern = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

test('fetch, XHR, document load and click spans come from the instrumentations, none from the SDK, with the session id; headers only to allowed origins', async ({
  page,
  ingest,
}) => {
  const { sessionId, pageErrors } = await open(page, ingest, false);
  await page.evaluate(
    ({ other, unlisted }) => {
      const xhr = (url: string) =>
        new Promise<number>((resolve) => {
          const request = new XMLHttpRequest();
          request.open('GET', url);
          request.onloadend = () => resolve(request.status);
          request.send();
        });
      document.getElementById('buy')!.addEventListener('click', () => {
        (window as any).sent = Promise.all([
          fetch('/api/echo?via=fetch').then((res) => res.status),
          fetch(`${other}/api/echo?via=fetch&token=1&Signature=secret`).then((res) => res.status),
          fetch(`${unlisted}/api/echo?via=fetch`).then((res) => res.status),
          xhr('/api/echo?via=xhr'),
          xhr(`${unlisted}/api/echo?via=xhr`),
        ]);
      });
    },
    { other: listed.origin, unlisted: stranger.origin },
  );
  await page.click('#buy');
  expect(await page.evaluate(() => (window as any).sent)).toEqual([200, 200, 200, 200, 200]);

  // Headers: the page's origin and the listed one, under the SDK's names, with the session id; nothing elsewhere.
  expect(app.echoed).toHaveLength(2);
  for (const headers of [...app.echoed, ...listed.echoed]) {
    expect(String(headers['traceparent'])).toMatch(traceparentPattern);
    expect(headers['x-svc-session-id']).toBe(sessionId);
  }
  expect(listed.echoed).toHaveLength(1);
  expect(stranger.echoed).toHaveLength(2);
  for (const headers of stranger.echoed) {
    expect(headers['traceparent']).toBeUndefined();
    expect(headers['x-svc-session-id']).toBeUndefined();
  }

  const rows = await sessionSpans(ingest, sessionId, (row) => scoped('fetch')(row) && row.name === 'GET', 3);
  await sessionSpans(ingest, sessionId, scoped('xml-http-request'), 2);
  const all = await sessionSpans(ingest, sessionId, scoped('document-load'), 1);
  expect(all.length).toBeGreaterThanOrEqual(rows.length);
  for (const row of all) expect(row.session_id).toBe(sessionId);

  // The instrumentations' spans only, none of the SDK's own (at the SDK's version): one span per request and load.
  expect(all.filter(own)).toEqual([]);
  const fetches = all.filter((row) => scoped('fetch')(row) && row.name === 'GET');
  const xhrs = all.filter(scoped('xml-http-request'));
  expect(fetches).toHaveLength(3);
  expect(xhrs).toHaveLength(2);
  expect(all.filter((row) => row.name === 'documentLoad')).toHaveLength(1);
  // The user-interaction instrumentation makes a click span per listener that saw the click (the app's and the
  // replay recorder's), nested: one trace.
  const clicks = all.filter((row) => row.name === 'click');
  expect(clicks.length).toBeGreaterThanOrEqual(1);
  for (const click of clicks) {
    expect(click.scope.name).toBe('@opentelemetry/instrumentation-user-interaction');
    expect(click.attributes).toMatchObject({ event_type: 'click', target_element: 'BUTTON' });
    expect(click.trace_id).toBe(clicks[0]!.trace_id);
  }
  for (const row of [...fetches, ...xhrs]) {
    expect(row.trace_id, `${String(row.attributes['url.full'])} in the click's trace`).toBe(clicks[0]!.trace_id);
    expect(row.attributes['replay_id']).toMatch(/^[0-9a-f]{32}$/);
  }
  // The traceparent the page's origin received names its request's span.
  const spanIds = new Set([...fetches, ...xhrs].map((row) => row.span_id));
  for (const headers of [...app.echoed, ...listed.echoed]) {
    expect(spanIds.has(String(headers['traceparent']).split('-')[2]!)).toBe(true);
  }
  // URLs as stored: the SDK replaces a pre-signed signature, ingest any value under a credential's name (docs/ingest.md).
  const signed = fetches.find((row) => String(row.attributes['url.full']).startsWith(listed.origin));
  expect(signed!.attributes['url.full']).toBe(
    `${listed.origin}/api/echo?via=fetch&token=[REDACTED]&Signature=[REDACTED]`,
  );
  // The SDK's own requests are not traced.
  expect(all.filter((row) => String(row.attributes['url.full'] ?? '').startsWith(ingest.url))).toEqual([]);
  expect(pageErrors).toEqual([]);
});

test('with zone.js and @opentelemetry/context-zone, a request sent after a timer in a click handler stays in its trace', async ({
  page,
  ingest,
}) => {
  const { sessionId, pageErrors } = await open(page, ingest, true);
  await page.evaluate(() => {
    document.getElementById('buy')!.addEventListener('click', () => {
      // Only a zone carries the click's context across the timer (the stack context manager loses it).
      (window as any).sent = new Promise((resolve) =>
        setTimeout(() => resolve(fetch('/api/echo?via=zone').then((res) => res.status)), 20),
      );
    });
  });
  await page.click('#buy');
  expect(await page.evaluate(() => (window as any).sent)).toBe(200);
  expect(app.echoed[0]!['x-svc-session-id']).toBe(sessionId);

  const rows = await sessionSpans(ingest, sessionId, (row) => scoped('fetch')(row) && row.name === 'GET', 1);
  // Under zone.js the instrumentation makes a span per listener task that ran for the click, each its own trace.
  const clicks = rows.filter((row) => row.name === 'click');
  const fetches = rows.filter((row) => scoped('fetch')(row) && row.name === 'GET');
  expect(fetches).toHaveLength(1);
  const parent = clicks.find((click) => click.span_id === fetches[0]!.parent_span_id);
  expect(parent, 'the fetch sent after the timer is a child of a click span').toBeDefined();
  expect(fetches[0]!.trace_id).toBe(parent!.trace_id);
  expect(String(app.echoed[0]!['traceparent']).split('-')[1]).toBe(parent!.trace_id);
  for (const row of rows) expect(row.session_id).toBe(sessionId);
  expect(rows.filter(own)).toEqual([]);
  expect(pageErrors).toEqual([]);
});

test("asking for the SDK's own tracing as well warns, and each request is still traced once", async ({
  page,
  ingest,
}) => {
  const { sessionId, warnings } = await open(page, ingest, false, true);
  expect(await page.evaluate(() => fetch('/api/echo?via=both').then((res) => res.status))).toBe(200);
  // Console messages reach the test as events of their own, not in step with page.evaluate's answers.
  const replaced = () =>
    warnings
      .filter((text) => text.includes('" is replaced by "'))
      .map((text) => /"(\w+)"/.exec(text)?.[1])
      .sort();
  await expect
    .poll(replaced, { message: 'one warning per replaced integration' })
    .toEqual(['documentLoad', 'fetch', 'interactions', 'xhr']);
  const rows = await sessionSpans(ingest, sessionId, (row) => scoped('fetch')(row) && row.name === 'GET', 1);
  expect(rows.filter((row) => row.attributes['url.full'] === `${app.origin}/api/echo?via=both`)).toHaveLength(1);
  expect(rows.filter(own)).toEqual([]);
  expect(String(app.echoed[0]!['traceparent'])).toMatch(traceparentPattern);
});
