import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, test, type ConsoleMessage, type Page } from '@playwright/test';
import { ensureSdkBuilt } from '../support/build-sdk';
import { logsBody } from '../support/otlp';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, startCliServer, type TestServer } from '../support/svc-server';

/**
 * The replay viewer page (`/viewer/`) in Chromium, on a session the real SDK recorded: a page with the script-tag
 * bundle is opened, typed into and clicked, and its replay chunks, logs and recipes reach a real server. The viewer
 * then has to play that replay (the recorded DOM renders in rrweb-player's sandboxed iframe, under the page's strict
 * Content-Security-Policy), list the session's errors, network steps and logs with rows that seek the player, and
 * render attacker-controlled telemetry as text.
 */

const MARKER = `Replay marker ${randomBytes(6).toString('hex')}`;
/** A log body that would run script if the viewer parsed it as HTML. */
const HOSTILE_LOG = `payment failed <img src=x onerror="window.__viewerInjected = true">`;

/** The recorded app: a form and a button whose click changes the page, logs an error and makes two requests. */
function appHtml(t: TestServer): string {
  const config = {
    apiKey: t.ingestKey,
    serviceName: t.appName,
    ingestUrl: t.url,
    flushIntervalMs: 200,
    replay: { flushIntervalMs: 500 },
  };
  return `<!doctype html><html><head><title>Checkout</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)}); console.info('checkout opened');</script></head>
<body>
<h1>Checkout</h1>
<p id="marker">${MARKER}</p>
<label>Name <input id="name"></label>
<button id="pay" type="button">Pay</button>
<p id="result">Not paid yet</p>
<script>window.parent.__recordedScriptRan = true;</script>
<img alt="" src="/missing.png" onerror="window.parent.__recordedHandlerRan = true">
<script>
document.getElementById('pay').addEventListener('click', async () => {
  document.getElementById('result').textContent = 'Payment declined';
  // The error is logged a moment after the page changed, so seeking to the error shows the change.
  await new Promise((resolve) => setTimeout(resolve, 100));
  console.error(${JSON.stringify(HOSTILE_LOG)});
  await fetch('/api/echo?status=500');
  await fetch('/api/echo?status=200');
});
</script>
</body></html>`;
}

let server: TestServer;
let app: SdkPageServer;
let sessionId: string;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  server = await startCliServer();
  app = await startSdkPage();
  app.setHtml(appHtml(server));

  const page = await browser.newPage();
  await page.goto(`${app.origin}/`);
  await page.locator('#name').pressSequentially('Ada Lovelace', { delay: 10 });
  // Some recorded time before the click, so that its rows sit visibly later on the replay's timeline.
  await page.waitForTimeout(1_500);
  await page.locator('#pay').click();
  await expect(page.locator('#result')).toHaveText('Payment declined');
  type Sdk = { sessionId: string; flushReplay(): Promise<void>; shutdown(): Promise<void> };
  sessionId = await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.sessionId);
  const stored = async () => {
    const { body } = await controlGet<{ data: Array<{ session_id: string; counts: { replay_chunks: number; logs: number; recipes: number } }> }>(server, '/sessions');
    const counts = body.data.find((s) => s.session_id === sessionId)?.counts;
    return Boolean(counts && counts.replay_chunks > 0 && counts.logs > 0 && counts.recipes >= 2);
  };
  // Everything the viewer will show has been stored: each flush sends what the timeline holds, and the recipe of a
  // request is added once its response is read, so flush until both recipes are there, then stop the SDK.
  await expect
    .poll(async () => {
      await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.flushReplay());
      return stored();
    }, { message: 'the session\'s replay chunks, logs and recipes stored', timeout: 20_000 })
    .toBe(true);
  await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.shutdown());
  await page.close();
});

test.afterAll(async () => {
  await app?.close();
  await server?.close();
});

