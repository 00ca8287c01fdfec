import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { BrowserSDK } from '../../../src/core/types';
import { ensureSdkBuilt, ROOT } from '../../support/build-sdk';
import { startSdkPage, type SdkPageServer } from '../../support/sdk-page';
import { controlGet, type TestServer } from '../../support/svc-server';
import { expect, test } from '../fixtures';
import { APP_JS, signalsPageHtml } from './signals-page';
import { html, js, startStaticOrigin, type StaticOrigin } from './static-origin';

/**
 * The signals page with the real SDK: the CDN bundle (dist/cdn/svc.min.js, global `Svc`) on a page origin of its own,
 * started by `Svc.initBrowserSDK` before the app's code runs and sending to a reference server; and the control-plane
 * reads that assert what the server stored. Shared by the specs of the SDK's signals.
 */

declare global {
  interface Window {
    /** The SDK instance the page started (INIT_JS), or a test started after it. */
    sdk: BrowserSDK;
    /** Options the test sets with `page.addInitScript`, laid over the query's. */
    svcTestOptions?: Record<string, unknown>;
    /** The CDN bundle's global. */
    Svc: { initBrowserSDK(config: Record<string, unknown>): BrowserSDK };
  }
}

/**
 * Starts the SDK from the page's query string, as an app configures it at start-up: `key`, `ingest` and `app` are the
 * test project's, `options` (JSON) is laid over the defaults. A short flush interval makes records arrive quickly.
 */
const INIT_JS = `(function () {
  var params = new URLSearchParams(location.search);
  var config = {
    apiKey: params.get('key'),
    serviceName: params.get('app'),
    ingestUrl: params.get('ingest'),
    debug: true,
    flushIntervalMs: 100,
  };
  // Options JSON cannot carry (functions, RegExps) come from an init script the test adds: window.svcTestOptions.
  window.sdk = Svc.initBrowserSDK(Object.assign(config, JSON.parse(params.get('options') || '{}'), window.svcTestOptions));
})();
`;

/**
 * The signals page and the built SDK served for the tests of one spec file: started before them (building dist/ with
 * rollup when the sources changed since the last build), closed after them.
 */
export function sdkOriginForFile(): StaticOrigin {
  let started: StaticOrigin | undefined;
  test.beforeAll(async () => {
    test.setTimeout(300_000);
    started = await startSdkOrigin();
  });
  test.afterAll(async () => {
    await started?.close();
  });
  return {
    get origin() {
      return started!.origin;
    },
    close: async () => started?.close(),
  };
}

/**
 * The SDK page server (test/support/sdk-page.ts: the HTML a test sets, the built script-tag files, `/api/echo`) for
 * the tests of one spec file: the SDK built if stale and the server started before them, closed after them.
 */
export function sdkPageForFile(): SdkPageServer {
  let started: SdkPageServer | undefined;
  test.beforeAll(async () => {
    await ensureSdkBuilt();
    started = await startSdkPage();
  });
  test.afterAll(async () => {
    await started?.close();
  });
  const current = (): SdkPageServer => started!;
  return {
    get origin() {
      return current().origin;
    },
    get echoed() {
      return current().echoed;
    },
    setHtml: (html) => current().setHtml(html),
    setScript: (path, body) => current().setScript(path, body),
    close: async () => started?.close(),
  };
}

/** Serves the signals page with the SDK on every path but `/elsewhere`, a page without it; builds dist/ if stale. */
export async function startSdkOrigin(): Promise<StaticOrigin> {
  await ensureSdkBuilt();
  return startStaticOrigin(
    {
      '/svc.min.js': js(readFileSync(join(ROOT, 'dist/cdn/svc.min.js'), 'utf8')),
      // svc.min.js loads the recorder from beside itself once replay starts.
      '/svc-recorder.min.js': js(readFileSync(join(ROOT, 'dist/cdn/svc-recorder.min.js'), 'utf8')),
      '/init.js': js(INIT_JS),
      '/app.js': js(APP_JS),
      '/elsewhere': html('<!doctype html><title>Elsewhere</title><p>Another page, without the SDK.</p>'),
    },
    html(signalsPageHtml(['/svc.min.js', '/init.js'])),
  );
}

