import type { Page } from '@playwright/test';
import { INGEST_PATHS } from '../../wire/paths';
import { startIngestProxy, type IngestProxy } from '../support/ingest-proxy';
import { expect, test } from './fixtures';
import { autoApp } from './support/auto-app';
import { sdkPageForFile } from './support/sdk-page';

/**
 * Misconfiguration is loud once, even without `debug` (issue 17): the real SDK (dist/cdn/svc.min.js, `debug` off) in
 * Chromium against the real server, which answers a wrong key with 401, a key of the wrong scope with 403, an address
 * that is not ingest's with 404 and an unknown app with 422. A recording proxy in between counts the requests. Each
 * problem prints one `console.warn` naming the fix, however many signals hit it; 401, 403, 404 and 422 stop the signal.
 */

const app = sdkPageForFile();

interface Setup {
  apiKey: string;
  serviceName?: string;
  /** Appended to the proxy's address to make `ingestUrl`. */
  suffix?: string;
}

/** Opens the page with the SDK configured as given; resolves the `[svc]` warnings the page prints, as they come. */
async function openPage(page: Page, proxy: IngestProxy, setup: Setup): Promise<string[]> {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('[svc] ')) warnings.push(message.text());
  });
  const config = {
    apiKey: setup.apiKey,
    serviceName: setup.serviceName ?? 'web-app',
    ingestUrl: proxy.url + (setup.suffix ?? ''),
    flushIntervalMs: 100,
    replay: { enabled: false },
    vitals: { enabled: false },
  };
  app.setHtml(`<!doctype html><title>misconfig</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script><p>page</p>`);
  await page.goto(`${app.origin}/`);
  return warnings;
}

const log = (page: Page, body: string) => page.evaluate((text) => (window as any).sdk.log('info', text), body);

/** Waits for the first answer of ingest to the logs path (the SDK's start-up spans go to traces on their own). */
async function firstLogsAnswer(proxy: IngestProxy, path: string): Promise<number> {
  await expect
    .poll(() => proxy.posts(path).some((p) => p.status !== undefined), { message: `an answer to ${path}` })
    .toBe(true);
  return proxy.posts(path)[0]!.status!;
}

test('a wrong key: one warning naming "svc-server keys create", and logs stop after their first 401', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const warnings = await openPage(page, proxy, { apiKey: 'not-a-key' });
    await log(page, 'first');
    expect(await firstLogsAnswer(proxy, INGEST_PATHS.logs)).toBe(401);
    await log(page, 'second');
    // shutdown() flushes what is queued and resolves once every request settled: a second logs request would be seen.
    await page.evaluate(() => (window as any).sdk.shutdown());
    expect(proxy.posts(INGEST_PATHS.logs)).toHaveLength(1);
    // Traces (start-up spans) were refused too: still one warning for the one problem.
    expect(proxy.posts(INGEST_PATHS.traces).every((p) => p.status === 401)).toBe(true);
    expect(warnings).toEqual([
      expect.stringMatching(
        /HTTP 401 unauthorized: API key is not recognised\. .*svc-server keys create --scope ingest/,
      ),
    ]);
  } finally {
    await proxy.close();
  }
});

test('a control key as ingest key: one warning for the 403, and logs stop', async ({ page, ingest }) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const warnings = await openPage(page, proxy, { apiKey: ingest.controlKey });
    await log(page, 'first');
    expect(await firstLogsAnswer(proxy, INGEST_PATHS.logs)).toBe(403);
    await log(page, 'second');
    await page.evaluate(() => (window as any).sdk.shutdown());
    expect(proxy.posts(INGEST_PATHS.logs)).toHaveLength(1);
    expect(warnings).toEqual([
      expect.stringMatching(
        /HTTP 403 forbidden: .*Revoked, expired or not an ingest key: .*svc-server keys create --scope ingest/,
      ),
    ]);
  } finally {
    await proxy.close();
  }
});

test('an ingestUrl that is not the base of svc-server: one warning for the 404, and logs stop', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    // Under /otlp/ on purpose: ingest answers there with CORS headers, so the page can read the 404.
    const warnings = await openPage(page, proxy, { apiKey: ingest.ingestKey, suffix: '/otlp' });
    await log(page, 'first');
    expect(await firstLogsAnswer(proxy, `/otlp${INGEST_PATHS.logs}`)).toBe(404);
    await log(page, 'second');
    await page.evaluate(() => (window as any).sdk.shutdown());
    expect(proxy.posts(`/otlp${INGEST_PATHS.logs}`)).toHaveLength(1);
    expect(warnings).toEqual([
      expect.stringMatching(/HTTP 404 not_found: .*ingestUrl must be the base address of svc-server/),
    ]);
  } finally {
    await proxy.close();
  }
});

test('an unknown app: one warning naming "svc-server apps create <app>", and logs stop after the 422', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const warnings = await openPage(page, proxy, { apiKey: ingest.ingestKey, serviceName: 'shop-frontend' });
    await log(page, 'first');
    expect(await firstLogsAnswer(proxy, INGEST_PATHS.logs)).toBe(422);
    await log(page, 'second');
    await page.evaluate(() => (window as any).sdk.shutdown());
    expect(proxy.posts(INGEST_PATHS.logs)).toHaveLength(1);
    expect(warnings).toEqual([
      expect.stringMatching(/HTTP 422 unknown_service: .*"svc-server apps create shop-frontend"/),
    ]);
  } finally {
    await proxy.close();
  }
});

/** The `[svc]` warnings a page running `script` prints, once it has printed `[svc] done` (an event after the start). */
async function autoWarnings(page: Page, script: string): Promise<string[]> {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('[svc] ')) warnings.push(message.text());
  });
  app.setScript('/app.js', script);
  app.setHtml(
    '<!doctype html><title>auto</title><script src="/app.js"></script><script>console.warn("[svc] done")</script>',
  );
  await page.goto(`${app.origin}/`);
  await expect.poll(() => warnings.includes('[svc] done')).toBe(true);
  return warnings.filter((warning) => warning !== '[svc] done');
}

test('the script tag without data-ingest-url: one warning, as /auto gives, even without debug', async ({ page }) => {
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning' && message.text().startsWith('[svc] ')) warnings.push(message.text());
  });
  app.setHtml(`<!doctype html><title>script tag</title>
<script src="/svc.min.js" data-api-key="key" data-replay="false"></script><p>page</p>`);
  await page.goto(`${app.origin}/`);
  await expect
    .poll(() => warnings, { message: 'the warning' })
    .toEqual([expect.stringMatching(/^\[svc\] no ingest URL: set data-ingest-url to svc-server's address/)]);
});

test('/auto without a key or an ingest URL: one warning each, naming the variables, even without debug', async ({
  page,
}) => {
  const warnings = await autoWarnings(page, await autoApp({}));
  expect(warnings).toEqual([
    expect.stringMatching(
      /no API key: set VITE_SVC_API_KEY, NEXT_PUBLIC_SVC_API_KEY or REACT_APP_SVC_API_KEY .*svc-server keys create/,
    ),
    expect.stringMatching(
      /no ingest URL: set VITE_SVC_INGEST_URL, NEXT_PUBLIC_SVC_INGEST_URL or REACT_APP_SVC_INGEST_URL/,
    ),
  ]);
});

test('/auto with its key and ingest URL prints nothing', async ({ page, ingest }) => {
  const script = await autoApp({
    VITE_SVC_API_KEY: ingest.ingestKey,
    VITE_SVC_INGEST_URL: ingest.url,
    VITE_SVC_SERVICE_NAME: ingest.appName,
  });
  expect(await autoWarnings(page, script)).toEqual([]);
});
