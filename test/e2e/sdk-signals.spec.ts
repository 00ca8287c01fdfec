import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { BrowserSDK } from '../../src/sdk/types';
import { ensureSdkBuilt, ROOT } from '../support/build-sdk';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';
import { APP_JS, APP_THROW_COLUMN, APP_THROW_LINE, SIGNALS_PAGE_TITLE, signalsPageHtml } from './support/signals-page';
import { html, js, startStaticOrigin, type StaticOrigin } from './support/static-origin';

/**
 * Every automatic and manual signal of the SDK, end to end: the CDN bundle (dist/cdn/svc.min.js, global `Svc`) on a
 * page of its own origin, started by `Svc.initBrowserSDK` before the app's code runs, sending to a real reference
 * server; asserted through the query API, as a user of the service would see it.
 */

/** Starts the SDK from the page's query string, as an app configures it at start-up. */
const INIT_JS = `(function () {
  var params = new URLSearchParams(location.search);
  window.sdk = Svc.initBrowserSDK({
    apiKey: params.get('key'),
    serviceName: 'web-app',
    ingestUrl: params.get('ingest'),
    debug: true,
    flushIntervalMs: 200,
  });
})();
`;

let origin: StaticOrigin;

test.beforeAll(async () => {
  // Builds dist/ with rollup when the sources changed since the last build.
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  const bundle = readFileSync(join(ROOT, 'dist/cdn/svc.min.js'), 'utf8');
  origin = await startStaticOrigin(
    {
      '/svc.min.js': js(bundle),
      // svc.min.js loads the recorder from beside itself once replay starts.
      '/svc-recorder.min.js': js(readFileSync(join(ROOT, 'dist/cdn/svc-recorder.min.js'), 'utf8')),
      '/init.js': js(INIT_JS),
      '/app.js': js(APP_JS),
      '/elsewhere': html('<!doctype html><title>Elsewhere</title><p>Another page, without the SDK.</p>'),
    },
    html(signalsPageHtml(['/svc.min.js', '/init.js'])),
  );
});

test.afterAll(async () => {
  await origin?.close();
});

type Row = Record<string, unknown> & { attributes: Record<string, unknown>; session_id: string | null; app: string };
type LogRow = Row & { body: unknown; severity_text: string; severity_number: number; trace_id: string | null };
type MetricRow = Row & { name: string; unit: string | null; value: number };

async function rows<T>(ingest: TestServer, path: string): Promise<T[]> {
  const res = await controlGet<{ data: T[] }>(ingest, path);
  expect(res.status, `GET /control-plane${path}`).toBe(200);
  return res.body.data;
}

/** Waits until `select` finds `count` rows of the listing (oldest first), then returns them. */
async function waitForRows<T>(ingest: TestServer, path: string, count: number, select: (row: T) => boolean = () => true): Promise<T[]> {
  let found: T[] = [];
  await expect
    .poll(
      async () => {
        found = (await rows<T>(ingest, path)).filter(select).reverse();
        return found.length;
      },
      { message: `${count} row(s) of ${path}`, timeout: 15_000, intervals: [100, 250, 500] },
    )
    .toBeGreaterThanOrEqual(count);
  return found;
}

interface Observed {
  consoleLines: Array<{ type: string; text: string }>;
  pageErrors: string[];
  sessionId: string;
}

/** Opens the page with the SDK configured for `ingest`, recording what the page printed and threw. */
async function openPage(page: Page, ingest: TestServer): Promise<Observed> {
  const consoleLines: Observed['consoleLines'] = [];
  const pageErrors: string[] = [];
  page.on('console', (message) => consoleLines.push({ type: message.type(), text: message.text() }));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const query = new URLSearchParams({ key: ingest.ingestKey, ingest: ingest.url });
  await page.goto(`${origin.origin}/?${query.toString()}`);
  const sessionId = await page.evaluate(() => (window as unknown as { sdk: { sessionId: string } }).sdk.sessionId);
  expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
  return { consoleLines, pageErrors, sessionId };
}

