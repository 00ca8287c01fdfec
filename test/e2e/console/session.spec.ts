import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, test, type ConsoleMessage, type Page } from '@playwright/test';
import { ensureSdkBuilt } from '../../support/build-sdk';
import { logsBody } from '../../support/otlp';
import { click, el, pageLoad, txt } from '../../support/rrweb';
import { startSdkPage, type SdkPageServer } from '../../support/sdk-page';
import { controlGet, startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, recordRequestUrls, screenshot, signIn } from './support';

/**
 * The Session page (`/session/:id`) in Chromium, on a session the real SDK (script-tag build) recorded: a checkout
 * page is typed into and clicked (the click changes the page, logs an error with a hostile string and makes a failing
 * and a succeeding request), a button is clicked three times quickly (a rage click) and the page navigates with
 * pushState. The page must play that replay in rrweb's sandboxed iframe, show the page address at the playback time,
 * mark clicks, rage clicks, errors and navigations, and list the session's records in panes that follow playback.
 */

const MARKER = `Replay marker ${randomBytes(6).toString('hex')}`;
/** A log body that would run script if the console parsed it as HTML. */
const HOSTILE = `payment failed <img src=x onerror="window.__injected = true">`;

function appHtml(t: CliServer): string {
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
<h1 id="heading">Checkout</h1>
<p id="marker">${MARKER}</p>
<label>Name <input id="name"></label>
<button id="pay" type="button">Pay</button>
<button id="rage" type="button">Apply coupon</button>
<button id="next" type="button">Go to cart</button>
<p id="result">Not paid yet</p>
<script>window.parent.__recordedScriptRan = true;</script>
<img alt="" src="/missing.png" onerror="window.parent.__recordedHandlerRan = true">
<script>
function chargeCard() { return new Error('card declined'); }
document.getElementById('pay').addEventListener('click', async () => {
  document.getElementById('result').textContent = 'Payment declined';
  // The error is logged a moment after the page changed, so seeking to the error shows the change.
  await new Promise((resolve) => setTimeout(resolve, 100));
  console.error(${JSON.stringify(HOSTILE)}, chargeCard());
  await fetch('/api/echo?status=500');
  await fetch('/api/echo?status=200', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ item: 'book' }) });
});
document.getElementById('next').addEventListener('click', () => {
  history.pushState({}, '', '/cart');
  document.getElementById('heading').textContent = 'Cart';
});
</script>
</body></html>`;
}

let server: CliServer;
let app: SdkPageServer;
let sessionId: string;

interface ReplayAnswer {
  events: Array<{ type: number; timestamp: number; data?: { tag?: string } }>;
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  server = await startCliServer();
  app = await startSdkPage();
  app.setHtml(appHtml(server));

  const page = await browser.newPage();
  await page.goto(`${app.origin}/`);
  await page.locator('#name').pressSequentially('Ada Lovelace', { delay: 10 });
  // Recorded time before the click, so that its rows sit visibly later on the replay's timeline (not a wait for anything).
  await page.waitForTimeout(1_500);
  await page.locator('#pay').click();
  await expect(page.locator('#result')).toHaveText('Payment declined');
  const box = (await page.locator('#rage').boundingBox())!;
  for (let i = 0; i < 3; i++) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.locator('#next').click();
  await expect(page).toHaveURL(`${app.origin}/cart`);
  type Sdk = { sessionId: string; flushReplay(): Promise<void>; shutdown(): Promise<void> };
  sessionId = await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.sessionId);
  const stored = async () => {
    const { body } = await controlGet<{
      counts: { replay_chunks: number; logs: number; recipes: number; spans: number; metric_points: number };
    }>(server, `/sessions/${sessionId}`);
    const c = body.counts;
    if (!c || c.replay_chunks === 0 || c.logs === 0 || c.recipes < 2 || c.spans === 0 || c.metric_points === 0)
      return false;
    const replay = await controlGet<ReplayAnswer>(server, `/sessions/${sessionId}/replay?limit=200`);
    return replay.body.events.some((e) => e.type === 5 && e.data?.tag === 'navigation');
  };
  // Each flush sends what the timeline holds; a request's recipe is added once its response is read.
  await expect
    .poll(
      async () => {
        await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.flushReplay());
        return stored();
      },
      {
        message: "the session's replay (with its navigation), logs, recipes, spans and vitals stored",
        timeout: 30_000,
      },
    )
    .toBe(true);
  await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.shutdown());
  await page.close();
});

test.afterAll(async () => {
  await app?.close();
  await server?.close();
});

/** Console errors and uncaught errors of the console page (CSP violations included). */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message: ConsoleMessage) => {
    // The recorded page's inline handlers and scripts, which the replay iframe's sandbox refuses to run.
    const expected =
      /Failed to load resource|Blocked script execution in .* sandboxed and the 'allow-scripts' permission is not set/;
    if (message.type() === 'error' && !expected.test(message.text())) problems.push(`console.error: ${message.text()}`);
  });
  return problems;
}

const frame = (page: Page) => page.frameLocator('.replay-frame iframe');
const urlBar = (page: Page) => page.getByTestId('replay-url');
/** The playback clock `+m:ss.s / +m:ss.s`, read as ms of its first part. */
async function clockMs(page: Page): Promise<number> {
  const text = (await page.locator('.controls .clock').textContent()) ?? '';
  const m = /^\+(\d+):(\d+\.\d)/.exec(text);
  return m ? Number(m[1]) * 60_000 + Number(m[2]) * 1000 : NaN;
}
const tab = (page: Page, name: string) => page.getByRole('tab', { name: new RegExp(`^${name}`) });

async function openSession(page: Page, query = ''): Promise<void> {
  await signIn(page, server, { path: `/session/${sessionId}${query}` });
  await expect(frame(page).locator('#marker')).toHaveText(MARKER);
}

test('plays the recorded session: address bar, markers, panes that seek and follow playback; hostile text stays text', async ({
  page,
}, testInfo) => {
  const problems = watch(page);
  const urls = recordRequestUrls(page);
  await openSession(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Session');
  await expect(page.locator('.replay-frame iframe')).toHaveAttribute('sandbox', 'allow-same-origin');
  await expect(page.locator('.session-facts')).toContainText(server.appName);
  await expect(urlBar(page)).toHaveText(`${app.origin}/`);

  // Markers: plain clicks, one rage click (three clicks within a second), the error, the navigation.
  await expect(page.locator('.marker[data-kind="rage"]')).toHaveCount(1);
  await expect(page.locator('.marker[data-kind="rage"]')).toHaveAccessibleName(/Rage click at .*3 clicks/);
  expect(await page.locator('.marker[data-kind="click"]').count()).toBeGreaterThanOrEqual(2);
  await expect(page.getByRole('button', { name: /^Error at .*payment failed/ })).toHaveCount(1);
  const navigation = page.locator('.marker[data-kind="navigation"]');
  await expect(navigation).toHaveCount(1);
  await navigation.click();
  await expect(urlBar(page)).toHaveText(`${app.origin}/cart`);
  await expect(frame(page).locator('#heading')).toHaveText('Cart');

  // Errors: the hostile message as text, its type and the stack's frames.
  await tab(page, 'Errors').click();
  const errorRow = page.getByRole('list', { name: 'Errors' }).getByRole('button', { name: /payment failed/ });
  await expect(errorRow).toHaveCount(1);
  await expect(errorRow).toContainText(HOSTILE);
  await errorRow.click();
  await expect(page.getByRole('list', { name: 'Frames in the app' })).toContainText('chargeCard');
  await expect(page.getByRole('list', { name: 'Frames in the app' })).toContainText(`${app.origin}/:`);
  await expect(page.locator('.tab-panel img')).toHaveCount(0);

  // A row seeks: the clock moves to the row's time, the replayed page shows the change, the row is current.
  const offset = Number(await errorRow.getAttribute('data-offset-ms'));
  expect(offset).toBeGreaterThanOrEqual(1_500);
  await errorRow.click();
  await expect(errorRow).toHaveAttribute('aria-current', 'time');
  await expect.poll(async () => Math.abs((await clockMs(page)) - offset)).toBeLessThanOrEqual(100);
  await expect(frame(page).locator('#result')).toHaveText('Payment declined');
  await expect(urlBar(page)).toHaveText(`${app.origin}/`);

  // Back to the start by keyboard from the first console row; then playback passes later rows, which light up.
  await tab(page, 'Console').click();
  const logs = page.getByRole('list', { name: 'Console and logs' }).getByRole('button');
  await expect(logs.first()).toContainText('checkout opened');
  await logs.first().focus();
  await page.keyboard.press('Enter');
  await expect(frame(page).locator('#result')).toHaveText('Not paid yet');
  const errorLog = page.getByRole('list', { name: 'Console and logs' }).getByRole('button', { name: /payment failed/ });
  await expect(errorLog).not.toHaveAttribute('aria-current', 'time');
  await page.getByRole('group', { name: 'Speed' }).getByRole('button', { name: '4×' }).click();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  // The error's row is current for a few ms only (the request logs follow it): playback passing the last request's
  // log, later in the replay, shows the highlight moved along.
  const laterLog = page.getByRole('list', { name: 'Console and logs' }).getByRole('button', { name: /status=200/ });
  await expect(laterLog).toHaveAttribute('aria-current', 'time');
  await expect(logs.first()).not.toHaveAttribute('aria-current', 'time');
  await expect(frame(page).locator('#result')).toHaveText('Payment declined');

  // Network: both requests from the recipes; a row opens its headers, body and timing.
  await tab(page, 'Network').click();
  const failed = page.getByRole('list', { name: 'Network requests' }).getByRole('button', { name: /status=500/ });
  await expect(failed).toContainText('500');
  const post = page.getByRole('list', { name: 'Network requests' }).getByRole('button', { name: /POST .*status=200/ });
  await post.click();
  await expect(post).toHaveAttribute('aria-expanded', 'true');
  const detail = page.locator('.request-detail');
  await expect(detail.getByRole('heading', { name: 'Response headers' })).toBeVisible();
  await expect(detail.getByRole('table', { name: 'Response headers' })).toContainText('content-type');
  await expect(detail.getByRole('table', { name: 'Request headers' })).toContainText('content-type');
  await expect(detail.locator('pre.body').first()).toContainText('book');
  await expect(detail).toContainText('Duration');
  await screenshot(page, testInfo, 'session-network');

  // Traces: the session's spans as a waterfall; a span shows its attributes.
  await tab(page, 'Traces').click();
  const spans = page.getByRole('list', { name: 'Spans' }).getByRole('button');
  expect(await spans.count()).toBeGreaterThan(0);
  await spans.first().click();
  await expect(page.locator('.waterfall-detail')).toContainText('Attributes');

  // Vitals: each with its value, rating and page.
  await tab(page, 'Vitals').click();
  const vitals = page.getByRole('list', { name: 'Web Vitals' }).getByRole('button');
  expect(await vitals.count()).toBeGreaterThan(0);
  await expect(vitals.first()).toContainText(/FCP|TTFB|LCP|CLS|INP/);
  await expect(vitals.first()).toContainText(/good|needs improvement|poor/i);
  await expect(vitals.first()).toContainText('/');

  // Nothing recorded ran here: not the recorded page's scripts, not the hostile log body.
  const ran = await page.evaluate(() => {
    const w = window as unknown as Record<string, unknown>;
    return [w.__recordedScriptRan, w.__recordedHandlerRan, w.__injected];
  });
  expect(ran).toEqual([undefined, undefined, undefined]);
  expect(urls.filter((u) => u.includes(server.controlKey))).toEqual([]);
  // The replay iframe holds the recorded app's DOM, not the console's: its accessibility is the app's business.
  await tab(page, 'Console').click();
  await expectAccessible(page, ['.replay-frame iframe']);
  expect(problems).toEqual([]);
});

test('the player: replay and controls on one 1280x800 screen, the recorded page filling the frame, markers on the scrubber, full screen; traces named by what started them', async ({
  page,
}, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openSession(page);
  const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
  // One screen: the frame and every control under it end inside the window, nothing scrolled.
  const controls = await box('.controls');
  expect(controls.y + controls.height).toBeLessThanOrEqual(800);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);

  // The frame has the recorded viewport's shape, and the recorded page, scaled, fills it.
  const { body } = await controlGet<ReplayAnswer>(server, `/sessions/${sessionId}/replay?limit=200`);
  const viewport = body.events.find((e) => e.type === 4)!.data as unknown as { width: number; height: number };
  const player = await box('.rr-player');
  expect(Math.abs(player.width / player.height - viewport.width / viewport.height)).toBeLessThan(0.02);
  const page0 = await box('.replayer-wrapper');
  expect(Math.abs(page0.width - player.width)).toBeLessThanOrEqual(2);
  expect(Math.abs(page0.height - player.height)).toBeLessThanOrEqual(2);

  // Markers sit on the scrubber at their moments: each centred over its time on the rail, the first on the rail itself.
  const rail = await box('.scrub-rail');
  const total = await page.locator('.scrubber').evaluate((el) => Number((el as HTMLInputElement).max));
  const markers = page.locator('.marker');
  const at = async (i: number) => {
    const name = (await markers.nth(i).getAttribute('aria-label')) ?? '';
    const m = /at \+(\d+):(\d+\.\d)/.exec(name)!;
    return Number(m[1]) * 60_000 + Number(m[2]) * 1000;
  };
  expect(await markers.count()).toBeGreaterThanOrEqual(4);
  // The names give times in tenths of a second: a marker may be up to 50 ms off the time read back.
  const slack = 2 + (rail.width * 50) / total;
  for (let i = 0; i < (await markers.count()); i++) {
    const b = (await markers.nth(i).boundingBox())!;
    expect(
      Math.abs(b.x + b.width / 2 - (rail.x + (rail.width * (await at(i))) / total)),
      `marker ${i}`,
    ).toBeLessThanOrEqual(slack);
  }
  const first = (await markers.first().boundingBox())!;
  expect(first.y + first.height / 2).toBeGreaterThanOrEqual(rail.y - 1);
  expect(first.y + first.height / 2).toBeLessThanOrEqual(rail.y + rail.height + 1);
  await screenshot(page, testInfo, 'session');

  // Full screen: the replay and its controls take the screen, the frame grows; leaving it restores the page.
  await page.getByRole('button', { name: 'Full screen' }).click();
  await expect.poll(() => page.evaluate(() => document.fullscreenElement?.className)).toBe('replay-stage');
  await expect(page.getByRole('button', { name: 'Exit full screen' })).toBeVisible();
  await expect.poll(async () => (await box('.rr-player')).height).toBeGreaterThan(player.height + 100);
  const full = await box('.controls');
  expect(full.y + full.height).toBeLessThanOrEqual(800);
  await page.getByRole('button', { name: 'Exit full screen' }).click();
  await expect.poll(() => page.evaluate(() => document.fullscreenElement)).toBeNull();
  await expect.poll(async () => Math.round((await box('.rr-player')).height)).toBe(Math.round(player.height));

  // The session's traces, listed by what started them: the page load, the clicks by their buttons' names.
  await page.goto(`${server.url}/traces`);
  const started = page.getByRole('table', { name: 'Traces' });
  // A link's name is the label, then the root span's own name when it differs.
  const link = (label: string) =>
    started.getByRole('link', { name: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}( span .*)?$`) });
  for (const label of ['load /', 'click on Pay', 'click on Go to cart → /cart'])
    await expect(link(label), label).toHaveCount(1);
  await expect(link('click on Apply coupon')).toHaveCount(3);
});

