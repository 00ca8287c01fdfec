import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { Page } from '@playwright/test';
import { handOver } from '../../playwright/src/deliver';
import { ensureSdkBuilt } from '../support/build-sdk';
import { freePort } from '../support/examples';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';
import { autoApp } from './support/auto-app';

/**
 * The SDK on a page under @svc/playwright: the fixture's init script sets `window.__SVC_TEST__` before any page code
 * runs, and the SDK, with no change to the app, tags every request with the test, runs in environment `test` unless
 * the app set one, sends the session whatever its sampling, and exposes `__SVC_TEST_SDK__.flush()`, which resolves
 * once the server has acknowledged (committed) everything: the reads below follow it with no polling. The fixture's
 * own delivery (playwright/src/deliver.ts) takes what the page queued with `drain()` and posts it from Node.js.
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
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: ingest.appName,
    ingestUrl: ingest.url,
    flushIntervalMs: 60_000,
    ...options,
  };
  return `<!doctype html><title>under test</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script>${after}`;
}

const flush = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { __SVC_TEST_SDK__: { flush(): Promise<FlushResult> } }).__SVC_TEST_SDK__.flush(),
  );

async function storedLogs(ingest: TestServer): Promise<LogRow[]> {
  const res = await controlGet<{ data: LogRow[] }>(ingest, '/logs?limit=100');
  expect(res.status).toBe(200);
  return res.body.data;
}

test('the script tag, sampled out by the app: every record carries the test, env test, the replay stored once flush resolves', async ({
  page,
  ingest,
}) => {
  // sampleRate 0 would send nothing at all outside a test.
  const html = scriptTagPage(
    ingest,
    { sampleRate: 0, replay: { sampleRate: 0 } },
    '<script>throw new Error("app bug under test")</script>',
  );
  const errors = await open(page, CONTEXT, html);
  const { result, sessionId } = await page.evaluate(async () => {
    const w = window as unknown as {
      sdk: { log(l: string, m: string): void; captureReplayEvent(t: string): void };
      __SVC_TEST_SDK__: { sessionId: string; flush(): Promise<FlushResult> };
    };
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
    expect(row.resource.attributes).toMatchObject({
      ...TEST_ATTRIBUTES,
      'deployment.environment': 'test',
      'svc.replay.mode': 'full',
    });
  }
  const chunks = await controlGet<{ data: unknown[] }>(ingest, `/replay/chunks?session_id=${sessionId}&limit=10`);
  expect(chunks.body.data.length).toBeGreaterThanOrEqual(1);

  // shutdown() takes the handle away.
  expect(
    await page.evaluate(async () => {
      await (window as unknown as { sdk: { shutdown(): Promise<void> } }).sdk.shutdown();
      return '__SVC_TEST_SDK__' in window;
    }),
  ).toBe(false);
});

test("/auto with SVC_ENV set keeps the app's environment and still carries the test", async ({ page, ingest }) => {
  const env = {
    VITE_SVC_API_KEY: ingest.ingestKey,
    VITE_SVC_INGEST_URL: ingest.url,
    VITE_SVC_SERVICE_NAME: ingest.appName,
    VITE_SVC_ENV: 'staging',
  };
  app.setScript('/app.js', await autoApp(env));
  await open(
    page,
    CONTEXT,
    '<!doctype html><title>auto under test</title><script src="/app.js"></script><script>console.warn("stock low")</script>',
  );
  expect((await flush(page)).failed).toBe(0);
  const [row] = await storedLogs(ingest);
  expect(row!.body).toBe('stock low');
  expect(row!.resource.attributes).toMatchObject({ ...TEST_ATTRIBUTES, 'deployment.environment': 'staging' });
});

test('a hostile __SVC_TEST__ (wrong types, huge strings, a throwing getter) neither breaks the page nor tags anything', async ({
  page,
  ingest,
}) => {
  const hostile = `{ runId: 'run-x', testId: 'id-x', file: 7, line: 'twelve', title: 'x'.repeat(1e6), titlePath: 5,
    get project() { throw new Error('hostile getter'); } }`;
  const errors = await open(page, hostile, scriptTagPage(ingest, {}));
  const state = await page.evaluate(async () => {
    const w = window as unknown as {
      sdk: { log(l: string, m: string): void; shutdown(): Promise<void> };
      Svc: { getSDK(): unknown };
    };
    const running = w.Svc.getSDK() === w.sdk;
    w.sdk.log('info', 'still working');
    await w.sdk.shutdown();
    return { running, handle: '__SVC_TEST_SDK__' in window };
  });
  expect(errors).toEqual([]);
  expect(state).toEqual({ running: true, handle: false });
  // shutdown() resolved once ingest acknowledged: the record is stored.
  const [row] = await storedLogs(ingest);
  expect(
    Object.keys(row!.resource.attributes).filter((key) => key.startsWith('test.') || key.startsWith('deployment.')),
  ).toEqual([]);
});

/** The fixture's delivery of one page (playwright/src/deliver.ts): its hand-over, then its posts from Node.js. */
async function deliver(page: Page, ms: number) {
  const handed = await handOver(page, ms);
  return handed && handed.deliver();
}

