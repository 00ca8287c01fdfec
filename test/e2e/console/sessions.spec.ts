import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { ensureSdkBuilt } from '../../support/build-sdk';
import { startSdkPage, type SdkPageServer } from '../../support/sdk-page';
import { controlGet, startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';
import { ingest, nanos, otlpAttributes, waitForItems, type Attributes } from './telemetry-seed';

/**
 * The Sessions page (`/sessions`) in Chromium: sessions sent as OTLP with different users, attributes, durations,
 * browsers, errors, environments, releases and pages, plus one the real SDK recorded; filters, sort and paging in
 * the URL, rows that open the session, keyboard use, accessibility and the docs picture.
 */

const UA = {
  chromeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
};
/** A user name that would run script if the page parsed it as HTML. */
const HOSTILE_NAME = 'Mallory <img src=x onerror="window.__sessionsInjected = true">';

interface SeededSession {
  id: string;
  user: { id: string; email?: string; name?: string };
  plan: string;
  env: string;
  release: string;
  ua: string;
  pages: string[];
  durationS: number;
  errors: number;
  /** Minutes before now the session started. */
  startedAgoMin: number;
}

const suffix = randomBytes(3).toString('hex');
const SESSIONS: SeededSession[] = [
  {
    id: `alice-${suffix}`,
    user: { id: 'alice', email: 'alice@example.com' },
    plan: 'pro',
    env: 'production',
    release: '1.4.0',
    ua: UA.chromeMac,
    pages: ['/home', '/checkout'],
    durationS: 120,
    errors: 2,
    startedAgoMin: 30,
  },
  {
    id: `bob-${suffix}`,
    user: { id: 'bob', name: HOSTILE_NAME },
    plan: 'free',
    env: 'staging',
    release: '1.3.0',
    ua: UA.firefoxWindows,
    pages: ['/home'],
    durationS: 30,
    errors: 0,
    startedAgoMin: 20,
  },
  {
    id: `carol-${suffix}`,
    user: { id: 'carol' },
    plan: 'pro',
    env: 'production',
    release: '1.4.0',
    ua: UA.safariIphone,
    pages: ['/products/42', '/cart'],
    durationS: 600,
    errors: 1,
    startedAgoMin: 40,
  },
];

/** A session as the SDK sends one: a page load and interactions on its pages, ending `durationS` after it started, and its error logs. */
async function seedSession(server: CliServer, s: SeededSession): Promise<void> {
  const start = Date.now() - s.startedAgoMin * 60_000;
  const resource = {
    attributes: otlpAttributes({
      'service.name': server.appName,
      'session.id': s.id,
      'deployment.environment': s.env,
      'service.version': s.release,
      'user_agent.original': s.ua,
    }),
  };
  const identity: Attributes = { 'user.id': s.user.id, 'session.attributes.plan': s.plan };
  if (s.user.email) identity['user.email'] = s.user.email;
  if (s.user.name) identity['user.name'] = s.user.name;
  const traceId = randomBytes(16).toString('hex');
  const span = (name: string, atMs: number, attributes: Attributes) => ({
    traceId,
    spanId: randomBytes(8).toString('hex'),
    name,
    kind: 1,
    startTimeUnixNano: nanos(atMs),
    endTimeUnixNano: nanos(atMs + 10),
    attributes: otlpAttributes({ ...identity, ...attributes }),
    status: { code: 0 },
  });
  const [entry, ...rest] = s.pages;
  const spans = [
    span('documentLoad', start, { 'url.full': `https://shop.example${entry}` }),
    ...rest.map((path, i) =>
      span(`Navigation: ${path}`, start + (i + 1) * 1000, {
        event_type: 'click',
        'url.full': `https://shop.example${path}`,
      }),
    ),
    // A session's last activity is its latest record's time (a span's start).
    span('heartbeat', start + s.durationS * 1000, {}),
  ];
  await ingest(server, 'traces', {
    resourceSpans: [{ resource, scopeSpans: [{ scope: { name: '@svc/test' }, spans }] }],
  });
  if (s.errors === 0) return;
  const logRecords = Array.from({ length: s.errors }, (_, i) => ({
    timeUnixNano: nanos(start + 2000 + i),
    severityNumber: 17,
    severityText: 'ERROR',
    body: { stringValue: `payment failed ${i}` },
    attributes: otlpAttributes({ ...identity, 'exception.type': 'TypeError' }),
  }));
  await ingest(server, 'logs', {
    resourceLogs: [{ resource, scopeLogs: [{ scope: { name: '@svc/test' }, logRecords }] }],
  });
}

/** The real SDK (script-tag build) in Chromium: a page with a user and an attribute that logs an error, then shuts down. */
async function recordSdkSession(server: CliServer, app: SdkPageServer, page: Page): Promise<string> {
  const config = {
    apiKey: server.ingestKey,
    serviceName: server.appName,
    ingestUrl: server.url,
    env: 'sdk-test',
    serviceVersion: '2.0.0',
    flushIntervalMs: 200,
  };
  app.setHtml(`<!doctype html><html><head><title>Shop</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)}); window.sdk.setUser({ id: 'sdk-user' }); window.sdk.setAttributes({ plan: 'team' });</script></head>
<body><h1>Shop</h1><button id="buy" type="button">Buy</button>
<script>document.getElementById('buy').addEventListener('click', () => console.error('sdk checkout failed'));</script></body></html>`);
  await page.goto(`${app.origin}/shop/start`);
  await page.locator('#buy').click();
  type Sdk = { sessionId: string; shutdown(): Promise<void> };
  const sessionId = await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.sessionId);
  await page.evaluate(() => (window as unknown as { sdk: Sdk }).sdk.shutdown());
  await expect
    .poll(
      async () => {
        const { body } = await controlGet<{ data: Array<{ user: { id: string } | null; errors: number }> }>(
          server,
          `/sessions?user_id=sdk-user`,
        );
        return body.data.length === 1 && body.data[0]!.errors >= 1;
      },
      { message: 'the SDK session stored with its user and error', timeout: 20_000 },
    )
    .toBe(true);
  return sessionId;
}