export type Row = Record<string, unknown> & {
  attributes: Record<string, unknown>;
  session_id: string | null;
  app: string;
};
export type LogRow = Row & {
  body: unknown;
  severity_text: string;
  severity_number: number;
  trace_id: string | null;
  span_id: string | null;
};
export type MetricRow = Row & { name: string; unit: string | null; value: number };

export async function rows<T>(ingest: TestServer, path: string): Promise<T[]> {
  const res = await controlGet<{ data: T[] }>(ingest, path);
  expect(res.status, `GET /control-plane${path}`).toBe(200);
  return res.body.data;
}

/** Waits until `select` finds `count` rows of the listing (oldest first), then returns them. */
export async function waitForRows<T>(
  ingest: TestServer,
  path: string,
  count: number,
  select: (row: T) => boolean = () => true,
): Promise<T[]> {
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

/** The stored logs of a session, oldest first, once `count` of them (selected by `select`) are there. */
export const waitForLogs = (ingest: TestServer, sessionId: string, count: number, select?: (row: LogRow) => boolean) =>
  waitForRows<LogRow>(ingest, `/logs?session_id=${sessionId}&limit=1000`, count, select);

/** The stored metrics of a session other than Web Vitals, oldest first, once `count` of them are there. */
export const waitForMetrics = (ingest: TestServer, sessionId: string, count: number) =>
  waitForRows<MetricRow>(
    ingest,
    `/metrics?session_id=${sessionId}&limit=1000`,
    count,
    (m) => !m.name.startsWith('web_vital_'),
  );

/** The stored Web Vitals of a session, once `count` of them are there. */
export const waitForVitals = (ingest: TestServer, sessionId: string, count: number) =>
  waitForRows<MetricRow>(ingest, `/metrics?session_id=${sessionId}&limit=1000`, count, (m) =>
    m.name.startsWith('web_vital_'),
  );

export interface NavigationPayload {
  url: string;
  title: string;
  trigger: string;
}

/** Sends the buffered replay events, then waits until the session's stored timeline has `count` navigation events. */
export async function waitForNavigations(
  page: Page,
  ingest: TestServer,
  sessionId: string,
  count: number,
): Promise<NavigationPayload[]> {
  // Titles are read after the next frame: wait for two before sending what the timeline buffered.
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))),
  );
  await page.evaluate(() => window.sdk.flushReplay());
  type Chunk = { events: Array<{ type: number; data?: { tag?: string; payload?: NavigationPayload } }> };
  let navigations: NavigationPayload[] = [];
  await expect
    .poll(
      async () => {
        const chunks = await rows<Chunk>(ingest, `/replay/chunks?session_id=${sessionId}&limit=100`);
        navigations = chunks
          .reverse()
          .flatMap((chunk) => chunk.events)
          // rrweb custom events (type 5) carry the SDK's timeline events.
          .filter((event) => event.type === 5 && event.data?.tag === 'navigation')
          .map((event) => event.data!.payload!);
        return navigations.length;
      },
      { message: `${count} navigation event(s) stored`, timeout: 15_000 },
    )
    .toBeGreaterThanOrEqual(count);
  return navigations;
}

/** Shifts the signals page's layout and resolves once the browser has recorded the shift (its performance entry). */
export async function shiftLayoutRecorded(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        new PerformanceObserver((_list, observer) => {
          observer.disconnect();
          resolve();
        }).observe({ type: 'layout-shift' });
        (window as unknown as { shiftLayout(): void }).shiftLayout();
      }),
  );
}

export interface Observed {
  consoleLines: Array<{ type: string; text: string }>;
  pageErrors: string[];
  sessionId: string;
}

/**
 * Opens `path` of `origin` with the SDK configured for `ingest` (and `options` on top), recording what the page printed
 * and threw.
 */
export async function openSdkPage(
  page: Page,
  origin: StaticOrigin,
  ingest: TestServer,
  options: Record<string, unknown> = {},
  path = '/',
): Promise<Observed> {
  const consoleLines: Observed['consoleLines'] = [];
  const pageErrors: string[] = [];
  page.on('console', (message) => consoleLines.push({ type: message.type(), text: message.text() }));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const query = new URLSearchParams({
    key: ingest.ingestKey,
    ingest: ingest.url,
    app: ingest.appName,
    options: JSON.stringify(options),
  });
  await page.goto(`${origin.origin}${path}?${query.toString()}`);
  const sessionId = await page.evaluate(() => window.sdk.sessionId);
  expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
  return { consoleLines, pageErrors, sessionId };
}