/** Console messages and uncaught errors of the viewer page, to assert that nothing went wrong (CSP included). */
function watch(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message: ConsoleMessage) => {
    // The recorded page's missing image, and its onerror handler that the replay iframe's sandbox refuses to run.
    const expected = /Failed to load resource|Blocked script execution in .* sandboxed and the 'allow-scripts' permission is not set/;
    if (message.type() === 'error' && !expected.test(message.text())) problems.push(`console.error: ${message.text()}`);
    if (/Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return { problems };
}

const viewerUrl = (fragment: string) => `${server.url}/viewer/#${fragment}`;
const replayFrame = (page: Page) => page.frameLocator('.rr-player iframe');
/** rrweb-player's clock: the first `.rr-timeline__time` is the current time, `mm:ss`. */
const playerClock = (page: Page) => page.locator('.rr-timeline__time').first();

test('plays a recorded session with its errors, network steps and logs; rows seek the player', async ({ page }) => {
  const { problems } = watch(page);
  await page.goto(viewerUrl(`key=${encodeURIComponent(server.controlKey)}&session=${sessionId}`));

  // The key left the address bar (and history) for sessionStorage; the shareable part stays.
  await expect(page).toHaveURL(new RegExp(`/viewer/#session=${sessionId}$`));
  expect(await page.evaluate(() => sessionStorage.getItem('svc.viewer.controlKey'))).toBe(server.controlKey);

  // The recorded DOM renders inside the player's iframe, which rrweb sandboxes without allow-scripts.
  await expect(replayFrame(page).locator('#marker')).toHaveText(MARKER);
  await expect(page.locator('.rr-player iframe')).toHaveAttribute('sandbox', 'allow-same-origin');
  await expect(page.locator('#session-id')).toHaveText(sessionId);
  await expect(page.locator('#no-replay')).toBeHidden();

  // Errors: the console.error, as text. Network: both requests, from the recipes. Logs: every log of the session.
  const errorRow = page.locator('#errors-list button.row', { hasText: 'payment failed' });
  await expect(errorRow).toHaveCount(1);
  await expect(errorRow).toContainText(HOSTILE_LOG);
  await expect(page.locator('#errors-list img')).toHaveCount(0);
  await expect(page.locator('#network-list button.row', { hasText: '/api/echo?status=500 → 500' })).toHaveCount(1);
  await expect(page.locator('#network-list button.row', { hasText: '/api/echo?status=200 → 200' })).toHaveCount(1);
  await expect(page.locator('#logs-list button.row', { hasText: 'payment failed' })).toHaveCount(1);
  const logs = await controlGet<{ data: unknown[] }>(server, `/logs?session_id=${sessionId}&limit=1000`);
  await expect(page.locator('#logs-list button.row')).toHaveCount(logs.body.data.length);

  // Seeking: the error came about 1.5 s into the replay, after the click changed the page.
  const offsetMs = Number(await errorRow.getAttribute('data-offset-ms'));
  expect(offsetMs).toBeGreaterThanOrEqual(1_500);
  const errorClock = `00:${String(Math.floor(offsetMs / 1000)).padStart(2, '0')}`;
  await expect(playerClock(page)).toHaveText('00:00');
  await expect(replayFrame(page).locator('#result')).toHaveText('Not paid yet');
  await errorRow.click();
  await expect(errorRow).toHaveAttribute('aria-current', 'true');
  await expect(playerClock(page)).toHaveText(errorClock);
  await expect(replayFrame(page).locator('#result')).toHaveText('Payment declined');
  // Back to the start by keyboard, from the log the page wrote as it opened.
  const firstLog = page.locator('#logs-list button.row').first();
  await expect(firstLog).toContainText('checkout opened');
  await firstLog.focus();
  await page.keyboard.press('Enter');
  await expect(playerClock(page)).toHaveText('00:00');
  await expect(replayFrame(page).locator('#result')).toHaveText('Not paid yet');

  // Nothing recorded ran in the viewer: not the page's scripts, not its event handler attributes, not the log body.
  const ran = await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    return [w.__recordedScriptRan, w.__recordedHandlerRan, w.__viewerInjected];
  });
  expect(ran).toEqual([undefined, undefined, undefined]);
  expect(problems).toEqual([]);
});