let server: CliServer;
let app: SdkPageServer;
let sdkSessionId: string;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  await ensureSdkBuilt();
  server = await startCliServer();
  app = await startSdkPage();
  for (const s of SESSIONS) await seedSession(server, s);
  const page = await browser.newPage();
  sdkSessionId = await recordSdkSession(server, app, page);
  await page.close();
  await waitForItems(server, '/sessions?has_errors=true', 3);
});

test.afterAll(async () => {
  await app?.close();
  await server?.close();
});

const table = (page: Page) => page.getByRole('table', { name: 'Sessions' });
const rows = (page: Page) => table(page).locator('tbody tr');
const rowOf = (page: Page, sessionUser: string) => rows(page).filter({ hasText: sessionUser });

test('lists seeded and SDK sessions with duration, user, pages, errors and device; telemetry stays text', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/sessions' });
  await expect(page.getByRole('heading', { level: 1, name: 'Sessions' })).toBeVisible();
  await expect(rows(page)).toHaveCount(4);

  const alice = rowOf(page, 'alice@example.com');
  await expect(alice).toContainText('2 min 0 s');
  await expect(alice).toContainText('2 errors');
  await expect(alice).toContainText('Chrome 120');
  await expect(alice).toContainText('macOS · desktop');
  await expect(alice.getByRole('cell').nth(3)).toContainText('2/home');
  const carol = rowOf(page, 'carol');
  await expect(carol).toContainText('10 min 0 s');
  await expect(carol).toContainText('Safari 17');
  await expect(carol).toContainText('iOS · mobile');
  await expect(carol).toContainText('/products/42');
  const bob = rowOf(page, HOSTILE_NAME);
  await expect(bob).toContainText('0 errors');
  await expect(bob).toContainText('Firefox 121');
  await expect(table(page).locator('img')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { __sessionsInjected?: boolean }).__sessionsInjected),
  ).toBeUndefined();

  // The real SDK's session: Chromium (with the user agent Playwright's desktop Chrome profile gives it), its user and error.
  const sdk = rowOf(page, 'sdk-user');
  await expect(sdk).toContainText('Chrome');
  await expect(sdk).toContainText('desktop');
  await expect(sdk).toContainText('/shop/start');
  await expect(sdk).toContainText(/[1-9]\d* errors?/);

  await expectAccessible(page);
  await screenshot(page, testInfo, 'sessions');
});

