import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureSdkBuilt, ROOT } from '../support/build-sdk';
import { controlGet, startCliServer, type TestServer } from '../support/svc-server';

/**
 * The demo page `npm start` serves, in Chromium, with the real script-tag bundle: every button is clicked and what
 * it produced is read back through the query API under the session id the page shows.
 */

type Row = Record<string, unknown> & { session_id: string | null; app: string; attributes: Record<string, unknown> };
type LogRow = Row & { body: unknown; severity_text: string | null; trace_id: string | null };
type SpanRow = Row & { name: string; trace_id: string };
type MetricRow = Row & { name: string; value: number | null; unit: string | null };

const SDK = join(ROOT, 'dist/cdn/svc.min.js');
const TRACEPARENT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/;

let t: TestServer;

test.beforeAll(async () => {
  // A cold SDK build (rollup, both bundles) takes a minute or two on this machine.
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  t = await startCliServer({ 'demo-sdk': SDK });
});
test.afterAll(async () => {
  await t?.close();
});

/** Clicks a button and waits until the status line says what the click did. */
async function click(page: Page, name: string, outcome: string | RegExp): Promise<string> {
  await page.getByRole('button', { name, exact: true }).click();
  const result = page.locator('#result');
  await expect(result).toContainText(outcome);
  return (await result.textContent()) ?? '';
}

/** The headers the echo endpoint received, as the page prints them under its status line. */
const echoed = (text: string) =>
  JSON.parse(text.slice(text.indexOf('\n') + 1)) as { traceparent: string; 'x-svc-session-id': string };

/** Polls a query API list until `ready` holds for its rows (the SDK sends every two seconds). */
async function rowsOf<R extends Row>(path: string, ready: (rows: R[]) => boolean, what: string): Promise<R[]> {
  let rows: R[] = [];
  await expect
    .poll(
      async () => {
        const res = await controlGet<{ data: R[] }>(t, path);
        rows = res.body.data;
        return res.status === 200 && ready(rows);
      },
      { message: what, timeout: 20_000, intervals: [250, 500, 1000] },
    )
    .toBe(true);
  return rows;
}