test.describe('browser SDK signals through the reference server', () => {
  test('manual logs at five levels, exceptions, metrics, console output, uncaught errors and rejections arrive', async ({ page, ingest }) => {
    const { consoleLines, pageErrors, sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      const sdk = (window as unknown as { sdk: BrowserSDK }).sdk;
      for (const level of ['debug', 'info', 'warn', 'error', 'fatal'] as const) sdk.log(level, `manual ${level}`, { attrs: { step: level } });
      sdk.captureException(new TypeError('manual exception'), { attrs: { orderId: 'o-1' } });
      sdk.captureError('a plain string error');
      sdk.metric('checkout.duration', 12.5, 'ms', { attrs: { step: 'pay' } });
      sdk.metric('cart_items', 3);
      (sdk.log as (level: unknown, message: string) => void)('loud', 'unknown level');
      console.debug('console debug %s', 'line');
      console.info('console info', { cart: [1, 2] });
      console.warn('console warn');
      console.error('console error', new Error('inside console.error'));
      console.log('console.log is not forwarded');
      (window as unknown as { throwUncaught(message: string): void }).throwUncaught('uncaught from app.js');
      void Promise.reject(new RangeError('rejected promise'));
    });

    const logs = await waitForRows<LogRow>(ingest, `/logs?session_id=${sessionId}&limit=1000`, 14);
    const byBody = new Map(logs.map((log) => [String(log.body), log]));
    for (const log of logs) expect(log).toMatchObject({ app: 'web-app', session_id: sessionId, attributes: { 'session.id': sessionId } });

    for (const [level, text] of [['debug', 'DEBUG'], ['info', 'INFO'], ['warn', 'WARN'], ['error', 'ERROR'], ['fatal', 'FATAL']]) {
      expect(byBody.get(`manual ${level}`), `manual ${level}`).toMatchObject({ severity_text: text, attributes: { step: level } });
    }
    expect(byBody.get('unknown level')).toMatchObject({ severity_text: 'INFO' });
    const manual = byBody.get('TypeError: manual exception');
    expect(manual).toMatchObject({
      severity_text: 'ERROR',
      attributes: { orderId: 'o-1', 'exception.type': 'TypeError', 'exception.message': 'manual exception' },
    });
    expect(String(manual!.attributes['exception.stacktrace'])).toMatch(/^TypeError: manual exception\n\s+at /);
    expect(byBody.get('Error: a plain string error')).toMatchObject({ severity_text: 'ERROR', attributes: { 'exception.type': 'Error' } });

    expect(byBody.get('console debug line')).toMatchObject({ severity_text: 'DEBUG', attributes: { 'log.source': 'console' } });
    expect(byBody.get('console info {"cart":[1,2]}')).toMatchObject({ severity_text: 'INFO', attributes: { 'log.source': 'console' } });
    expect(byBody.get('console warn')).toMatchObject({ severity_text: 'WARN', attributes: { 'log.source': 'console' } });
    const consoleError = logs.find((log) => String(log.body).startsWith('console error Error: inside console.error\n'));
    expect(consoleError).toMatchObject({ severity_text: 'ERROR', attributes: { 'log.source': 'console', 'exception.message': 'inside console.error' } });
    expect(logs.some((log) => String(log.body).includes('console.log is not forwarded'))).toBe(false);

    expect(byBody.get('TypeError: uncaught from app.js')).toMatchObject({
      severity_text: 'ERROR',
      attributes: {
        'log.source': 'onerror',
        'code.file.path': `${origin.origin}/app.js`,
        'code.line.number': APP_THROW_LINE,
        'code.column.number': APP_THROW_COLUMN,
        'exception.type': 'TypeError',
      },
    });
    expect(byBody.get('RangeError: rejected promise')).toMatchObject({
      severity_text: 'ERROR',
      attributes: { 'log.source': 'unhandledrejection', 'exception.type': 'RangeError', 'exception.message': 'rejected promise' },
    });

    // The SDK's own debug output was printed, and never came back as a log.
    expect(consoleLines.some((line) => line.type === 'warning' && line.text.startsWith('[svc] log(): unknown level "loud"'))).toBe(true);
    expect(logs.some((log) => String(log.body).includes('[svc]'))).toBe(false);
    // The original console still printed every call.
    for (const [type, start] of [['debug', 'console debug'], ['info', 'console info'], ['warning', 'console warn'], ['error', 'console error'], ['log', 'console.log']]) {
      expect(consoleLines.some((line) => line.type === type && line.text.startsWith(start!)), `console.${type} printed`).toBe(true);
    }
    // Playwright lists unhandled rejections as page errors too.
    expect(pageErrors.sort()).toEqual(['rejected promise', 'uncaught from app.js']);

    const metrics = await waitForRows<MetricRow>(ingest, `/metrics?session_id=${sessionId}&limit=1000`, 2, (m) => !m.name.startsWith('web_vital_'));
    expect(metrics.map((m) => ({ name: m.name, value: m.value, unit: m.unit, attributes: m.attributes }))).toEqual([
      { name: 'checkout.duration', value: 12.5, unit: 'ms', attributes: { step: 'pay', 'session.id': sessionId } },
      // The server stores "no unit" as null.
      { name: 'cart_items', value: 3, unit: null, attributes: { 'session.id': sessionId } },
    ]);
  });

  test('navigation becomes replay events with the URL and the title', async ({ page, ingest }) => {
    const { sessionId, pageErrors } = await openPage(page, ingest);
    await page.evaluate(() => {
      history.pushState({}, '', '/products/42');
      void Promise.resolve().then(() => {
        document.title = 'Product 42';
      });
    });
    await page.evaluate(() => {
      location.hash = '#reviews';
    });
    await page.goBack();
    await page.evaluate(() => history.replaceState({}, '', '/products/42?tab=specs'));
    // Titles are read after the next frame: wait for two, then send the buffered replay events.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));
    await page.evaluate(() => (window as unknown as { sdk: { flushReplay(): Promise<void> } }).sdk.flushReplay());

    type Chunk = { events: Array<{ type: number; data?: { tag?: string; payload?: unknown } }> };
    let navigations: unknown[] = [];
    await expect
      .poll(async () => {
        const chunks = await rows<Chunk>(ingest, `/replay/chunks?session_id=${sessionId}&limit=100`);
        navigations = chunks
          .reverse()
          .flatMap((chunk) => chunk.events)
          .filter((event) => event.type === 5 && event.data?.tag === 'navigation')
          .map((event) => event.data!.payload);
        return navigations.length;
      }, { timeout: 15_000 })
      .toBe(4);
    const base = origin.origin;
    expect(navigations).toEqual([
      { url: `${base}/products/42`, title: 'Product 42', trigger: 'pushState' },
      { url: `${base}/products/42#reviews`, title: 'Product 42', trigger: 'popstate' },
      { url: `${base}/products/42`, title: 'Product 42', trigger: 'popstate' },
      { url: `${base}/products/42?tab=specs`, title: 'Product 42', trigger: 'replaceState' },
    ]);
    expect(await page.title()).not.toBe(SIGNALS_PAGE_TITLE);
    expect(pageErrors).toEqual([]);
  });

  test('Web Vitals: FCP, TTFB and LCP while the page is open; CLS and INP once it is hidden', async ({ page, ingest }) => {
    const { sessionId, pageErrors } = await openPage(page, ingest);
    const vitals = (count: number) =>
      waitForRows<MetricRow>(ingest, `/metrics?session_id=${sessionId}&limit=1000`, count, (m) => m.name.startsWith('web_vital_'));

    await page.evaluate(() => (window as unknown as { shiftLayout(): void }).shiftLayout());
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100))));
    // The first input finalises LCP.
    await page.click('#slow');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const open = await vitals(3);
    expect(open.map((m) => m.name).sort()).toEqual(['web_vital_fcp_ms', 'web_vital_lcp_ms', 'web_vital_ttfb_ms']);

    // Leaving hides the page for good: CLS and INP are final now and leave with the unload flush.
    await page.goto(`${origin.origin}/elsewhere`);
    const all = await vitals(5);
    const byName = new Map(all.map((m) => [m.name, m]));
    expect([...byName.keys()].sort()).toEqual(['web_vital_cls', 'web_vital_fcp_ms', 'web_vital_inp_ms', 'web_vital_lcp_ms', 'web_vital_ttfb_ms']);
    expect(all).toHaveLength(5);
    expect(Object.fromEntries(all.map((m) => [m.name, m.unit]))).toEqual({
      web_vital_fcp_ms: 'ms',
      web_vital_lcp_ms: 'ms',
      web_vital_cls: '1',
      web_vital_inp_ms: 'ms',
      web_vital_ttfb_ms: 'ms',
    });
    for (const metric of all) {
      expect(metric.attributes).toMatchObject({
        'web_vital.rating': expect.stringMatching(/^(good|needs-improvement|poor)$/),
        'web_vital.navigation_type': 'navigate',
        'web_vital.id': expect.any(String),
        'session.id': sessionId,
      });
    }
    expect(byName.get('web_vital_cls')!.value).toBeGreaterThan(0);
    expect(byName.get('web_vital_inp_ms')!.value).toBeGreaterThanOrEqual(100);
    expect(byName.get('web_vital_inp_ms')!.attributes['web_vital.target']).toBe('button#slow.primary');
    expect(pageErrors).toEqual([]);
  });
});
