import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { build } from 'esbuild';
import type { LogItem, MetricItem, SpanItem, TelemetryItem } from '../../src/pipeline/items';
import { startIngestProxy } from '../support/ingest-proxy';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, hex, test } from './fixtures';

/**
 * The pipeline's page-hide path in real Chromium against the real reference server: what is queued when the page is
 * closed, or when the user starts to leave, is handed to the browser with keepalive fetches inside the 64 KiB quota,
 * in requests of at most ~60 KB, and read back through the query API. A recording proxy between page and server sees
 * each request as it arrives (beacons and keepalive requests report nothing to a closing page).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Browser entry: the real pipeline and page-lifecycle hook, started by the test with the ingest address. */
const ENTRY = `
import { createPipeline } from './src/pipeline/pipeline';
import { onPageHidden } from './src/pipeline/page-lifecycle';
import type { Pipeline } from './src/pipeline/types';
import type { TelemetryItem } from './src/pipeline/items';

interface BeaconAttempt { url: string; bytes: number; queued: boolean }
let pipeline: Pipeline | undefined;
const beacons: BeaconAttempt[] = [];
const warnings: string[] = [];

(window as unknown as { svcUnload: unknown }).svcUnload = {
  start(ingestUrl: string, apiKey: string) {
    pipeline = createPipeline({
      config: {
        apiKey, serviceName: 'web-app', appId: undefined, env: 'e2e', serviceVersion: '1.0.0',
        // Only the page-hide path sends in these tests.
        flushIntervalMs: 600000, maxQueueSize: 5000, requestTimeoutMs: 10000,
      },
      resource: { 'telemetry.sdk.name': '@svc/browser' },
      fetch: fetch.bind(globalThis),
      // The real navigator.sendBeacon; each attempt is noted so the test can see when the fallback was tried.
      sendBeacon: (url: string, data: BodyInit) => {
        const queued = navigator.sendBeacon(url, data);
        beacons.push({ url, bytes: new Blob([data as string]).size, queued });
        return queued;
      },
      ingestUrl: (path: string) => ingestUrl + path,
      debug: { warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) },
    });
    onPageHidden((target, type, listener, options) => target.addEventListener(type, listener, options), () => pipeline!.flushForUnload());
  },
  enqueue(items: TelemetryItem[]) {
    for (const item of items) pipeline!.enqueue(item);
  },
  beacons: () => beacons,
  warnings: () => warnings,
};
`;

let bundle = '';
test.beforeAll(async () => {
  const out = await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts', sourcefile: 'unload-entry.ts' },
    bundle: true,
    format: 'iife',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  bundle = out.outputFiles[0]!.text;
});

const NOW = Date.now();

function logs(sessionId: string, count: number, size: number): LogItem[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: 'log',
    timeMs: NOW + i,
    level: 'info',
    body: `unload-${i} ${'x'.repeat(size)}`,
    sessionId,
    attributes: { 'session.id': sessionId, index: i },
  }));
}

async function openPipelinePage(page: Page, origin: string, proxyUrl: string, ingest: TestServer): Promise<void> {
  await page.goto(origin);
  await page.addScriptTag({ content: bundle });
  await page.evaluate(([url, key]) => (window as any).svcUnload.start(url, key), [proxyUrl, ingest.ingestKey] as const);
}

const enqueue = (page: Page, items: TelemetryItem[]) =>
  page.evaluate((list) => (window as any).svcUnload.enqueue(list), items);

/** Bodies of the stored logs of a session (the query API pages newest first; 1000 is plenty here). */
async function storedLogBodies(ingest: TestServer, sessionId: string): Promise<string[]> {
  const res = await controlGet(ingest, `/logs?session_id=${sessionId}&limit=1000`);
  return res.body.data.map((row) => row.body as string);
}

