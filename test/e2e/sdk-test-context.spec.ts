import type { Page } from '@playwright/test';
import { ensureSdkBuilt } from '../support/build-sdk';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';
import { autoApp } from './support/auto-app';

/**
 * The SDK on a page under @svc/playwright: the fixture's init script sets `window.__SVC_TEST__` before any page code
 * runs, and the SDK, with no change to the app, tags every request with the test, runs in environment `test` unless
 * the app set one, sends the session whatever its sampling, and exposes `__SVC_TEST_SDK__.flush()`, which resolves
 * once the server has acknowledged (committed) everything: the reads below follow it with no polling.
 */

type Resource = { attributes: Record<string, unknown> };
type LogRow = { body: string; session_id: string; resource: Resource };
type FlushResult = { sent: number; failed: number };

const CONTEXT = {
  runId: 'run-e2e-1',
  testId: 'f00dfeed-1',
  title: 'adds to cart',
  titlePath: ['cart', 'adds to cart'],
  file: 'tests/cart.spec.ts',
  line: 12,
  project: 'chromium',
  retry: 1,
  worker: 0,
  commit: 'abc1234',
  branch: 'main',
};

const TEST_ATTRIBUTES = {
  'test.run.id': 'run-e2e-1',
  'test.id': 'f00dfeed-1',
  'test.title': 'cart > adds to cart',
  'test.file': 'tests/cart.spec.ts',
  'test.line': 12,
  'test.project': 'chromium',
  'test.retry': 1,
  'test.worker': 0,
  'test.commit': 'abc1234',
  'test.branch': 'main',
};

let app: SdkPageServer;
test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
});
test.afterAll(() => app.close());

/** Opens `html` with `context` as the fixture hands it over; returns the page's uncaught errors. */
async function open(page: Page, context: unknown, html: string): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(`window.__SVC_TEST__ = ${typeof context === 'string' ? context : JSON.stringify(context)};`);
  app.setHtml(html);
  await page.goto(`${app.origin}/`);
  return errors;
}

/** The script-tag SDK started with `options` over the test project's key and ingest URL. */
function scriptTagPage(ingest: TestServer, options: Record<string, unknown>, after = ''): string {
  const config = { apiKey: ingest.ingestKey, serviceName: ingest.appName, ingestUrl: ingest.url, flushIntervalMs: 60_000, ...options };
  return `<!doctype html><title>under test</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script>${after}`;
}

const flush = (page: Page) => page.evaluate(() => (window as unknown as { __SVC_TEST_SDK__: { flush(): Promise<FlushResult> } }).__SVC_TEST_SDK__.flush());

async function storedLogs(ingest: TestServer): Promise<LogRow[]> {
  const res = await controlGet<{ data: LogRow[] }>(ingest, '/logs?limit=100');
  expect(res.status).toBe(200);
  return res.body.data;
}

test('the script tag, sampled out by the app: every record carries the test, env test, the replay stored once flush resolves', async ({ page, ingest }) => {
  // sampleRate 0 would send nothing at all outside a test.
  const html = scriptTagPage(ingest, { sampleRate: 0, replay: { sampleRate: 0 } }, '<script>throw new Error("app bug under test")</script>');
  const errors = await open(page, CONTEXT, html);
  const { result, sessionId } = await page.evaluate(async () => {
    const w = window as unknown as { sdk: { log(l: string, m: string): void; captureReplayEvent(t: string): void }; __SVC_TEST_SDK__: { sessionId: string; flush(): Promise<FlushResult> } };
    w.sdk.log('info', 'checkout clicked');
    w.sdk.captureReplayEvent('checkpoint');
    return { result: await w.__SVC_TEST_SDK__.flush(), sessionId: w.__SVC_TEST_SDK__.sessionId };
  });
  expect(errors).toEqual(['app bug under test']);
  expect(result.failed).toBe(0);
  expect(result.sent).toBeGreaterThanOrEqual(2);

  const logs = await storedLogs(ingest);
  expect(logs.map((row) => row.body).sort()).toEqual(['Error: app bug under test', 'checkout clicked']);
  for (const row of logs) {
    expect(row.session_id).toBe(sessionId);
    expect(row.resource.attributes).toMatchObject({ ...TEST_ATTRIBUTES, 'deployment.environment': 'test', 'svc.replay.mode': 'full' });
  }
  const chunks = await controlGet<{ data: unknown[] }>(ingest, `/replay/chunks?session_id=${sessionId}&limit=10`);
  expect(chunks.body.data.length).toBeGreaterThanOrEqual(1);

  // shutdown() takes the handle away.
  expect(await page.evaluate(async () => {
    await (window as unknown as { sdk: { shutdown(): Promise<void> } }).sdk.shutdown();
    return '__SVC_TEST_SDK__' in window;
  })).toBe(false);
});

test('/auto with SVC_ENV set keeps the app\'s environment and still carries the test', async ({ page, ingest }) => {
  const env = { VITE_SVC_API_KEY: ingest.ingestKey, VITE_SVC_INGEST_URL: ingest.url, VITE_SVC_SERVICE_NAME: ingest.appName, VITE_SVC_ENV: 'staging' };
  app.setScript('/app.js', await autoApp(env));
  await open(page, CONTEXT, '<!doctype html><title>auto under test</title><script src="/app.js"></script><script>console.warn("stock low")</script>');
  expect((await flush(page)).failed).toBe(0);
  const [row] = await storedLogs(ingest);
  expect(row!.body).toBe('stock low');
  expect(row!.resource.attributes).toMatchObject({ ...TEST_ATTRIBUTES, 'deployment.environment': 'staging' });
});

test('a hostile __SVC_TEST__ (wrong types, huge strings, a throwing getter) neither breaks the page nor tags anything', async ({ page, ingest }) => {
  const hostile = `{ runId: 'run-x', testId: 'id-x', file: 7, line: 'twelve', title: 'x'.repeat(1e6), titlePath: 5,
    get project() { throw new Error('hostile getter'); } }`;
  const errors = await open(page, hostile, scriptTagPage(ingest, {}));
  const state = await page.evaluate(async () => {
    const w = window as unknown as { sdk: { log(l: string, m: string): void; shutdown(): Promise<void> }; Svc: { getSDK(): unknown } };
    const running = w.Svc.getSDK() === w.sdk;
    w.sdk.log('info', 'still working');
    await w.sdk.shutdown();
    return { running, handle: '__SVC_TEST_SDK__' in window };
  });
  expect(errors).toEqual([]);
  expect(state).toEqual({ running: true, handle: false });
  // shutdown() resolved once ingest acknowledged: the record is stored.
  const [row] = await storedLogs(ingest);
  expect(Object.keys(row!.resource.attributes).filter((key) => key.startsWith('test.') || key.startsWith('deployment.'))).toEqual([]);
});
