import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ROOT, ensureSdkBuilt } from '../support/build-sdk';
import { controlGet, type TestServer } from '../support/svc-server';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import type { BrowserSDK } from '../../src/core/types';

/** The script-tag build's global, as the pages below use it. */
declare const Svc: { getSDK(): BrowserSDK | null };

/**
 * The script-tag build's on-demand recorder in Chromium: `svc.min.js` comes without rrweb and injects
 * `svc-recorder.min.js` (from beside itself, or from `data-recorder-src`) only once replay starts; chunks recorded
 * with it reach the server. When the recorder cannot be had (missing file, another release's file) the SDK says so
 * in its debug output and every other signal keeps working.
 */

type ChunkRow = { replay_id: string; seq: number; events: Array<{ type: number; data: unknown }> };
type LogRow = { body: unknown };

const RRWEB_META = 4;
const RRWEB_FULL_SNAPSHOT = 2;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let app: SdkPageServer;
test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
});
test.afterAll(() => app.close());

/** A page starting the SDK from its script tag's data- attributes; `attributes` adds to or overrides them. */
function scriptTagPage(ingest: TestServer, attributes = ''): string {
  return `<!doctype html><title>cdn recorder</title>
<script src="/svc.min.js" data-api-key="${ingest.ingestKey}" data-ingest-url="${ingest.url}" data-debug ${attributes}></script>
<main><h1>Script-tag shop</h1><p id="text">Recorded through svc-recorder.min.js</p></main>`;
}

interface Opened {
  /** Paths the page requested from the page origin, in order. */
  paths: string[];
  /** The SDK's own console lines (`[svc] ...`). */
  svcLines: string[];
  pageErrors: string[];
}

async function open(page: Page, html: string): Promise<Opened> {
  const opened: Opened = { paths: [], svcLines: [], pageErrors: [] };
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === app.origin) opened.paths.push(url.pathname);
  });
  page.on('console', (message) => {
    if (message.text().startsWith('[svc]')) opened.svcLines.push(message.text());
  });
  page.on('pageerror', (error) => opened.pageErrors.push(error.message));
  app.setHtml(html);
  await page.goto(`${app.origin}/`);
  return opened;
}

/** Flushes the replay buffer until the server holds a chunk with a full snapshot; returns the session's chunks. */
async function recordedChunks(page: Page, ingest: TestServer): Promise<ChunkRow[]> {
  const sessionId = await page.evaluate(() => Svc.getSDK()!.sessionId);
  let chunks: ChunkRow[] = [];
  await expect
    .poll(
      async () => {
        await page.evaluate(() => Svc.getSDK()!.flushReplay());
        chunks = (await controlGet<{ data: ChunkRow[] }>(ingest, `/replay/chunks?session_id=${sessionId}&limit=100`))
          .body.data;
        return chunks.some((chunk) => chunk.events.some((event) => event.type === RRWEB_FULL_SNAPSHOT));
      },
      { message: 'a chunk with a full snapshot stored', timeout: 15_000 },
    )
    .toBe(true);
  return chunks;
}

/**
 * Logs and waits until the server has it (the SDK sends every 2 s): the SDK runs, and its start-up, which starts the
 * recorder's load, is well past.
 */
async function logArrives(page: Page, ingest: TestServer, body: string): Promise<void> {
  await page.evaluate((text) => Svc.getSDK()!.log('info', text), body);
  await expect
    .poll(
      async () =>
        (await controlGet<{ data: LogRow[] }>(ingest, '/logs?limit=100')).body.data.some((row) => row.body === body),
      {
        message: `log "${body}" stored`,
        timeout: 15_000,
      },
    )
    .toBe(true);
}

