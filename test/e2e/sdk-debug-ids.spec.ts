import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { injectFile } from '../../bundler-plugin/src/core/inject';
import type { TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';
import { openSdkPage, sdkOriginForFile, waitForLogs, type LogRow } from './support/sdk-page';

/**
 * Debug IDs from the page to the stored log (PLAN section 2): two scripts carry the snippet the build injects
 * (`@svc/build`'s own `injectFile`), which fills `globalThis._svcDebugIds` as they run; an error thrown in the first
 * script's function, called from the second, is recorded by each capture path with `svc.exception.debug_ids` naming
 * both files, `"<debug id> <script URL>"`. Real SDK (dist/cdn/svc.min.js) and real server, in Chromium.
 */

const origin = sdkOriginForFile();

/** The shop's library: its `formatTotal` throws a TypeError for a cart without a total. */
const LIBRARY_JS = `window.formatTotal = function (cart) {
  return cart.total.toFixed(2) + ' EUR';
};
`;

/** The page's own code, which calls into the library. */
const CHECKOUT_JS = `window.checkout = function (cart) {
  return 'Total: ' + window.formatTotal(cart);
};
`;

/** Script paths as a build emits them, with a cache-busting query as some servers add. */
const LIBRARY_PATH = '/assets/library-5e1a.js';
const CHECKOUT_PATH = '/assets/checkout-9b07.js?v=2';

interface Script {
  path: string;
  body: string;
  debugId: string;
}

/** Injects the scripts as the build does, in a scratch folder, and returns their served text and debug IDs. */
async function injectedScripts(): Promise<Script[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-debug-ids-'));
  try {
    const sources: Array<[path: string, code: string]> = [
      [LIBRARY_PATH, LIBRARY_JS],
      [CHECKOUT_PATH, CHECKOUT_JS],
    ];
    return await Promise.all(
      sources.map(async ([path, code], index) => {
        const file = join(dir, `${index}.js`);
        writeFileSync(file, code);
        const { debugId, injected } = await injectFile(file);
        expect(injected).toBe(true);
        return { path, body: readFileSync(file, 'utf8'), debugId };
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Opens the SDK's page, then loads the scripts into it one after the other, as a page loads its chunks. They are served
 * on the page's origin by routing their requests; the page itself comes from the origin's server (a document that
 * Playwright fulfilled would count as public and could not send to the loopback ingest server).
 */
async function openShop(page: Page, ingest: TestServer, scripts: readonly Script[]) {
  for (const script of scripts) {
    await page.route(
      (url) => url.origin === origin.origin && `${url.pathname}${url.search}` === script.path,
      (route) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: script.body }),
    );
  }
  const opened = await openSdkPage(page, origin, ingest);
  for (const { path } of scripts) {
    await page.evaluate(
      (src) =>
        new Promise((resolve, reject) => {
          const tag = Object.assign(document.createElement('script'), { src, onload: resolve, onerror: reject });
          document.head.append(tag);
        }),
      path,
    );
  }
  return opened;
}

test('every capture path sends the debug IDs of both scripts in the stack', async ({ page, ingest }) => {
  const scripts = await injectedScripts();
  const { sessionId } = await openShop(page, ingest, scripts);
  const expected = scripts.map((script) => `${script.debugId} ${origin.origin}${script.path}`);
  expect(
    await page.evaluate(() => Object.values((globalThis as { _svcDebugIds?: object })._svcDebugIds ?? {})),
  ).toEqual(scripts.map((script) => script.debugId));

  await page.evaluate(() => {
    type Shop = typeof window & { checkout(cart: object): string };
    const shop = window as Shop;
    const fail = (): string => shop.checkout({ items: 2 });
    try {
      fail();
    } catch (error) {
      shop.sdk.captureException(error);
    }
    try {
      fail();
    } catch (error) {
      console.error('checkout failed', error);
    }
    setTimeout(fail, 0);
    void Promise.resolve().then(fail);
  });

  const logs = await waitForLogs(ingest, sessionId, 4, (log) => log.severity_text === 'ERROR');
  const bySource = new Map<unknown, LogRow>(logs.map((log) => [log.attributes['log.source'], log]));
  expect([...bySource.keys()].sort()).toEqual(['console', 'onerror', 'unhandledrejection', undefined].sort());
  for (const [source, log] of bySource) {
    expect(log.attributes['exception.type'], String(source)).toBe('TypeError');
    expect(log.attributes['svc.exception.debug_ids'], String(source)).toEqual(expected);
  }
});

test('an error whose stack has no injected script carries no debug IDs', async ({ page, ingest }) => {
  const { sessionId } = await openShop(page, ingest, await injectedScripts());
  // app.js, the signals page's own script, was not injected.
  await page.evaluate(() =>
    (window as typeof window & { throwUncaught(message: string): void }).throwUncaught('from app.js'),
  );
  const [log] = await waitForLogs(ingest, sessionId, 1, (row) => row.body === 'TypeError: from app.js');
  expect(String(log!.attributes['exception.stacktrace'])).toContain('/app.js:');
  expect(Object.keys(log!.attributes)).not.toContain('svc.exception.debug_ids');
});
