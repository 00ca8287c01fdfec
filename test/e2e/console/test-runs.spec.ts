import { expect, test, type Page } from '@playwright/test';
import { errorLog } from '../../support/error-logs';
import { str } from '../../support/otlp';
import { buildShop, type ShopBuild } from '../../support/shop-build';
import { controlGet, startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot, signIn } from './support';

/**
 * The test pages in Chromium against `svc-server start`, seeded through the API as @svc/playwright's reporter sends
 * runs: three runs on two branches, with a passing, a failing and a flaky test (and a skipped one); the failing
 * attempt's browser session sent an error from a minified build whose source map is uploaded, so the run page shows
 * the original frame and links into the session. Test runs (`/test-runs`), a run (`/test-run/:id`), flaky tests
 * (`/tests/flaky`) and a test's history (`/test/:id`): what each shows, filters in the URL, keyboard, axe, pictures.
 */

const RELEASE = '5.2.0';
const SESSION = 'sess-test-checkout-r1';
const HOSTILE = 'expected total <img src=x onerror="window.__pwned=1">';
const HOUR = 3_600_000;
const FILE = 'e2e/shop.spec.ts';
const TESTS = {
  login: { test_id: 'aa11-login', title_path: ['shop', 'signs in'], line: 8 },
  cart: { test_id: 'bb22-cart', title_path: ['shop', 'cart', 'adds a book'], line: 17 },
  checkout: { test_id: 'cc33-checkout', title_path: ['shop', 'cart', 'checks out'], line: 31 },
  export: { test_id: 'dd44-export', title_path: ['admin', 'exports orders'], line: 52 },
} as const;
type TestName = keyof typeof TESTS;
const RUNS = {
  first: { run_id: 'gh-101-1', branch: 'main', commit: 'a1'.repeat(20), agoMs: 3 * HOUR },
  second: { run_id: 'gh:102-1', branch: 'main', commit: 'b2'.repeat(20), agoMs: 2 * HOUR },
  latest: { run_id: 'gh-103-1', branch: 'feature/cart', commit: 'c3'.repeat(20), agoMs: HOUR },
};

let server: CliServer;
let shop: ShopBuild;
let readKey = '';

