import { expect, test } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, recordRequestUrls, screenshot, signIn } from './support';

/**
 * The console's frame at the server's address (`GET /`), in Chromium against `svc-server start`: signing in with a
 * key (kept in the tab only, sent only in the Authorization header), the links `svc-server start` prints and old
 * viewer links, a read-only key, signing out, the strict CSP, keyboard and axe.
 */

let t: CliServer;

test.beforeAll(async () => {
  t = await startCliServer();
});
test.afterAll(async () => {
  await t?.close();
});

test('the sign-in page: strict CSP without inline script, links that lead somewhere, keyboard sign-in, axe', async ({ page, request }, testInfo) => {
  const problems: string[] = [];
  // The refused key below is answered 401, which Chromium reports as a failed resource: expected, not a problem.
  page.on('console', (m) => m.type() === 'error' && !m.text().includes('status of 401') && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  const res = await request.get(`${t.url}/`);
  expect(res.headers()['content-security-policy']).toContain("script-src 'self'");
  expect(res.headers()['content-security-policy']).not.toContain("'unsafe-eval'");
  // Every script of the page is a file of the console's own; none is inline.
  const html = await res.text();
  expect(html.match(/<script\b[^>]*>/g)?.every((tag) => / src="\/console\/assets\/[^"]+\.js"/.test(tag))).toBe(true);
  // Programs asking for JSON still get the server's links.
  const index = (await (await request.get(`${t.url}/`, { headers: { accept: 'application/json' } })).json()) as { links: Record<string, string> };
  expect(index.links.console).toBe(`${t.url}/`);

  await page.goto(`${t.url}/`);
  await expect(page).toHaveTitle('svc console');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('svc console');
  for (const link of await page.getByRole('link').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))) {
    expect((await page.request.get(link)).status(), link).toBe(200);
  }
  await expectAccessible(page);
  await screenshot(page, testInfo, 'sign-in');

  // Keyboard only: the key field is the first stop; Enter submits.
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Control or read key')).toBeFocused();
  await page.keyboard.type('svc_control_not-a-real-key');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toContainText('This key was refused');
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

  await page.getByLabel('Control or read key').fill(t.controlKey);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  await expect(page).toHaveURL(`${t.url}/sessions`);
  expect(problems).toEqual([]);
});

test('signed in: the key stays in the tab and only in the Authorization header; navigation by keyboard; sign out', async ({ page, browser }) => {
  const urls = recordRequestUrls(page);
  const authorized: string[] = [];
  page.on('request', (r) => {
    if (r.headers().authorization === `Bearer ${t.controlKey}`) authorized.push(new URL(r.url()).pathname);
  });
  await signIn(page, t);
  expect(authorized).toContain('/control-plane/me');
  expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
  expect(await page.context().cookies()).toEqual([]);

  // The skip link is the first Tab stop and moves focus to the page's content.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
  // Each navigation link is reached by Tab and opens its page, marked as the current one.
  for (const [name, path] of [['Issues', '/issues'], ['Traces', '/traces'], ['Web Vitals', '/vitals'], ['Incidents', '/incidents'], ['Notifications', '/notifications'], ['Cost', '/cost'], ['Test runs', '/test-runs'], ['Sessions', '/sessions']] as const) {
    const link = page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name });
    await link.focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(`${t.url}${path}`);
    await expect(link).toHaveAttribute('aria-current', 'page');
  }
  await expectAccessible(page);

  // A reload keeps the tab signed in; another tab of another browser context is not.
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  const other = await (await browser.newContext()).newPage();
  await other.goto(`${t.url}/sessions`);
  await expect(other.getByLabel('Control or read key')).toBeVisible();
  await other.context().close();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Control or read key')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  expect(urls.filter((u) => u.includes(t.controlKey))).toEqual([]);
});

test('the link svc-server start prints and old viewer links sign in from the fragment, which leaves the address bar', async ({ page }) => {
  const urls = recordRequestUrls(page);
  expect(t.output()).toContain(`console:      ${t.url}/#key=${t.controlKey}`);
  await page.goto(`${t.url}/#key=${t.controlKey}`);
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  expect(page.url()).not.toContain('key=');

  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${t.url}/viewer/#key=${encodeURIComponent(t.controlKey)}&session=s-old-link&t=5000`);
  await expect(page).toHaveURL(`${t.url}/session/s-old-link?t=5000`);
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  // Fragments never reach a server: no request carried the key.
  expect(urls.filter((u) => u.includes(t.controlKey))).toEqual([]);
});

test('a read key signs in as read only', async ({ page }) => {
  const readKey = /svc_read_[\w-]+/.exec(await t.admin('keys', 'create', '--scope', 'read'))![0];
  await signIn(page, t, { key: readKey });
  await expect(page.getByText('read only', { exact: true })).toBeVisible();
});

test('a key revoked while signed in returns the tab to sign-in with a notice', async ({ page }) => {
  const out = await t.admin('keys', 'create', '--scope', 'control', '--name', 'short-lived');
  const key = /svc_control_[\w-]+/.exec(out)![0];
  const id = /created control key (\S+)/.exec(out)![1]!;
  await signIn(page, t, { key });
  await t.admin('keys', 'revoke', id);
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Issues' }).click();
  await expect(page.getByRole('status')).toContainText('sign in again');
  await expect(page.getByLabel('Control or read key')).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
});