test('filters narrow the list and live in the URL: environment, release, browser, attribute, URL, errors, duration, user', async ({
  page,
}) => {
  await signIn(page, server, { path: '/sessions' });
  await expect(rows(page)).toHaveCount(4);
  const filters = page.getByRole('search', { name: 'Session filters' });
  const apply = () => filters.getByRole('button', { name: 'Apply' }).click();

  await filters.getByLabel('Environment').selectOption('production');
  await apply();
  await expect(page).toHaveURL(/env=production/);
  await expect(rows(page)).toHaveCount(2);
  await filters.getByLabel('Attribute (key=value)').fill('plan=pro');
  await filters.getByLabel('URL contains').fill('checkout');
  await apply();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('alice');

  // Reload: the same view from the URL, the form showing its values.
  await page.reload();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('alice');
  await expect(filters.getByLabel('Environment')).toHaveValue('production');
  await expect(filters.getByLabel('Attribute (key=value)')).toHaveValue('plan=pro');
  await expect(filters.getByLabel('URL contains')).toHaveValue('checkout');

  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(rows(page)).toHaveCount(4);
  await filters.getByLabel('Release').selectOption('1.3.0');
  await apply();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('bob');

  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('Browser').selectOption('Safari');
  await apply();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('carol');

  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('Errors').selectOption('false');
  await apply();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('bob');

  // Durations are typed in seconds: at least 100 s leaves alice (120 s) and carol (600 s); at most 300 s then alice.
  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('Min duration (s)').fill('100');
  await apply();
  await expect(rows(page)).toHaveCount(2);
  await filters.getByLabel('Max duration (s)').fill('300');
  await apply();
  await expect(page).toHaveURL(/min_duration_s=100&max_duration_s=300|max_duration_s=300.*min_duration_s=100/);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('alice');

  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('User id').fill('carol');
  await apply();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('carol');

  // An attribute filter that is not key=value is explained, not sent.
  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('Attribute (key=value)').fill('plan');
  await apply();
  await expect(page.getByRole('alert')).toContainText('key=value');
});

test('sorting by duration and errors toggles the order; the sort is in the URL', async ({ page }) => {
  await signIn(page, server, { path: '/sessions?env=production' });
  await expect(rows(page)).toHaveCount(2);
  await table(page).getByRole('button', { name: 'Duration' }).click();
  await expect(page).toHaveURL(/sort=duration&order=desc/);
  await expect(rows(page).first()).toContainText('carol');
  await expect(table(page).getByRole('columnheader', { name: 'Duration' })).toHaveAttribute('aria-sort', 'descending');
  await table(page).getByRole('button', { name: 'Duration' }).click();
  await expect(page).toHaveURL(/sort=duration&order=asc/);
  await expect(rows(page).first()).toContainText('alice');
  await expect(table(page).getByRole('columnheader', { name: 'Duration' })).toHaveAttribute('aria-sort', 'ascending');

  await table(page).getByRole('button', { name: 'Errors' }).click();
  await expect(rows(page).first()).toContainText('alice');
  await page.reload();
  await expect(page).toHaveURL(/sort=errors&order=desc/);
  await expect(rows(page).first()).toContainText('alice');
  await table(page).getByRole('button', { name: 'Start' }).click();
  await expect(rows(page).first()).toContainText('alice'); // started 30 min ago, carol 40
});