async function call(method: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${server.controlKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function expectOk(res: Promise<Response>): Promise<void> {
  const answer = await res;
  expect(answer.ok, await answer.text()).toBe(true);
}

interface Attempt {
  retry: number;
  status: 'passed' | 'failed' | 'skipped';
  error?: string;
}

/** A result as the reporter sends it, `offsetMs` after its run started. */
function result(run: keyof typeof RUNS, name: TestName, a: Attempt, offsetMs: number) {
  const t = TESTS[name];
  return {
    test_id: t.test_id,
    file: FILE,
    line: t.line,
    title_path: t.title_path,
    project: 'chromium',
    retry: a.retry,
    status: a.status,
    expected_status: name === 'export' ? 'skipped' : 'passed',
    duration_ms: 1_200 + 300 * a.retry,
    started_at: new Date(Date.now() - RUNS[run].agoMs + offsetMs).toISOString(),
    ...(a.error && {
      error: {
        message: a.error,
        stack: `Error: ${a.error}\n    at ${FILE}:${t.line + 4}:7`,
        location: { file: FILE, line: t.line + 4, column: 7 },
      },
    }),
    tags: ['@shop'],
  };
}

async function seedRun(
  run: keyof typeof RUNS,
  results: Array<[TestName, Attempt]>,
  status: 'passed' | 'failed',
): Promise<void> {
  const r = RUNS[run];
  const ci = {
    provider: 'github',
    job_url: `https://github.com/acme/shop/actions/runs/${r.run_id.split(/[-:]/)[1]}`,
    build_id: r.run_id,
  };
  await expectOk(
    call('PUT', `/test-runs/${r.run_id}`, {
      started_at: new Date(Date.now() - r.agoMs).toISOString(),
      commit: r.commit,
      branch: r.branch,
      ci,
      shard: { current: 1, total: 2 },
    }),
  );
  await expectOk(
    call('POST', `/test-runs/${r.run_id}/results`, {
      results: results.map(([name, a], i) => result(run, name, a, i * 2_000)),
    }),
  );
  await expectOk(
    call('POST', `/test-runs/${r.run_id}/finish`, { status, duration_ms: 95_000 + results.length * 1_000 }),
  );
}

/** The checkout's second attempt in the latest run: its browser session logged the shop's error, as the SDK does in a test. */
async function seedBrowserError(): Promise<void> {
  const maps = await call('POST', '/sourcemaps', {
    release: RELEASE,
    maps: [{ map: shop.map, url: shop.url.replace('https://shop.example.com', '~') }],
  });
  expect(maps.ok, await maps.text()).toBe(true);
  const message = shop.stack.split('\n')[0]!.replace(/^TypeError: /, '');
  const attemptStart = Date.now() - RUNS.latest.agoMs + 3 * 2_000;
  const body = errorLog({
    message,
    stack: shop.stack,
    sessionId: SESSION,
    release: RELEASE,
    env: 'test',
    atMs: attemptStart + 800,
  });
  body.resourceLogs[0]!.resource.attributes.push(
    str('test.run.id', RUNS.latest.run_id),
    str('test.id', TESTS.checkout.test_id),
    str('test.title', TESTS.checkout.title_path.join(' > ')),
    str('test.file', FILE),
    str('test.project', 'chromium'),
    str('test.retry', '1'),
  );
  const send = () =>
    fetch(`${server.url}/otlp/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.ingestKey },
      body: JSON.stringify(body),
    });
  await expect
    .poll(async () => (await send()).status, { message: 'the error log was accepted', intervals: [250, 500, 1000] })
    .toBe(200);
  await expect
    .poll(async () => (await controlGet(server, `/sessions?test_run=${RUNS.latest.run_id}`)).body.data?.length ?? 0, {
      message: 'the session is tied to the run',
      timeout: 15_000,
    })
    .toBe(1);
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  [server, shop] = await Promise.all([startCliServer(), buildShop(false)]);
  readKey = /svc_read_\S+/.exec(await server.admin('keys', 'create', '--scope', 'read', '--name', 'tests-reader'))![0];
  await seedRun(
    'first',
    [
      ['login', { retry: 0, status: 'passed' }],
      ['cart', { retry: 0, status: 'passed' }],
      ['checkout', { retry: 0, status: 'passed' }],
    ],
    'passed',
  );
  await seedRun(
    'second',
    [
      ['login', { retry: 0, status: 'passed' }],
      ['cart', { retry: 0, status: 'failed', error: 'Timed out waiting for the cart badge' }],
      ['cart', { retry: 1, status: 'passed' }],
      ['checkout', { retry: 0, status: 'passed' }],
    ],
    'passed',
  );
  await seedRun(
    'latest',
    [
      ['login', { retry: 0, status: 'passed' }],
      ['cart', { retry: 0, status: 'failed', error: 'Timed out waiting for the cart badge' }],
      ['cart', { retry: 1, status: 'passed' }],
      ['checkout', { retry: 0, status: 'failed', error: HOSTILE }],
      ['checkout', { retry: 1, status: 'failed', error: HOSTILE }],
      ['export', { retry: 0, status: 'skipped' }],
    ],
    'failed',
  );
  await seedBrowserError();
});
test.afterAll(async () => {
  await server?.close();
});

const table = (page: Page, name: string | RegExp) => page.getByRole('table', { name });
const rows = (page: Page, name: string | RegExp) => table(page, name).locator('tbody tr:not(.detail-row)');

test('test runs: newest first with counts, filters in the URL, keyboard from the skip link to a run', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: '/test-runs' });
  await expect(page.getByRole('heading', { level: 1, name: 'Test runs' })).toBeVisible();
  const runs = rows(page, 'Test runs');
  await expect(runs).toHaveCount(3);
  // Started, branch, commit, status, passed, failed, flaky, skipped, duration, CI.
  const cells = (i: number) => runs.nth(i).getByRole('cell');
  await expect(cells(0).nth(1)).toHaveText('feature/cart');
  await expect(cells(0).nth(2)).toHaveText('c3c3c3c');
  await expect(cells(0).nth(3)).toHaveText('failed');
  await expect(cells(0).nth(4)).toHaveText('1');
  await expect(cells(0).nth(5)).toHaveText('1');
  await expect(cells(0).nth(6)).toHaveText('1');
  await expect(cells(0).nth(7)).toHaveText('1');
  await expect(cells(0).getByRole('link', { name: /github gh-103-1/ })).toHaveAttribute(
    'href',
    'https://github.com/acme/shop/actions/runs/103',
  );
  await expect(cells(1).nth(3)).toHaveText('passed');
  await expect(cells(1).nth(6)).toHaveText('1');
  await expect(cells(2).nth(2)).toHaveText('a1a1a1a');
  await expect(page.getByRole('link', { name: 'Test runs' })).toHaveAttribute('aria-current', 'page');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'test-runs');

  const filters = page.getByRole('search', { name: 'Test run filters' });
  await filters.getByLabel('Status').selectOption('failed');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/status=failed/);
  await expect(runs).toHaveCount(1);
  await page.reload();
  await expect(filters.getByLabel('Status')).toHaveValue('failed');
  await expect(runs).toHaveCount(1);
  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(runs).toHaveCount(3);

  // Keyboard: the skip link first, then the page's own controls, the branch filter applied with Enter, a row by Enter.
  await page.goto(`${server.url}/test-runs`);
  await expect(runs).toHaveCount(3);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Flaky tests' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Time range')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(filters.getByLabel('Branch')).toBeFocused();
  await page.keyboard.type('main');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/branch=main/);
  await expect(runs).toHaveCount(2);
  await filters.getByLabel('Commit').fill(RUNS.second.commit);
  await filters.getByLabel('Commit').press('Enter');
  await expect(runs).toHaveCount(1);
  await runs.first().getByRole('link').first().focus();
  await page.keyboard.press('Enter');
  // A run id may hold `:`, which the address carries encoded.
  await expect(page).toHaveURL(new RegExp(`/test-run/${encodeURIComponent(RUNS.second.run_id)}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Test run ${RUNS.second.run_id}`);
});

test('a run: facts and totals, failed first; the failed test opens its error, original stack and session links', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { path: `/test-run/${RUNS.latest.run_id}` });
  const facts = page.locator('dl.run-facts');
  await expect(facts).toContainText('Statusfailed');
  await expect(facts).toContainText('Branchfeature/cart');
  await expect(facts).toContainText(`Commit${RUNS.latest.commit}`);
  await expect(facts).toContainText('Shards2 shards');
  await expect(facts.getByRole('link', { name: /github gh-103-1/ })).toBeVisible();
  const totals = page.locator('dl.run-totals');
  await expect(totals).toContainText('Passed1');
  await expect(totals).toContainText('Failed1');
  await expect(totals).toContainText('Flaky1');
  await expect(totals).toContainText('Skipped1');

  const tests = rows(page, 'Tests of the run, failed first');
  await expect(tests).toHaveCount(4);
  await expect(tests.nth(0)).toContainText('shop > cart > checks out');
  await expect(tests.nth(0).getByRole('cell').nth(2)).toHaveText('failed');
  await expect(tests.nth(0).getByRole('cell').nth(3)).toHaveText('1');
  await expect(tests.filter({ hasText: 'adds a book' }).getByRole('cell').nth(2)).toHaveText('flaky');
  await expect(tests.filter({ hasText: 'exports orders' }).getByRole('cell').nth(2)).toHaveText('skipped');
  await expect(tests.filter({ hasText: 'signs in' }).getByRole('cell').nth(2)).toHaveText('passed');

  // Enter on the failed test opens it in place (and in the address).
  const link = tests.nth(0).getByRole('link');
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\?test=[0-9a-f]{16}$/);
  await expect(link).toHaveAttribute('aria-expanded', 'true');
  const detail = page.locator('tr.detail-row');
  const retry = detail.getByRole('region', { name: 'Attempt 2' });
  await expect(retry.locator('.error-text')).toHaveText(HOSTILE);
  await expect(page.locator('main img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  // The browser's error, symbolicated: the original file, function and line.
  await expect(retry.locator('.browser-error')).toContainText('TypeError');
  await expect(retry.locator('.frame').first()).toContainText('lineTotal');
  await expect(retry.locator('.frame').first()).toContainText('src/cart/total.ts:2');
  await expect(retry.locator('mark').first()).toContainText('const price = item.product!.price;');
  await expect(detail.getByRole('region', { name: 'Attempt 1' })).toContainText('No browser session was recorded');
  const replay = retry.getByRole('link', { name: 'Replay at the failure' });
  await expect(replay).toHaveAttribute('href', new RegExp(`^/session/${SESSION}\\?t=\\d+$`));
  await expect(retry.getByRole('link', { name: 'Network' })).toHaveAttribute(
    'href',
    new RegExp(`^/session/${SESSION}\\?pane=network&t=\\d+$`),
  );
  await expect(retry.getByRole('link', { name: 'Console' })).toHaveAttribute('href', /pane=console/);
  await expect(retry.getByRole('link', { name: 'Traces' })).toHaveAttribute('href', /pane=traces/);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'test-run');

  await retry.getByRole('link', { name: 'Network' }).click();
  await expect(page).toHaveURL(new RegExp(`/session/${SESSION}\\?pane=network&t=\\d+$`));
  await expect(page.getByRole('tab', { name: /Network/ })).toHaveAttribute('aria-selected', 'true');
  // The session says which test it recorded, and leads back to the run.
  await expect(page.locator('dl.session-facts')).toContainText(
    `Testshop > cart > checks out (retry 1) in run ${RUNS.latest.run_id}`,
  );
  await page.goBack();
  // The sessions page filtered by the run lists the session its tests recorded.
  await page.getByRole('link', { name: 'Sessions of this run' }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions\\?test_run=${RUNS.latest.run_id}$`));
  await expect(page.getByLabel('Test run')).toHaveValue(RUNS.latest.run_id);
  await expect(page.locator(`a[href="/session/${SESSION}"]`).first()).toBeVisible();
  await page.goBack();
  await detail.getByRole('link', { name: 'History of this test' }).click();
  await expect(page).toHaveURL(/\/test\/[0-9a-f]{16}$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('shop > cart > checks out');
});

test('flaky tests and a test’s history, with a read key: flip rate, last flips, filters, the pass/fail strip', async ({
  page,
}, testInfo) => {
  await signIn(page, server, { key: readKey, path: '/tests/flaky' });
  await expect(page.getByRole('heading', { level: 1, name: 'Flaky tests' })).toBeVisible();
  const flaky = rows(page, 'Flaky tests, most flips first');
  await expect(flaky).toHaveCount(1);
  await expect(flaky.first()).toContainText('adds a book');
  await expect(flaky.first().getByRole('cell').nth(3)).toHaveText('2 / 3');
  const flips = flaky
    .first()
    .getByRole('list', { name: /Last flips/ })
    .getByRole('link');
  await expect(flips).toHaveCount(2);
  await expect(flips.first()).toHaveAttribute('href', new RegExp(`^/test-run/${RUNS.latest.run_id}\\?test=`));
  await expectAccessible(page);
  await screenshot(page, testInfo, 'flaky-tests');

  const filters = page.getByRole('search', { name: 'Flaky test filters' });
  await filters.getByLabel('Over the last N runs').fill('1');
  await filters.getByLabel('Over the last N runs').press('Enter');
  await expect(page).toHaveURL(/runs=1/);
  await expect(flaky.first().getByRole('cell').nth(3)).toHaveText('1 / 1');
  await filters.getByRole('button', { name: 'Clear' }).click();
  await filters.getByLabel('Branch').fill('main');
  await filters.getByRole('button', { name: 'Apply' }).click();
  await expect(flaky.first().getByRole('cell').nth(3)).toHaveText('1 / 2');

  await flaky.first().getByRole('link').first().focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/test\/[0-9a-f]{16}$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('shop > cart > adds a book');
  await expect(page.locator('dl.test-facts')).toContainText(`${FILE}:17`);
  await expect(page.getByRole('img', { name: /3 runs, oldest first: passed, flaky, flaky/ })).toBeVisible();
  const history = rows(page, 'Runs of this test, newest first');
  await expect(history).toHaveCount(3);
  await expect(history.nth(0).getByRole('cell').nth(1)).toHaveText('flaky');
  await expect(history.nth(0).getByRole('cell').nth(4)).toHaveText('c3c3c3c');
  await expect(history.nth(0).getByRole('cell').nth(5)).toHaveText('feature/cart');
  await expect(history.nth(2).getByRole('cell').nth(1)).toHaveText('passed');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'test');

  await page.goto(`${server.url}/test/${'0'.repeat(16)}`);
  await expect(page.getByRole('alert')).toContainText('No test');
  await page.goto(`${server.url}/test-run/no-such-run`);
  await expect(page.getByRole('alert')).toContainText('No test run no-such-run');
});