test('lists sessions newest first and opens one from the list', async ({ page }) => {
  const { problems } = watch(page);
  // A newer session, with a log but no replay, lists above the recorded one.
  const other = randomBytes(16).toString('hex');
  const res = await fetch(`${server.url}/otlp/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
    // Logged now, so that it is the newer session.
    body: JSON.stringify(logsBody(server.appName, other, 'a session without replay')).replace('"1700000000000000000"', `"${Date.now()}000000"`),
  });
  expect(res.status).toBe(200);

  await page.goto(viewerUrl(`key=${encodeURIComponent(server.controlKey)}`));
  const rows = page.locator('#session-rows tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText(other);
  await expect(rows.nth(1)).toContainText(sessionId);
  await expect(rows.nth(1)).toContainText(server.appName);

  await rows.nth(1).getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`#session=${sessionId}$`));
  await expect(replayFrame(page).locator('#marker')).toHaveText(MARKER);

  // A session without replay says so, and still lists its logs (with nothing to seek).
  await page.goto(viewerUrl(`session=${other}`));
  await expect(page.locator('#no-replay')).toContainText('This session has no replay');
  await expect(page.locator('.rr-player')).toHaveCount(0);
  await expect(page.locator('#errors-list li', { hasText: 'a session without replay' })).toHaveCount(1);
  await expect(page.locator('#errors-list button')).toHaveCount(0);

  // Back to the list by its link.
  await page.getByRole('link', { name: '← All sessions' }).click();
  await expect(rows).toHaveCount(2);
  expect(problems).toEqual([]);
});

test('warns about replay chunks that never arrived, and still plays the rest', async ({ page }) => {
  // The recorded events again, as a new session in three chunks of which the middle one is never sent.
  const { body } = await controlGet<{ data: Array<{ events: Array<{ timestamp: number }> }> }>(server, `/replay/chunks?session_id=${sessionId}&limit=100`);
  const events = body.data.reverse().flatMap((chunk) => chunk.events);
  const gapped = randomBytes(16).toString('hex');
  const thirds = [events.slice(0, 2), events.slice(2, -2), events.slice(-2)];
  for (const seq of [0, 2]) {
    const part = thirds[seq]!;
    const res = await fetch(`${server.url}/ingest/replay/chunk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
      body: JSON.stringify({
        serviceName: server.appName,
        sessionId: gapped,
        replayId: 'replay-with-a-gap',
        seq,
        startTs: part[0]!.timestamp,
        endTs: part[part.length - 1]!.timestamp,
        eventCount: part.length,
        encoding: 'json',
        data: JSON.stringify(part),
      }),
    });
    expect(res.status).toBe(200);
  }

  await page.goto(viewerUrl(`key=${encodeURIComponent(server.controlKey)}&session=${gapped}`));
  await expect(replayFrame(page).locator('#marker')).toHaveText(MARKER);
  await expect(page.locator('#gaps')).toHaveText(/replay replay-with-a-gap: chunk 1\b/);
});

test('downloads the session as a Playwright test, fetched with the key', async ({ page }) => {
  await page.goto(viewerUrl(`key=${encodeURIComponent(server.controlKey)}&session=${sessionId}`));
  await expect(replayFrame(page).locator('#marker')).toHaveText(MARKER);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Playwright test' }).click()]);
  expect(download.suggestedFilename()).toBe(`session-${sessionId}.spec.ts`);
  const spec = readFileSync((await download.path())!, 'utf8');
  expect(spec).toContain('@playwright/test');
  expect(spec).toContain('/api/echo?status=500');
});

test('says so when the key is refused or the server cannot be reached', async ({ page }) => {
  await page.goto(viewerUrl(`key=svc_control_not-a-key&session=${sessionId}`));
  const error = page.getByRole('alert');
  await expect(error).toContainText('did not accept this control key (401');
  await expect(page.locator('#key-input')).toBeFocused();
  await expect(page.locator('.rr-player')).toHaveCount(0);

  // Typing the right key into the form opens the session.
  await page.locator('#key-input').fill(server.controlKey);
  await page.getByRole('button', { name: 'Use key' }).click();
  await expect(replayFrame(page).locator('#marker')).toHaveText(MARKER);
  await expect(error).toBeHidden();

  // The network failing is told apart from a bad key.
  await page.route('**/control-plane/**', (route) => route.abort('connectionrefused'));
  await page.goto(viewerUrl(''));
  await expect(error).toContainText('Could not reach the server');

  // Without any key the page asks for one.
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await expect(error).toContainText('Enter the control key');

  // The Content-Security-Policy is enforced, not only sent: an inline script put into the page does not run.
  const violation = page.waitForEvent('console', (message) => /Content Security Policy/.test(message.text()));
  const ran = await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true';
    document.body.append(script);
    return (window as unknown as { __inlineRan?: boolean }).__inlineRan;
  });
  expect(ran).toBeUndefined();
  await violation;
});
