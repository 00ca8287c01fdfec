import type { Page } from '@playwright/test';
import type { TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';
import {
  openSdkPage,
  sdkOriginForFile,
  waitForLogs,
  waitForMetrics,
  waitForNavigations,
  waitForVitals,
  type Observed,
  shiftLayoutRecorded,
} from './support/sdk-page';
import { APP_THROW_COLUMN, APP_THROW_LINE, SIGNALS_PAGE_TITLE } from './support/signals-page';

/**
 * Every automatic and manual signal of the SDK, end to end: the CDN bundle (dist/cdn/svc.min.js, global `Svc`) on a
 * page of its own origin, started by `Svc.initBrowserSDK` before the app's code runs, sending to a real reference
 * server; asserted through the query API, as a user of the service would see it. The edge cases of each signal are in
 * sdk-signals-edge-cases.spec.ts, on the same page and server.
 */

const origin = sdkOriginForFile();

const openPage = (page: Page, ingest: TestServer): Promise<Observed> => openSdkPage(page, origin, ingest);

test.describe('browser SDK signals through the reference server', () => {
  test('manual logs at five levels, exceptions, metrics, console output, uncaught errors and rejections arrive', async ({
    page,
    ingest,
  }) => {
    const { consoleLines, pageErrors, sessionId } = await openPage(page, ingest);
    await page.evaluate(() => {
      const { sdk } = window;
      for (const level of ['debug', 'info', 'warn', 'error', 'fatal'] as const)
        sdk.log(level, `manual ${level}`, { attrs: { step: level } });
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

    const logs = await waitForLogs(ingest, sessionId, 14);
    const byBody = new Map(logs.map((log) => [String(log.body), log]));
    for (const log of logs)
      expect(log).toMatchObject({ app: 'web-app', session_id: sessionId, attributes: { 'session.id': sessionId } });

    for (const [level, text] of [
      ['debug', 'DEBUG'],
      ['info', 'INFO'],
      ['warn', 'WARN'],
      ['error', 'ERROR'],
      ['fatal', 'FATAL'],
    ]) {
      expect(byBody.get(`manual ${level}`), `manual ${level}`).toMatchObject({
        severity_text: text,
        attributes: { step: level },
      });
    }
    expect(byBody.get('unknown level')).toMatchObject({ severity_text: 'INFO' });
    const manual = byBody.get('TypeError: manual exception');
    expect(manual).toMatchObject({
      severity_text: 'ERROR',
      attributes: { orderId: 'o-1', 'exception.type': 'TypeError', 'exception.message': 'manual exception' },
    });
    expect(String(manual!.attributes['exception.stacktrace'])).toMatch(/^TypeError: manual exception\n\s+at /);
    // The page it happened on, which an issue's breakdown counts by route.
    expect(manual!.attributes['url.path']).toBe(new URL(page.url()).pathname);
    expect(byBody.get('Error: a plain string error')).toMatchObject({
      severity_text: 'ERROR',
      attributes: { 'exception.type': 'Error' },
    });

    expect(byBody.get('console debug line')).toMatchObject({
      severity_text: 'DEBUG',
      attributes: { 'log.source': 'console' },
    });
    expect(byBody.get('console info {"cart":[1,2]}')).toMatchObject({
      severity_text: 'INFO',
      attributes: { 'log.source': 'console' },
    });
    expect(byBody.get('console warn')).toMatchObject({
      severity_text: 'WARN',
      attributes: { 'log.source': 'console' },
    });
    const consoleError = logs.find((log) => String(log.body).startsWith('console error Error: inside console.error\n'));
    expect(consoleError).toMatchObject({
      severity_text: 'ERROR',
      attributes: { 'log.source': 'console', 'exception.message': 'inside console.error' },
    });
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
      attributes: {
        'log.source': 'unhandledrejection',
        'exception.type': 'RangeError',
        'exception.message': 'rejected promise',
      },
    });

    // The SDK's own debug output was printed, and never came back as a log.
    expect(
      consoleLines.some((line) => line.type === 'warning' && line.text.startsWith('[svc] log(): unknown level "loud"')),
    ).toBe(true);
    expect(logs.some((log) => String(log.body).includes('[svc]'))).toBe(false);
    // The original console still printed every call.
    for (const [type, start] of [
      ['debug', 'console debug'],
      ['info', 'console info'],
      ['warning', 'console warn'],
      ['error', 'console error'],
      ['log', 'console.log'],
    ]) {
      expect(
        consoleLines.some((line) => line.type === type && line.text.startsWith(start!)),
        `console.${type} printed`,
      ).toBe(true);
    }
    // Playwright lists unhandled rejections as page errors too.
    expect(pageErrors.sort()).toEqual(['rejected promise', 'uncaught from app.js']);

    const metrics = await waitForMetrics(ingest, sessionId, 2);
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
    const navigations = await waitForNavigations(page, ingest, sessionId, 4);
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

  test('Web Vitals: FCP, TTFB and LCP while the page is open; CLS and INP once it is hidden; each on the route it was measured on', async ({
    page,
    ingest,
  }) => {
    const { sessionId, pageErrors } = await openPage(page, ingest);
    const vitals = (count: number) => waitForVitals(ingest, sessionId, count);

    // A single-page app routes on the client: the layout shifts and the slow click happen on /cart.
    await page.evaluate(() => history.pushState({}, '', '/cart'));
    await shiftLayoutRecorded(page);
    // The first input finalises LCP: it is reported on /cart, but was measured on the page load's route.
    await page.click('#slow');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const open = await vitals(3);
    expect(open.map((m) => m.name).sort()).toEqual(['web_vital_fcp_ms', 'web_vital_lcp_ms', 'web_vital_ttfb_ms']);
    await page.evaluate(() => history.pushState({}, '', '/done'));

    // Leaving hides the page for good: CLS and INP are final now and leave with the unload flush.
    await page.goto(`${origin.origin}/elsewhere`);
    const all = await vitals(5);
    const byName = new Map(all.map((m) => [m.name, m]));
    expect([...byName.keys()].sort()).toEqual([
      'web_vital_cls',
      'web_vital_fcp_ms',
      'web_vital_inp_ms',
      'web_vital_lcp_ms',
      'web_vital_ttfb_ms',
    ]);
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
        'web_vital.id': expect.stringMatching(/^v\d+-/),
        // Each vital is reported once, when final: its delta is all of it.
        'web_vital.delta': metric.value,
        'session.id': sessionId,
      });
      expect(metric.value).toBeGreaterThanOrEqual(0);
    }
    // Each vital is about the page it was measured on, whatever the route when it was sent (/done, leaving for /elsewhere).
    expect(Object.fromEntries(all.map((m) => [m.name, m.attributes['url.path']]))).toEqual({
      web_vital_fcp_ms: '/',
      web_vital_lcp_ms: '/',
      web_vital_ttfb_ms: '/',
      web_vital_cls: '/cart',
      web_vital_inp_ms: '/cart',
    });
    expect(byName.get('web_vital_cls')!.value).toBeGreaterThan(0);
    expect(byName.get('web_vital_inp_ms')!.value).toBeGreaterThanOrEqual(100);
    expect(byName.get('web_vital_inp_ms')!.attributes['web_vital.target']).toBe('button#slow.primary');
    expect(byName.get('web_vital_cls')!.attributes['web_vital.target']).toMatch(/shifting|button/);
    expect(byName.get('web_vital_lcp_ms')!.attributes['web_vital.target']).toMatch(
      /^(body>p\.intro\.lead|h1#headline|div#shifting>p)$/,
    );
    expect(pageErrors).toEqual([]);
  });
});