test('svc.min.js injects svc-recorder.min.js from beside itself once replay starts, and its chunks arrive', async ({
  page,
  ingest,
}) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const initiators = new Map<string, { type: string; urls: string[] }>();
  cdp.on('Network.requestWillBeSent', (event) => {
    const frames = event.initiator.stack?.callFrames ?? [];
    initiators.set(new URL(event.request.url).pathname, {
      type: event.initiator.type,
      urls: frames.map((frame) => frame.url),
    });
  });
  const opened = await open(page, scriptTagPage(ingest));

  const chunks = await recordedChunks(page, ingest);
  const events = chunks.flatMap((chunk) => chunk.events);
  expect(events.some((event) => event.type === RRWEB_META)).toBe(true);
  expect(JSON.stringify(events)).toContain('Recorded through svc-recorder.min.js');

  // Requested once, after svc.min.js, by svc.min.js's own code rather than by the page's HTML.
  expect(opened.paths.filter((path) => path.endsWith('.js'))).toEqual(['/svc.min.js', '/svc-recorder.min.js']);
  const initiator = initiators.get('/svc-recorder.min.js');
  expect(initiator?.type).toBe('script');
  expect(initiator?.urls).toContain(`${app.origin}/svc.min.js`);
  // The tag is removed once it has run, before recording starts.
  expect(await page.locator('script[src$="svc-recorder.min.js"]').count()).toBe(0);
  expect(opened.svcLines.filter((line) => line.includes('could not start'))).toEqual([]);
  expect(opened.pageErrors).toEqual([]);
});

test('Svc.init() in code finds the recorder beside svc.min.js too, with the CSP nonce of svc.min.js', async ({
  page,
  ingest,
}) => {
  const nonce = 'cdn-recorder-test';
  const config = { apiKey: ingest.ingestKey, serviceName: 'web-app', ingestUrl: ingest.url, debug: true };
  const opened = await open(
    page,
    `<!doctype html><title>cdn recorder, csp</title>
<meta http-equiv="Content-Security-Policy" content="script-src 'nonce-${nonce}'">
<script nonce="${nonce}" src="/svc.min.js"></script>
<script nonce="${nonce}">Svc.init(${JSON.stringify(config)});</script>
<p>Recorded under a nonce policy</p>`,
  );
  const chunks = await recordedChunks(page, ingest);
  expect(JSON.stringify(chunks)).toContain('Recorded under a nonce policy');
  expect(opened.paths).toContain('/svc-recorder.min.js');
  expect(opened.pageErrors).toEqual([]);
});

test('with data-replay="false" the recorder is never requested', async ({ page, ingest }) => {
  const opened = await open(page, scriptTagPage(ingest, 'data-replay="false"'));
  await logArrives(page, ingest, 'replay is off');
  expect(opened.paths).toContain('/svc.min.js');
  expect(opened.paths).not.toContain('/svc-recorder.min.js');
  expect(opened.svcLines).toEqual([]);
});

for (const [why, policy] of [
  ['is not found', ''],
  [
    "is blocked by the page's Content-Security-Policy",
    `<meta http-equiv="Content-Security-Policy" content="script-src 'self'">`,
  ],
] as const) {
  test(`a recorder that ${why} is reported in debug output and every other signal keeps working`, async ({
    page,
    ingest,
  }) => {
    // On the ingest server's origin: a real 404 there, and not 'self' for the policy.
    const missing = `${ingest.url}/missing/svc-recorder.min.js`;
    const opened = await open(page, policy + scriptTagPage(ingest, `data-recorder-src="${missing}"`));
    await expect
      .poll(() => opened.svcLines.find((line) => line.includes('session replay could not start')))
      .toContain(`could not load the session recorder from ${missing}`);
    await logArrives(page, ingest, `still logging when the recorder ${why}`);
    expect(opened.pageErrors).toEqual([]);
  });
}

test("another release's recorder file is refused with a message naming both versions", async ({ page, ingest }) => {
  const recorder = readFileSync(join(ROOT, 'dist/cdn/svc-recorder.min.js'), 'utf8');
  const other = recorder.replaceAll(JSON.stringify(VERSION), JSON.stringify('0.0.0-other'));
  expect(other, 'the recorder file carries its version as a string literal').not.toBe(recorder);
  app.setScript('/other/svc-recorder.min.js', other);

  const opened = await open(page, scriptTagPage(ingest, 'data-recorder-src="/other/svc-recorder.min.js"'));
  await expect
    .poll(() => opened.svcLines.find((line) => line.includes('session replay could not start')))
    .toContain(`is the session recorder of @svc/browser 0.0.0-other, but this SDK is ${VERSION}`);
  await logArrives(page, ingest, 'still logging with the wrong recorder');
  expect(opened.pageErrors).toEqual([]);
});
