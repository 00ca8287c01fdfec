import { expect, test, type Page } from '@playwright/test';
import { createTwoFilesPatch } from 'diff';
import { chromeStack, errorLog } from '../../support/error-logs';
import { str } from '../../support/otlp';
import { startFakeGithub, type FakeGithub } from '../../support/fake-github';
import { startFakeOpenAi, type FakeOpenAi } from '../../support/fake-openai';
import { TOTAL_TS, buildShop, type ShopBuild } from '../../support/shop-build';
import { controlGet, startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';

/**
 * The console's Issues list and issue page against `svc-server start`: errors arrive as the SDK sends them (OTLP logs),
 * one from a minified build whose source map is uploaded, so the page shows the original frame and source line. Filters,
 * order and page live in the URL; a status change shows in the list's filter; the heuristic analysis runs from the page;
 * a read key sees no change control (and the server refuses anyway); hostile messages stay text.
 */

const ENV = 'console-e2e';
const RELEASE = '3.1.0';
const SESSION = 'sess-console-issue-1';
const THROW_LINE = 'const price = item.product!.price;';
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const DECLINED = 'Payment declined by provider';

let server: CliServer;
let shop: ShopBuild;
let shopMessage: string;
const ids: Record<'shop' | 'declined' | 'hostile', string> = { shop: '', declined: '', hostile: '' };

async function call(
  method: string,
  path: string,
  body: unknown,
  key = server.controlKey,
  on: CliServer = server,
): Promise<Response> {
  return fetch(`${on.url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const UA = {
  chromeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  firefoxMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0',
};

/** Where an error came from, as the SDK says it: the browser (resource), the page and the user (record). */
interface ErrorSource {
  ua: string;
  path: string;
  user: string;
}

/** One error log as the SDK sends it, sent again after a 503 (storage busy: nothing kept) as exporters do. */
async function ingestError(
  input: Parameters<typeof errorLog>[0],
  on: CliServer = server,
  from?: ErrorSource,
): Promise<void> {
  const body = errorLog(input);
  if (from) {
    const [logs] = body.resourceLogs;
    logs!.resource.attributes.push(str('user_agent.original', from.ua));
    logs!.scopeLogs[0]!.logRecords[0]!.attributes.push(str('url.path', from.path), str('user.id', from.user));
  }
  const send = () =>
    fetch(`${on.url}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': on.ingestKey },
      body: JSON.stringify(body),
    });
  await expect
    .poll(async () => (await send()).status, { message: 'the error log was accepted', intervals: [250, 500, 1000] })
    .toBe(200);
}

/** The shop's source map for its release, as the build uploads it. */
async function uploadShopMap(on: CliServer): Promise<void> {
  const maps = await call(
    'POST',
    '/sourcemaps',
    { release: RELEASE, maps: [{ map: shop.map, url: shop.url.replace('https://shop.example.com', '~') }] },
    on.controlKey,
    on,
  );
  expect(maps.ok, await maps.text()).toBe(true);
}

test.beforeAll(async () => {
  test.setTimeout(90_000);
  [server, shop] = await Promise.all([startCliServer(), buildShop(false)]);
  shopMessage = shop.stack.split('\n')[0]!.replace(/^TypeError: /, '');
  await uploadShopMap(server);
  // In time order, so "last seen" lists them hostile, declined, shop; by events: shop (3), declined (2), hostile (1).
  const now = Date.now();
  const shopSources: ErrorSource[] = [
    { ua: UA.chromeWindows, path: '/cart/42', user: 'u-ann' },
    { ua: UA.chromeWindows, path: '/cart/7', user: 'u-ann' },
    { ua: UA.firefoxMac, path: '/checkout', user: 'u-bob' },
  ];
  for (const [i, from] of shopSources.entries())
    await ingestError(
      {
        message: shopMessage,
        stack: shop.stack,
        sessionId: SESSION,
        release: RELEASE,
        env: ENV,
        atMs: now - 60_000 + i,
      },
      server,
      from,
    );
  for (let i = 0; i < 2; i++)
    await ingestError({
      message: DECLINED,
      stack: chromeStack(DECLINED),
      sessionId: `sess-declined-${i}`,
      release: RELEASE,
      env: ENV,
      atMs: now - 30_000 + i,
    });
  await ingestError({
    message: HOSTILE,
    stack: chromeStack(HOSTILE),
    sessionId: 'sess-hostile',
    release: RELEASE,
    env: ENV,
    atMs: now - 10_000,
  });
  // The detector groups errors every 10 s.
  await expect
    .poll(async () => (await controlGet(server, `/issues?env=${ENV}`)).body.data.length, {
      timeout: 30_000,
      intervals: [500, 1000],
    })
    .toBe(3);
  const { body } = await controlGet<{ data: Array<{ id: string; message: string }> }>(server, `/issues?env=${ENV}`);
  for (const issue of body.data)
    ids[issue.message === HOSTILE ? 'hostile' : issue.message === DECLINED ? 'declined' : 'shop'] = issue.id;
});
test.afterAll(async () => {
  await server?.close();
});

