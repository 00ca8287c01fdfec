import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ensureSdkBuilt } from '../support/build-sdk';
import { controlGet, type TestServer } from '../support/svc-server';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';

/**
 * The SDK object's life in Chromium: one instance per page, sessions in local storage (and without it), shutdown that
 * sends what is queued, and no exception ever reaching the app, whatever it is given.
 */

type LogRow = { body: unknown; severity_text: string; session_id: string | null; attributes: Record<string, unknown> };

let app: SdkPageServer;
test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
});
test.afterAll(() => app.close());

/** A page whose `prelude` runs before the SDK starts, so it can break the environment first. */
function pageHtml(ingest: TestServer, options: Record<string, unknown> = {}, prelude = ''): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: ingest.url,
    flushIntervalMs: 60_000,
    debug: true,
    ...options,
  };
  return `<!doctype html><title>lifecycle</title><script>${prelude}</script><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script>`;
}

async function open(page: Page, html: string): Promise<{ errors: string[]; svcLines: string[] }> {
  const errors: string[] = [];
  const svcLines: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.text().startsWith('[svc]')) svcLines.push(message.text());
  });
  app.setHtml(html);
  await page.goto(`${app.origin}/`);
  return { errors, svcLines };
}

async function logs(ingest: TestServer, count: number): Promise<LogRow[]> {
  let rows: LogRow[] = [];
  await expect
    .poll(async () => {
      rows = (await controlGet<{ data: LogRow[] }>(ingest, '/logs?limit=1000')).body.data;
      return rows.length;
    })
    .toBeGreaterThanOrEqual(count);
  return rows;
}

test('a second initBrowserSDK returns the running instance and warns', async ({ page, ingest }) => {
  const { svcLines } = await open(page, pageHtml(ingest));
  const same = await page.evaluate(
    () => Svc.initBrowserSDK({ apiKey: 'other', serviceName: 'other' }) === (window as any).sdk,
  );
  expect(same).toBe(true);
  expect(await page.evaluate(() => Svc.getSDK() === (window as any).sdk)).toBe(true);
  await expect.poll(() => svcLines.some((line) => line.includes('initBrowserSDK was called again'))).toBe(true);
});

test('shutdown sends what is queued, restores the console, and later calls are harmless no-ops', async ({
  page,
  ingest,
}) => {
  const { errors } = await open(page, pageHtml(ingest));
  const after = await page.evaluate(async () => {
    const sdk = (window as any).sdk;
    sdk.log('info', 'queued before shutdown');
    await sdk.shutdown();
    sdk.log('info', 'after shutdown');
    sdk.metric('after_shutdown', 1);
    sdk.captureException(new Error('after shutdown'));
    console.info('console after shutdown');
    return {
      consoleRestored: console.info.toString().includes('[native code]'),
      sameShutdown: sdk.shutdown() instanceof Promise,
    };
  });
  expect(after).toEqual({ consoleRestored: true, sameShutdown: true });
  const rows = await logs(ingest, 1);
  expect(rows.map((row) => row.body)).toEqual(['queued before shutdown']);
  expect(errors).toEqual([]);
});

test('the session id lives in local storage under replay.sessionStorageKey and survives a reload', async ({
  page,
  ingest,
}) => {
  await open(page, pageHtml(ingest, { replay: { sessionStorageKey: 'shop_session' } }));
  const first = await page.evaluate(() => ({
    id: (window as any).sdk.sessionId as string,
    stored: localStorage.getItem('shop_session'),
  }));
  expect(first.id).toMatch(/^[0-9a-f]{32}$/);
  expect(first.stored).toBe(first.id);
  await page.reload();
  expect(await page.evaluate(() => (window as any).sdk.sessionId)).toBe(first.id);
  await page.evaluate(() => (window as any).sdk.log('info', 'with session'));
  await page.evaluate(() => (window as any).sdk.shutdown());
  const [row] = await logs(ingest, 1);
  expect(row!.session_id).toBe(first.id);
});