test('every button of the demo page produces its telemetry, under the session id the page shows', async ({ page }) => {
  const pageErrors: string[] = [];
  const sdkErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().startsWith('[svc]')) sdkErrors.push(message.text());
  });

  await page.goto(`${t.url}/demo/`);
  const sessionLocator = page.locator('#session-id');
  await expect(sessionLocator, 'the SDK started from its script tag').not.toHaveText(/…|none/);
  const sessionId = (await sessionLocator.textContent())!;

  const ok = echoed(await click(page, 'fetch: 200', 'HTTP 200'));
  expect(ok['x-svc-session-id'], 'session header on a same-origin fetch').toBe(sessionId);
  const okTraceId = TRACEPARENT.exec(ok.traceparent)?.[1];
  expect(okTraceId, `traceparent ${ok.traceparent}`).toBeDefined();
  const failed = echoed(await click(page, 'fetch: 500', 'HTTP 500'));
  await click(page, 'fetch: network failure', 'failed as intended');
  const xhr = echoed(await click(page, 'XMLHttpRequest', 'XMLHttpRequest answered HTTP 200'));
  expect(xhr['x-svc-session-id'], 'session header on a same-origin XHR').toBe(sessionId);
  const xhrTraceId = TRACEPARENT.exec(xhr.traceparent)?.[1];
  expect(xhrTraceId, `XHR traceparent ${xhr.traceparent}`).toBeDefined();

  await click(page, 'console.info', 'called console.info');
  await click(page, 'console.warn', 'called console.warn');
  await click(page, 'console.error', 'called console.error');
  await click(page, 'Custom log', "Svc.getSDK().log('info'");
  await click(page, 'Custom metric', "Svc.getSDK().metric('demo.button_clicks', 1");
  await click(page, 'Throw an uncaught error', 'threw an uncaught Error');
  await click(page, 'Unhandled promise rejection', 'rejected a promise');
  await click(page, 'history.pushState', 'history.pushState to');
  await expect(page).toHaveURL(/\/demo\/\?step=1$/);
  await click(page, 'Hash change', 'changed the hash');
  await expect(page).toHaveURL(/#step-2$/);
  await click(page, 'Layout shift', 'moved the page content');
  await expect(page.locator('#shift-banner')).toBeVisible();
  // The session did not change while clicking.
  await expect(sessionLocator).toHaveText(sessionId);

  const session = encodeURIComponent(sessionId);
  const byBody = (rows: LogRow[], body: string) => rows.find((r) => r.body === body);
  const expectedBodies = [
    'demo: custom log from the demo page',
    'demo: console.info from the demo page',
    'demo: console.warn from the demo page',
    'demo: console.error from the demo page',
    'Error: demo: uncaught error from the demo page',
    'Error: demo: unhandled rejection from the demo page',
  ];
  const logs = await rowsOf<LogRow>(
    `/logs?session_id=${session}&limit=1000`,
    (rows) => expectedBodies.every((body) => byBody(rows, body)),
    `logs ${expectedBodies.join(', ')} stored for session ${sessionId}`,
  );
  for (const row of logs) expect(row).toMatchObject({ session_id: sessionId, app: 'web-app' });
  expect(byBody(logs, 'demo: custom log from the demo page')).toMatchObject({
    severity_text: 'INFO',
    attributes: { 'demo.button': 'log' },
  });
  expect(byBody(logs, 'demo: console.warn from the demo page')).toMatchObject({
    severity_text: 'WARN',
    attributes: { 'log.source': 'console' },
  });
  expect(byBody(logs, 'demo: console.error from the demo page')).toMatchObject({
    severity_text: 'ERROR',
    attributes: { 'log.source': 'console' },
  });
  const uncaught = byBody(logs, 'Error: demo: uncaught error from the demo page')!;
  expect(uncaught).toMatchObject({
    severity_text: 'ERROR',
    attributes: {
      'log.source': 'onerror',
      'exception.type': 'Error',
      'exception.message': 'demo: uncaught error from the demo page',
    },
  });
  expect(uncaught.attributes['code.file.path']).toBe(`${t.url}/demo/`);
  expect(uncaught.attributes['exception.stacktrace']).toEqual(expect.stringContaining('/demo/'));
  expect(byBody(logs, 'Error: demo: unhandled rejection from the demo page')).toMatchObject({
    severity_text: 'ERROR',
    attributes: {
      'log.source': 'unhandledrejection',
      'exception.message': 'demo: unhandled rejection from the demo page',
    },
  });
  // The failed fetch's outcome log is an error with no status.
  const networkError = logs.find((r) => r.severity_text === 'ERROR' && r.attributes['http.status_code'] === 0);
  expect(networkError, 'error log of the network failure').toBeDefined();

  const spans = await rowsOf<SpanRow>(
    `/spans?session_id=${session}&name=${encodeURIComponent('browser.fetch GET')}`,
    (rows) => rows.length >= 3,
    'three browser.fetch GET spans',
  );
  const byStatus = (status: number) => spans.filter((s) => s.attributes['http.status_code'] === status);
  for (const status of [200, 500, 0])
    expect(byStatus(status), `browser.fetch GET span with http.status_code ${status}`).toHaveLength(1);
  const okSpan = byStatus(200)[0]!;
  expect(okSpan.trace_id, 'the stored span is the trace whose traceparent reached the echo endpoint').toBe(okTraceId);
  expect(okSpan.attributes).toMatchObject({ 'http.method': 'GET', 'http.url': `${t.url}/demo/api/echo` });
  expect(typeof okSpan.attributes['http.duration_ms']).toBe('number');
  expect(byStatus(500)[0]!.trace_id).toBe(TRACEPARENT.exec(failed.traceparent)?.[1]);
  for (const span of spans) expect(span).toMatchObject({ session_id: sessionId, app: 'web-app' });

  const xhrSpans = await rowsOf<SpanRow>(`/spans?trace_id=${xhrTraceId}`, (rows) => rows.length > 0, 'the XHR span');
  expect(xhrSpans[0]!.session_id).toBe(sessionId);

  const metrics = await rowsOf<MetricRow>(
    `/metrics?session_id=${session}&name=demo.button_clicks`,
    (rows) => rows.length > 0,
    'the custom metric',
  );
  expect(metrics[0]).toMatchObject({ value: 1, unit: '{click}', session_id: sessionId });

  // Every query API link on the page answers once the control key is sent, as the page says.
  const links = await page
    .locator('main ul a')
    .evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) {
    expect(link.startsWith(`${t.url}/control-plane/`), link).toBe(true);
    const res = await fetch(link, { headers: { authorization: `Bearer ${t.controlKey}` } });
    expect(res.status, link).toBe(200);
    if (link.includes('/logs?'))
      expect(((await res.json()) as { data: LogRow[] }).data.length, link).toBeGreaterThan(0);
  }
  await expect(page.locator('#curl')).toContainText(`Authorization: Bearer <control key>`);

  expect(pageErrors).toEqual([
    'demo: uncaught error from the demo page',
    'demo: unhandled rejection from the demo page',
  ]);
  expect(sdkErrors, 'the SDK reported no error of its own').toEqual([]);
});