/** Requests the page itself posts to `base` (its ingest), in order. */
function ingestPosts(page: Page, base: string): string[] {
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().startsWith(base)) posts.push(new URL(request.url()).pathname);
  });
  return posts;
}

/** Logs a line and a replay event in the page (the script-tag SDK of scriptTagPage, as `window.sdk`). */
const logAndMark = (page: Page, message: string) =>
  page.evaluate((m) => {
    const sdk = (window as unknown as { sdk: { log(l: string, m: string): void; captureReplayEvent(t: string): void } })
      .sdk;
    sdk.log('info', m);
    sdk.captureReplayEvent('checkpoint');
  }, message);

// Neither the pipeline's nor the replay's timer sends during these tests: only what they call does.
const QUIET = { flushIntervalMs: 60_000, replay: { flushIntervalMs: 60_000 } };

test('the fixture delivers what the page queued from Node.js: stored once, and never sent by the page', async ({
  page,
  ingest,
}) => {
  const posts = ingestPosts(page, ingest.url);
  await open(page, CONTEXT, scriptTagPage(ingest, QUIET));
  await logAndMark(page, 'delivered from node');
  const outcome = await deliver(page, 5_000);
  expect(outcome).toMatchObject({ sent: expect.any(Number), failed: 0 });
  expect(outcome!.timedOut).toBeUndefined();

  const logs = await storedLogs(ingest);
  expect(logs.map((row) => row.body)).toEqual(['delivered from node']);
  expect(logs[0]!.resource.attributes).toMatchObject(TEST_ATTRIBUTES);
  const chunks = await controlGet<{ data: Array<{ seq: number }> }>(
    ingest,
    `/replay/chunks?session_id=${outcome!.sessionId}&limit=10`,
  );
  expect(chunks.body.data.map((c) => c.seq)).toEqual([0]);

  // The page forgot what it handed over: its own flush and a second delivery find nothing to send.
  expect(await flush(page)).toEqual({ sent: 0, failed: 0 });
  expect(await deliver(page, 5_000)).toEqual({ sessionId: outcome!.sessionId, sent: 0, failed: 0 });

  // This process has delivered to that ingest: what the page hands over next is delivered even once it has closed
  // (the fixture lets a passed test's context close meanwhile).
  await logAndMark(page, 'delivered after the page closed');
  const last = await handOver(page, 5_000);
  expect(last!.detached).toBe(true);
  await page.close();
  expect(await last!.deliver()).toMatchObject({ sent: expect.any(Number), failed: 0 });
  expect((await storedLogs(ingest)).map((row) => row.body).sort()).toEqual([
    'delivered after the page closed',
    'delivered from node',
  ]);
  expect(posts).toEqual([]);
});

test('what Node.js cannot deliver goes back to the page, which sends it its own way', async ({ page, ingest }) => {
  // An ingest address only the browser resolves (as with a remote browser, a proxy or host-resolver-rules).
  const browserOnly = 'http://svc-ingest.invalid';
  await page
    .context()
    .route(`${browserOnly}/**`, (route) =>
      route.continue({ url: route.request().url().replace(browserOnly, ingest.url) }),
    );
  const posts = ingestPosts(page, browserOnly);
  await open(page, CONTEXT, scriptTagPage({ ...ingest, url: browserOnly }, QUIET));
  await logAndMark(page, 'sent by the page');
  const handed = await handOver(page, 5_000);
  expect(handed!.detached, 'the page may be needed').toBe(false);
  const outcome = await handed!.deliver();
  expect(outcome).toMatchObject({ sent: posts.length, failed: 0 });
  // Each request once, from the page: its load's span and metrics too.
  expect(posts).toEqual(expect.arrayContaining(['/ingest/replay/chunk', '/otlp/v1/logs']));
  expect(new Set(posts).size).toBe(posts.length);
  expect((await storedLogs(ingest)).map((row) => row.body)).toEqual(['sent by the page']);
});

test('with svc down, a delivery ends and says nothing got through', async ({ page, ingest }) => {
  // Nothing listens on it.
  const closed = await freePort();
  await open(page, CONTEXT, scriptTagPage({ ...ingest, url: `http://127.0.0.1:${closed}` }, QUIET));
  await logAndMark(page, 'never stored');
  const outcome = await deliver(page, 500);
  // The page's own retries usually outlast the bound; in any case nothing was delivered.
  expect(outcome).toMatchObject({ sent: 0 });
  expect(outcome!.timedOut || outcome!.failed! > 0).toBe(true);
});

test('with svc hung, its bound ends a delivery: nothing else can', async ({ page, ingest }) => {
  // Takes connections and never answers: neither the page's requests nor those from Node.js settle, so the delivery
  // ends only through its bound (without it, the test would time out), and says so.
  const sockets = new Set<Socket>();
  const hung = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((listening) => hung.listen(0, '127.0.0.1', listening));
  try {
    const { port } = hung.address() as AddressInfo;
    await open(page, CONTEXT, scriptTagPage({ ...ingest, url: `http://127.0.0.1:${port}` }, QUIET));
    await logAndMark(page, 'never stored');
    expect(await deliver(page, 500)).toMatchObject({ sent: 0, timedOut: true });
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((closed) => hung.close(closed));
  }
});