test.describe('telemetry queued when the page goes away', () => {
  test('closing the page sends what is queued by keepalive fetch, including a value recorded on the final visibilitychange', async ({
    page,
    ingest,
    pageOrigin,
  }) => {
    const proxy = await startIngestProxy(ingest.url);
    try {
      await openPipelinePage(page, pageOrigin.origin, proxy.url, ingest);
      const sessionId = `sess-${hex(6)}`;
      const traceId = hex(16);
      const span: SpanItem = {
        kind: 'span',
        traceId,
        spanId: hex(8),
        name: 'browser.fetch GET',
        spanKind: 3,
        startMs: NOW,
        endMs: NOW + 5,
        sessionId,
        attributes: { 'session.id': sessionId },
        events: [],
        statusCode: 1,
        scope: { name: '@svc/browser' },
      };
      await enqueue(page, [...logs(sessionId, 60, 500), span]);
      // Like web-vitals finalising CLS: a capture listener on window, registered after the SDK's, records a value
      // when the page becomes hidden. The SDK's bubble-phase listener runs after it and sends that value too.
      await page.evaluate(
        ({ sessionId, now }) => {
          addEventListener(
            'visibilitychange',
            () => {
              if (document.visibilityState !== 'hidden') return;
              const cls: MetricItem = {
                kind: 'metric',
                name: 'CLS',
                value: 0.12,
                unit: '1',
                timeMs: now,
                sessionId,
                attributes: { 'session.id': sessionId },
              };
              (window as any).svcUnload.enqueue([cls]);
            },
            true,
          );
        },
        { sessionId, now: NOW },
      );

      await page.close({ runBeforeUnload: true });

      await expect.poll(async () => (await storedLogBodies(ingest, sessionId)).length, { timeout: 15_000 }).toBe(60);
      await expect
        .poll(async () => (await controlGet(ingest, `/spans?trace_id=${traceId}`)).body.data.length, {
          timeout: 10_000,
        })
        .toBe(1);
      await expect
        .poll(
          async () =>
            (await controlGet(ingest, `/metrics?session_id=${sessionId}&name=CLS`)).body.data.map((m) => m.value),
          { timeout: 10_000 },
        )
        .toEqual([0.12]);
      const bodies = await storedLogBodies(ingest, sessionId);
      expect(new Set(bodies).size).toBe(60);

      for (const post of proxy.posts()) {
        expect(post.bytes).toBeLessThanOrEqual(60_000);
        expect(post, 'a fetch with the key header, not a beacon').toMatchObject({
          apiKeyHeader: true,
          beacon: false,
          contentType: 'application/json',
          status: 200,
        });
      }
    } finally {
      await proxy.close();
    }
  });

  test('more than the 64 KiB keepalive budget: ~60 KB requests in waves within the budget, every record delivered once', async ({
    page,
    ingest,
    pageOrigin,
  }) => {
    // Answers are held back so that requests are still in flight when the next ones are due.
    const proxy = await startIngestProxy(ingest.url, { answerDelayMs: 150 });
    try {
      await openPipelinePage(page, pageOrigin.origin, proxy.url, ingest);
      const sessionId = `sess-${hex(6)}`;
      const items = logs(sessionId, 400, 500);
      await enqueue(page, items);
      // The user starts to leave a page with unsaved changes, then stays: beforeunload has flushed, and the page
      // lives on to send the rest as the budget frees. (Chromium shows the prompt only after a user gesture.)
      await page.evaluate(() =>
        addEventListener('beforeunload', (event) => {
          event.preventDefault();
          event.returnValue = '';
        }),
      );
      await page.mouse.click(5, 5);
      const prompted = page.waitForEvent('dialog').then((dialog) => dialog.dismiss());
      await page.close({ runBeforeUnload: true });
      await prompted;

      await expect.poll(async () => (await storedLogBodies(ingest, sessionId)).length, { timeout: 20_000 }).toBe(400);
      const indexes = (await storedLogBodies(ingest, sessionId)).map((b) =>
        Number(b.split(' ')[0]!.slice('unload-'.length)),
      );
      expect(indexes.sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
      expect(page.isClosed()).toBe(false);

      // The proxy holds each answer back 150 ms after ingest stored the request: the last answers may still be due.
      await expect
        .poll(() => proxy.posts().every((post) => post.status !== undefined), { message: 'every request answered' })
        .toBe(true);
      const posts = proxy.posts();
      expect(posts.length, 'the ~250 KB of logs went as several requests').toBeGreaterThanOrEqual(4);
      for (const post of posts) {
        expect(post.bytes).toBeLessThanOrEqual(60_000);
        expect(post.status).toBe(200);
      }
      expect(proxy.maxInFlight()).toBeLessThanOrEqual(64 * 1024);

      // Once the budget was spent, the beacon fallback was tried for the next request, with the key in the URL.
      // Chromium counts beacons against the same 64 KiB quota, so here it declines them while the keepalive requests
      // are in flight, and the records wait for the budget instead of being lost.
      const beacons: { url: string; bytes: number; queued: boolean }[] = await page.evaluate(() =>
        (window as any).svcUnload.beacons(),
      );
      expect(beacons.length).toBeGreaterThan(0);
      for (const b of beacons) {
        expect(b.url).toContain(`api_key=${encodeURIComponent(ingest.ingestKey)}`);
        expect(b.bytes).toBeLessThanOrEqual(60_000);
      }
      const viaBeacon = posts.filter((p) => p.beacon);
      expect(viaBeacon.length).toBe(beacons.filter((b) => b.queued).length);
      for (const p of viaBeacon) expect(p.contentType).toMatch(/^text\/plain/);
    } finally {
      await page.close();
      await proxy.close();
    }
  });
});