test('inactive stretches of a replay are shaded on the scrubber', async ({ page }) => {
  // A page clicked at 1 s, then nothing for 30 s, then clicked twice: one inactive stretch, from 1 s to 31 s.
  const idle = randomBytes(16).toString('hex');
  const t0 = Date.now() - 60_000;
  const events = [
    ...pageLoad('https://shop.example.com/idle', t0, el(4, 'button', { id: 'go' }, txt(5, 'Go'))),
    click(4, t0 + 1_000),
    click(4, t0 + 31_000),
    click(4, t0 + 32_000),
  ];
  const res = await fetch(`${server.url}/ingest/replay/chunk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
    body: JSON.stringify({
      serviceName: server.appName,
      sessionId: idle,
      replayId: 'idle-replay',
      seq: 0,
      startTs: t0,
      endTs: t0 + 32_000,
      eventCount: events.length,
      encoding: 'json',
      data: JSON.stringify(events),
    }),
  });
  expect(res.status).toBe(200);
  await signIn(page, server, { path: `/session/${idle}` });
  const shaded = page.locator('.scrub-inactive');
  await expect(shaded).toHaveCount(1);
  const rail = (await page.locator('.scrub-rail').boundingBox())!;
  const stretch = (await shaded.boundingBox())!;
  expect(Math.abs(stretch.x - rail.x - (rail.width * 1_000) / 32_000)).toBeLessThanOrEqual(2);
  expect(Math.abs(stretch.width - (rail.width * 30_000) / 32_000)).toBeLessThanOrEqual(2);
  await expect(page.locator('.timeline')).toContainText('Inactive: +0:01.0 to +0:31.0.');
  await expectAccessible(page, ['.replay-frame iframe']);
});

test('a link to a moment opens the replay there, also from an old viewer link', async ({ page }) => {
  await openSession(page, '?pane=errors');
  await expect(tab(page, 'Errors')).toHaveAttribute('aria-selected', 'true');
  const errorRow = page.getByRole('list', { name: 'Errors' }).getByRole('button', { name: /payment failed/ });
  await errorRow.click();
  const link = await page.getByRole('link', { name: 'Link to this moment' }).getAttribute('href');
  const t = Number(new URL(link!).searchParams.get('t'));
  expect(Math.abs(t - Number(await errorRow.getAttribute('data-offset-ms')))).toBeLessThanOrEqual(100);

  await page.goto(link!);
  await expect(frame(page).locator('#result')).toHaveText('Payment declined');
  await expect.poll(async () => Math.abs((await clockMs(page)) - t)).toBeLessThanOrEqual(100);

  await page.goto(`${server.url}/viewer/#key=${encodeURIComponent(server.controlKey)}&session=${sessionId}&t=${t}`);
  await expect(page).toHaveURL(`${server.url}/session/${sessionId}?t=${t}`);
  await expect(frame(page).locator('#result')).toHaveText('Payment declined');
});

test('keyboard: Tab reaches the controls, arrow keys move through the tabs, Enter on a row seeks', async ({ page }) => {
  await openSession(page);
  const play = page.getByRole('button', { name: 'Play', exact: true });
  for (let i = 0; i < 60 && !(await play.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(play).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('group', { name: 'Speed' }).getByRole('button', { name: '1×' })).toBeFocused();

  await tab(page, 'Console').focus();
  await page.keyboard.press('ArrowRight');
  await expect(tab(page, 'Network')).toBeFocused();
  await expect(tab(page, 'Network')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowRight');
  await expect(tab(page, 'Errors')).toHaveAttribute('aria-selected', 'true');
  await expect(page).toHaveURL(/pane=errors/);
  await page.keyboard.press('Tab');
  const row = page.getByRole('list', { name: 'Errors' }).getByRole('button').first();
  await expect(row).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(row).toHaveAttribute('aria-current', 'time');
  await expect(frame(page).locator('#result')).toHaveText('Payment declined');
});

test('downloads the session as a Playwright test, fetched with the key in a header', async ({ page }) => {
  const urls = recordRequestUrls(page);
  await openSession(page);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download Playwright test' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`session-${sessionId}.spec.ts`);
  const spec = readFileSync((await download.path())!, 'utf8');
  expect(spec).toContain('@playwright/test');
  // Requests are matched by path and parameter names, never by a recorded value (docs/replay-export.md).
  expect(spec).toContain('GET /api/echo?status');
  expect(urls.filter((u) => u.includes(server.controlKey))).toEqual([]);
});

test('a session without replay lists its records; missing replay chunks are reported', async ({ page }) => {
  // The recorded events again, as a new session in three chunks of which the middle one is never sent.
  const { body } = await controlGet<ReplayAnswer>(server, `/sessions/${sessionId}/replay?limit=200`);
  const events = body.events;
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
  await signIn(page, server, { path: `/session/${gapped}` });
  await expect(frame(page).locator('#marker')).toHaveText(MARKER);
  await expect(page.getByRole('note')).toHaveText(/replay replay-with-a-gap: chunk 1\b/);

  // A session with a log and no replay says so and still lists the log.
  const other = randomBytes(16).toString('hex');
  const res = await fetch(`${server.url}/otlp/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
    body: JSON.stringify(logsBody(server.appName, other, 'a session without replay')),
  });
  expect(res.status).toBe(200);
  await page.goto(`${server.url}/session/${other}`);
  await expect(page.getByRole('status').filter({ hasText: 'This session has no replay' })).toBeVisible();
  await expect(page.locator('.replay-frame')).toHaveCount(0);
  await expect(page.getByRole('list', { name: 'Console and logs' })).toContainText('a session without replay');

  await page.goto(`${server.url}/session/not-a-session`);
  await expect(page.getByRole('alert')).toContainText('No session not-a-session');
});