test('blocked local storage falls back to a session in memory', async ({ page, ingest }) => {
  const blockStorage =
    "Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('blocked', 'SecurityError'); } });";
  const { errors } = await open(page, pageHtml(ingest, {}, blockStorage));
  const id = await page.evaluate(async () => {
    const sdk = (window as any).sdk;
    sdk.log('warn', 'storage blocked');
    await sdk.shutdown();
    return sdk.sessionId as string;
  });
  expect(id).toMatch(/^[0-9a-f]{32}$/);
  const [row] = await logs(ingest, 1);
  expect(row!.session_id).toBe(id);
  expect(errors).toEqual([]);
});

test('nothing the app passes makes the SDK throw, and invalid options warn and fall back', async ({ page, ingest }) => {
  const { errors, svcLines } = await open(
    page,
    pageHtml(ingest, { flushIntervalMs: -1, replay: { maxChunkBytes: 'big' } }),
  );
  const thrown = await page.evaluate(async () => {
    const sdk = (window as any).sdk;
    const attempts: Array<() => unknown> = [
      () => sdk.log('loud', { not: 'a string' }),
      () => sdk.log(undefined, undefined, 'not a context'),
      () => sdk.metric('', Number.NaN),
      () => sdk.metric('cart_items', 'three'),
      () => sdk.captureException(undefined),
      () =>
        sdk.captureException({
          cyclic: (() => {
            const o: any = {};
            o.self = o;
            return o;
          })(),
        }),
      () => sdk.captureReplayEvent(42, Symbol('x')),
      () => sdk.log('info', 'still fine', { attrs: { fn: () => 1, big: 10n, nested: { a: [1, { b: 2 }] } } }),
    ];
    const failures: string[] = [];
    for (const attempt of attempts) {
      try {
        attempt();
      } catch (error) {
        failures.push(String(error));
      }
    }
    await sdk.shutdown();
    return failures;
  });
  expect(thrown).toEqual([]);
  expect(errors).toEqual([]);
  expect(svcLines.some((line) => line.includes('"flushIntervalMs"'))).toBe(true);
  expect(svcLines.some((line) => line.includes('"replay.maxChunkBytes"'))).toBe(true);
  const rows = await logs(ingest, 1);
  expect(rows.some((row) => row.body === 'still fine')).toBe(true);
});

test('without an API key the SDK stays off and says why in debug mode', async ({ page, ingest }) => {
  const { errors, svcLines } = await open(page, pageHtml(ingest, { apiKey: '' }));
  const state = await page.evaluate(() => ({
    running: Svc.getSDK() !== undefined,
    native: fetch.toString().includes('[native code]'),
  }));
  expect(state).toEqual({ running: false, native: true });
  expect(svcLines.some((line) => line.includes('"apiKey"'))).toBe(true);
  expect(errors).toEqual([]);
});

test('the SDK never traces or records its own requests', async ({ page, ingest }) => {
  await open(page, pageHtml(ingest, { flushIntervalMs: 100 }));
  await page.evaluate(() => (window as any).sdk.log('info', 'one'));
  await logs(ingest, 1);
  await page.evaluate(() => (window as any).sdk.log('info', 'two'));
  await logs(ingest, 2);
  await page.evaluate(() => (window as any).sdk.shutdown());
  const spans = (
    await controlGet<{ data: Array<{ attributes: Record<string, unknown> }> }>(ingest, '/spans?limit=1000')
  ).body.data;
  const urls = spans.map((span) => String(span.attributes['http.url'] ?? span.attributes['url.full'] ?? ''));
  expect(urls.filter((url) => url.startsWith(ingest.url))).toEqual([]);
  const rows = (await controlGet<{ data: LogRow[] }>(ingest, '/logs?limit=1000')).body.data;
  expect(rows.map((row) => row.body).sort()).toEqual(['one', 'two']);
});

declare const Svc: { initBrowserSDK(options: unknown): unknown; getSDK(): unknown };