test('keyset paging with a small limit walks every session once', async ({ page }) => {
  await signIn(page, server, { path: '/sessions?limit=3&sort=first_seen&order=asc' });
  await expect(rows(page)).toHaveCount(3);
  const first = await rows(page).allTextContents();
  const pager = page.getByRole('navigation', { name: 'Pages' });
  await expect(pager.getByRole('button', { name: 'First page' })).toBeDisabled();
  await pager.getByRole('button', { name: 'Next page' }).click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page)).toContainText('sdk-user'); // the newest start
  expect(first.join()).not.toContain('sdk-user');
  await expect(pager.getByRole('button', { name: 'Next page' })).toBeDisabled();
  await pager.getByRole('button', { name: 'First page' }).click();
  await expect(rows(page)).toHaveCount(3);
  await expect(rows(page).first()).toContainText('carol');
});

test('a row opens its session; keyboard reaches the filters, applies with Enter and tabs through the rows', async ({
  page,
}) => {
  await signIn(page, server, { path: '/sessions' });
  await expect(rows(page)).toHaveCount(4);
  // Keyboard: from the time range through the filters; Enter in a field applies the form.
  await page.getByLabel('Time range').focus();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('App')).toBeFocused();
  for (let i = 0; i < 4; i += 1) await page.keyboard.press('Tab');
  await expect(page.getByLabel('User id')).toBeFocused();
  await page.keyboard.type('sdk-user');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/user_id=sdk-user/);
  await expect(rows(page)).toHaveCount(1);

  await page.getByRole('search', { name: 'Session filters' }).getByRole('button', { name: 'Clear' }).click();
  await expect(rows(page)).toHaveCount(4);
  const links = table(page).locator('tbody a');
  await links.first().focus();
  await page.keyboard.press('Tab');
  await expect(links.nth(1)).toBeFocused();
  const carol = rowOf(page, 'carol').getByRole('link');
  await carol.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/session/${SESSIONS[2]!.id}$`));

  await page.goBack();
  await rowOf(page, 'sdk-user').getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/session/${sdkSessionId}$`));
});

test('a read key sees the same list (the page only reads)', async ({ page }) => {
  const out = await server.admin('keys', 'create', '--scope', 'read', '--name', 'sessions-e2e');
  const key = /^svc_read_\S+$/m.exec(out)?.[0];
  expect(key, out).toBeDefined();
  await signIn(page, server, { key, path: '/sessions?env=production' });
  await expect(page.getByText('read only')).toBeVisible();
  await expect(rows(page)).toHaveCount(2);
});

test('the header search finds a session or a user by id and opens it; an unknown id is said so', async ({ page }) => {
  await signIn(page, server, { path: '/sessions' });
  const search = page.getByRole('search', { name: 'Find by id' });
  const box = search.getByRole('searchbox');
  // Keyboard: the box is the first control after the project's name; Enter searches.
  await page.getByRole('link', { name: 'svc', exact: true }).focus();
  for (let i = 0; i < 6 && !(await box.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(box).toBeFocused();
  const carol = SESSIONS[2]!;
  await page.keyboard.type(carol.id);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/session/${carol.id}$`));
  await expect(page.locator('.session-facts')).toContainText('carol');

  // A user id lists that user's sessions.
  await box.fill('alice');
  await box.press('Enter');
  await expect(page).toHaveURL(/\/sessions\?user_id=alice$/);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('alice@example.com');

  await box.fill('nobody-has-this-id');
  await box.press('Enter');
  const none = search.getByText('Nothing in this project has the id “nobody-has-this-id”.');
  await expect(none).toBeVisible();
  await expectAccessible(page);
  await page.keyboard.press('Escape');
  await expect(none).toHaveCount(0);
});