/** The title cell of each row (the one with the link; a control key's rows start with a checkbox). */
const titles = (page: Page) => page.locator('table.data-table tbody tr td:has(> a)');

test('the list: rows, search and filters in the URL (reload keeps them), sort, keyset pages, hostile text stays text', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/issues' });
  await expect(page.getByRole('heading', { level: 1, name: 'Issues' })).toBeVisible();
  await expect(titles(page)).toHaveCount(3);
  // Newest first by default.
  await expect(titles(page).nth(0)).toContainText(HOSTILE);
  await expect(page.locator('table.data-table img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  const shopRow = page.locator('tbody tr', { hasText: shopMessage });
  await expect(shopRow).toContainText('lineTotal');
  await expect(shopRow.locator('td.numeric').first()).toHaveText('3');
  await expect(shopRow).toContainText('unresolved');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'issues');

  await page.getByRole('searchbox', { name: 'Search' }).fill('payment');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/[?&]q=payment/);
  await expect(titles(page)).toHaveCount(1);
  await expect(titles(page).first()).toContainText(DECLINED);
  await page.reload();
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('payment');
  await expect(titles(page)).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(titles(page)).toHaveCount(3);
  // Environment and release are menus of the values the issues have, as on the sessions page.
  const filters = page.getByRole('search', { name: 'Issue filters' });
  await expect(filters.getByRole('combobox', { name: 'Release' }).locator('option')).toHaveText(['Any', RELEASE]);
  await filters.getByRole('combobox', { name: 'Environment' }).selectOption(ENV);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]env=${ENV}`));
  await expect(titles(page)).toHaveCount(3);
  await page.getByRole('button', { name: 'Clear' }).click();

  await page.getByRole('button', { name: 'Events' }).click();
  await expect(page).toHaveURL(/sort=events/);
  await expect(page.getByRole('columnheader', { name: 'Events' })).toHaveAttribute('aria-sort', 'descending');
  await expect(titles(page).nth(0)).toContainText(shopMessage);
  await expect(titles(page).nth(1)).toContainText(DECLINED);
  await expect(titles(page).nth(2)).toContainText(HOSTILE);
  // The API orders only largest first: a second click keeps that order rather than claim an ascending one.
  await page.getByRole('button', { name: 'Events' }).click();
  await expect(page).not.toHaveURL(/order=asc/);
  await expect(page.getByRole('columnheader', { name: 'Events' })).toHaveAttribute('aria-sort', 'descending');
  await page.getByRole('button', { name: 'First seen' }).click();
  await expect(page).toHaveURL(/sort=first_seen/);
  await expect(titles(page).nth(0)).toContainText(HOSTILE);

  // Two a page: the second page holds the one left, and a link to it shows the same.
  await page.goto(`${server.url}/issues?sort=events&limit=2`);
  await expect(titles(page)).toHaveCount(2);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(titles(page)).toHaveCount(1);
  await expect(titles(page).first()).toContainText(HOSTILE);
  await page.reload();
  await expect(titles(page)).toHaveCount(1);
  await page.getByRole('button', { name: 'First page' }).click();
  await expect(titles(page)).toHaveCount(2);
});

test('keyboard: Tab reaches a row, Enter opens the issue; the page shows the original frame, source line, sessions', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: `/issues?env=${ENV}&sort=events` });
  await expect(titles(page)).toHaveCount(3);
  const first = titles(page).first().getByRole('link');
  for (let i = 0; i < 40 && !(await first.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(first).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/issue/${ids.shop}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`TypeError: ${shopMessage}`);
  const top = page.locator('.frame').first();
  await expect(top.locator('.fn')).toHaveText('lineTotal');
  await expect(top.locator('.where').first()).toHaveText(/^src\/cart\/total\.ts:2:\d+$/);
  await expect(top.locator('mark')).toContainText(THROW_LINE);
  await expect(top).toContainText(`minified: `);
  await expect(page.getByRole('link', { name: SESSION })).toHaveAttribute('href', `/session/${SESSION}`);
  await expect(page.locator('dl.facts')).toContainText(RELEASE);
  await expect(page.locator('dl.facts dt', { hasText: 'Seen in' }).locator('+ dd')).toHaveText('production');
  // No repository is connected: no pull request button, and the page says why.
  await expect(page.getByRole('button', { name: 'Open pull request' })).toHaveCount(0);
  await expect(page.getByText('No GitHub repository is connected')).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'issue');

  // The affected session's Errors pane shows each of its errors with the same original frames and source line.
  await page.getByRole('link', { name: SESSION }).click();
  await expect(page).toHaveURL(new RegExp(`/session/${SESSION}$`));
  await page.getByRole('tab', { name: /Errors/ }).click();
  const errors = page.getByRole('list', { name: 'Errors' }).getByRole('button');
  await expect(errors).toHaveCount(3);
  await errors.last().click();
  const frame = page.getByRole('list', { name: 'Frames in the app' }).locator('.frame').first();
  await expect(frame.locator('.fn')).toHaveText('lineTotal');
  await expect(frame.locator('.where').first()).toHaveText(/^src\/cart\/total\.ts:2:\d+$/);
  await expect(frame.locator('mark')).toContainText(THROW_LINE);
});

test("an issue of a build whose maps were not uploaded names the app's files without a map and the command that uploads them", async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: `/issue/${ids.declined}` });
  const note = page.getByRole('note', { name: 'Source maps missing' });
  // The app's two scripts of the stack, not the SDK's.
  await expect(note.getByRole('listitem')).toHaveText([
    'https://shop.example.com/assets/checkout.3f9a1c2b.js',
    'https://shop.example.com/assets/app-DiwrgTda.js',
  ]);
  await expect(note.locator('pre')).toHaveText(
    `npx svc-server sourcemaps upload path/to/build --release ${RELEASE} --url ${server.url} --control-key <control key>`,
  );
  await expectAccessible(page);
  await screenshot(page, testInfo, 'issue-without-maps');
});

test('status: resolve from the page, the list filter shows it, reopen; the heuristic analysis runs from the page', async ({
  page,
}) => {
  await signIn(page, server, { path: `/issue/${ids.declined}` });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`TypeError: ${DECLINED}`);
  await page.getByRole('button', { name: 'Resolve', exact: true }).click();
  await expect(page.locator('.status-line .badge')).toHaveText('resolved');
  await expect(page.getByRole('button', { name: 'Reopen' })).toBeVisible();
  await expect(page.locator('dl.facts')).toContainText('key:');

  await page.goto(`${server.url}/issues?status=resolved`);
  await expect(titles(page)).toHaveCount(1);
  await expect(titles(page).first()).toContainText(DECLINED);
  await titles(page).first().getByRole('link').click();
  await page.getByRole('button', { name: 'Reopen' }).click();
  await expect(page.locator('.status-line .badge')).toHaveText('unresolved');

  await expect(page.getByText('No analysis yet.')).toBeVisible();
  await page.getByRole('button', { name: 'Analyse', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Root cause' })).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('#analysis-heading + .badge')).toHaveText('heuristic');
  await expect(page.getByRole('button', { name: 'Analyse again' })).toBeEnabled();
  const stored = await controlGet<{ state: string; mode: string }>(server, `/issues/${ids.declined}/analysis`);
  expect(stored.body).toMatchObject({ state: 'done', mode: 'heuristic' });
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Root cause' })).toBeVisible();
});

test('a read key sees the issue and no change control; the server refuses the change anyway', async ({ page }) => {
  const readKey = /svc_read_\S+/.exec(
    await server.admin('keys', 'create', '--scope', 'read', '--name', 'issues-reader'),
  )![0];
  await signIn(page, server, { key: readKey, path: `/issue/${ids.hostile}` });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`TypeError: ${HOSTILE}`);
  await expect(page.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.getByText('Read-only key: status changes need a control key.')).toBeVisible();
  for (const name of ['Resolve', 'Ignore', 'Reopen', 'Analyse', 'Open pull request'])
    await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
  const refused = await call('PATCH', `/issues/${ids.hostile}`, { status: 'resolved' }, readKey);
  expect(refused.status).toBe(403);
  expect((await controlGet<{ status: string }>(server, `/issues/${ids.hostile}`)).body.status).toBe('unresolved');
});

test("trends on the list and the issue; its breakdown by browser, system, release, page and user; bulk status changes; times in the reader's zone", async ({
  page,
  browser,
}, testInfo) => {
  await signIn(page, server, { path: `/issues?env=${ENV}&sort=events` });
  const row = (message: string) => page.locator('tbody tr', { hasText: message });
  await expect(
    row(shopMessage).getByRole('img', { name: '3 errors in the last 24 hours, at most 3 in an hour' }),
  ).toBeVisible();
  await expect(
    row(DECLINED).getByRole('img', { name: '2 errors in the last 24 hours, at most 2 in an hour' }),
  ).toBeVisible();
  await page.getByRole('group', { name: 'Trend', exact: true }).getByRole('button', { name: '14 days' }).click();
  await expect(page).toHaveURL(/[?&]trend=14d/);
  await expect(
    row(shopMessage).getByRole('img', { name: '3 errors in the last 14 days, at most 3 in a day' }),
  ).toBeVisible();

  // Two issues picked by keyboard (Space on each checkbox), ignored at once; each change is recorded as a single one is.
  const bulk = page.getByRole('group', { name: 'Change the selected issues' });
  await expect(bulk.getByRole('button', { name: 'Ignore' })).toBeDisabled();
  for (const message of [shopMessage, DECLINED]) {
    await row(message).getByRole('checkbox').focus();
    await page.keyboard.press('Space');
  }
  await expect(bulk).toContainText('2 selected');
  await bulk.getByRole('button', { name: 'Ignore' }).focus();
  await page.keyboard.press('Enter');
  await expect(bulk.getByRole('status')).toHaveText('2 issues ignored.');
  await expect(row(shopMessage)).toContainText('ignored');
  await expect(row(DECLINED)).toContainText('ignored');
  await expect(row(HOSTILE)).toContainText('unresolved');
  for (const id of [ids.shop, ids.declined])
    expect((await controlGet<{ status: string; status_by: string }>(server, `/issues/${id}`)).body).toMatchObject({
      status: 'ignored',
      status_by: expect.stringMatching(/^key:/),
    });
  await expectAccessible(page);

  // The whole page reopened from its header checkbox.
  await page.getByRole('checkbox', { name: 'Select every row of this page' }).check();
  await expect(bulk).toContainText('3 selected');
  await bulk.getByRole('button', { name: 'Reopen' }).click();
  await expect(bulk.getByRole('status')).toHaveText('3 issues reopened.');
  await expect(page.locator('tbody tr', { hasText: 'ignored' })).toHaveCount(0);

  // The issue: both trends, and its errors by browser, system, release, page (route pattern) and user.
  await page.goto(`${server.url}/issue/${ids.shop}`);
  await expect(page.getByRole('img', { name: '3 errors in the last 24 hours, at most 3 in an hour' })).toBeVisible();
  await expect(page.getByRole('img', { name: '3 errors in the last 14 days, at most 3 in a day' })).toBeVisible();
  const breakdown = page.getByRole('region', { name: 'Breakdown' });
  await expect(breakdown).toContainText('2 users affected');
  const facet = (name: string) => breakdown.getByRole('list', { name: `Errors by ${name}` }).getByRole('listitem');
  await expect(facet('browser')).toHaveText([/^Chrome 131\s*2 \(67 %\)$/, /^Firefox 128\s*1 \(33 %\)$/]);
  await expect(facet('operating system')).toHaveText([/^Windows/, /^macOS/]);
  await expect(facet('release')).toHaveText([new RegExp(`^${RELEASE.replaceAll('.', '\\.')}\\s*3 \\(100 %\\)$`)]);
  await expect(facet('page')).toHaveText([/^\/cart\/:id\s*2/, /^\/checkout\s*1/]);
  await expect(facet('user')).toHaveText([/^u-ann\s*2/, /^u-bob\s*1/]);
  await expectAccessible(page);

  // Every time says its zone: here the browser's, India's.
  const india = await browser.newContext({ timezoneId: 'Asia/Kolkata' });
  const there = await india.newPage();
  await signIn(there, server, { path: `/issue/${ids.shop}` });
  // (Chromium's ICU names the zone by its older name, Asia/Calcutta.)
  await expect(there.getByRole('banner')).toContainText(/Times: Asia\/(Kolkata|Calcutta) \(GMT\+5:30\)/);
  await expect(there.locator('dl.facts dt', { hasText: 'First seen' }).locator('+ dd')).toContainText('GMT+5:30');
  await screenshot(there, testInfo, 'issue');
  await india.close();
});

test.describe('with a model and a GitHub repository configured', () => {
  let model: FakeOpenAi;
  let github: FakeGithub;
  let aiServer: CliServer;
  let issueId = '';

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    [model, github] = await Promise.all([
      startFakeOpenAi(),
      startFakeGithub({ files: { 'src/cart/total.ts': TOTAL_TS } }),
    ]);
    aiServer = await startCliServer({
      'ai-base-url': model.baseUrl,
      'ai-model': 'fix-model',
      'ai-api-key': 'sk-test-not-a-secret',
    });
    await uploadShopMap(aiServer);
    await ingestError(
      { message: shopMessage, stack: shop.stack, sessionId: SESSION, release: RELEASE, env: ENV, atMs: Date.now() },
      aiServer,
    );
    await expect
      .poll(async () => (await controlGet(aiServer, '/issues')).body.data.length, {
        timeout: 30_000,
        intervals: [500, 1000],
      })
      .toBe(1);
    issueId = String((await controlGet(aiServer, '/issues')).body.data[0]!.id);
    const connected = await call(
      'PUT',
      `/apps/${aiServer.appName}/repository`,
      { owner: github.owner, repo: github.repo, api_url: github.url, token: 'ghp_e2eTokenNotASecret0123456789abcdef' },
      aiServer.controlKey,
      aiServer,
    );
    expect(connected.status, await connected.text()).toBe(200);
  });
  test.afterAll(async () => {
    await aiServer?.close();
    await github?.close();
    await model?.close();
  });

  test('Analyse asks the model and shows what was sent; Open pull request opens one and the page links it', async ({
    page,
  }) => {
    const fixed = TOTAL_TS.replace(THROW_LINE, 'const price = item.product?.price ?? 0;');
    model.script({
      content: JSON.stringify({
        root_cause: 'lineTotal reads the price of an item that has no product.',
        confidence: 0.9,
        locations: [{ file: 'src/cart/total.ts', line: 2 }],
        diff: createTwoFilesPatch('a/src/cart/total.ts', 'b/src/cart/total.ts', TOTAL_TS, fixed),
        explanation: 'Count an item without a product as 0.',
      }),
    });
    await signIn(page, aiServer, { path: `/issue/${issueId}` });
    await expect(page.getByText('A model configured on the server analyses the issue.')).toBeVisible();
    await expect(page.getByText('A finished analysis is needed before a pull request can be opened.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Open pull request' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Analyse', exact: true }).click();
    await expect(page.getByText('lineTotal reads the price of an item that has no product.')).toBeVisible({
      timeout: 15_000,
    });
    await expect(page.locator('#analysis-heading + .badge')).toHaveText('model fix-model');
    await expect(page.locator('pre.diff')).toContainText('item.product?.price ?? 0');
    await page.getByText('What was sent to the model').click();
    await expect(page.locator('pre.sent')).toContainText('lineTotal');
    expect(model.requests).toHaveLength(1);

    await page.getByRole('button', { name: 'Open pull request' }).click();
    const link = page.getByRole('link', { name: new RegExp(`^${github.owner}/${github.repo}#\\d+$`) });
    await expect(link).toBeVisible({ timeout: 15_000 });
    expect(github.pulls).toHaveLength(1);
    await page.reload();
    await expect(link).toBeVisible();
    await expect(page.getByRole('button', { name: 'Open pull request' })).toHaveCount(0);
  });
});
