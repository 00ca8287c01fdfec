import { expect, test, type Page } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot } from './support';

/**
 * People in the console (issue 31), in Chromium against `svc-server start`: the first owner from the set-up link the
 * banner prints, password sign-in (also by keyboard alone), inviting a viewer who joins from another browser and signs
 * in, keys created and revoked, the audit log naming the person, and a viewer seeing no button to change anything.
 * The cookie session sends no Authorization header, and each change carries the CSRF token. axe and screenshots of
 * the sign-in, members, keys and audit pages.
 */

const OWNER = { email: 'owner@example.com', name: 'Olive Owner', password: 'correct horse battery' };
const VIEWER = { email: 'viewer@example.com', name: 'Vic Viewer', password: 'staple battery horse' };

let t: CliServer;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  // svc-server start on a two-core machine other suites share: the test's own 30 s is not always enough.
  test.setTimeout(120_000);
  t = await startCliServer();
});
test.afterAll(async () => {
  await t?.close();
});

const nav = (page: Page) => page.getByRole('navigation', { name: 'Console' });

/** Signs in on the sign-in page with e-mail and password; resolves once the signed-in frame shows. */
async function signInAs(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${t.url}/sign-in`);
  await page.getByLabel('E-mail', { exact: true }).fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(nav(page)).toBeVisible();
}

test('the first owner is created from the set-up link the banner prints, and is signed in', async ({ page }) => {
  const link = /set-up:\s+(\S+)/.exec(t.output())?.[1];
  expect(link, 'the set-up link in the banner').toMatch(/\/welcome#token=/);
  await page.goto(link!.replace(/^https?:\/\/[^/]+/, t.url));
  await expect(page.getByRole('heading', { name: 'Set up svc' })).toBeVisible();
  // The token leaves the address bar at once.
  expect(page.url()).toBe(`${t.url}/welcome`);
  await page.getByLabel('E-mail', { exact: true }).fill(OWNER.email);
  await page.getByLabel('Name').fill(OWNER.name);
  await page.getByLabel(/^Password/).fill(OWNER.password);
  await page.getByRole('button', { name: 'Create owner' }).click();
  await expect(nav(page)).toBeVisible();
  for (const name of ['Members', 'Keys', 'Audit log', 'My sessions'])
    await expect(nav(page).getByRole('link', { name })).toBeVisible();
  await expect(page.getByText(OWNER.name)).toBeVisible();

  // The link worked once.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.goto(link!.replace(/^https?:\/\/[^/]+/, t.url));
  await page.getByLabel('E-mail', { exact: true }).fill('someone@example.com');
  await page.getByLabel('Name').fill('Someone');
  await page.getByLabel(/^Password/).fill('another long password');
  await page.getByRole('button', { name: 'Create owner' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
});

test('sign-in page: wrong password in words, keyboard-only sign-in, no Authorization header, axe', async ({
  page,
}, testInfo) => {
  await page.goto(`${t.url}/sign-in`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('svc console');
  await expect(page.getByRole('link', { name: 'Forgot password' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Use an API key instead' })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'sign-in');

  // Keyboard only: the e-mail field is the first stop, Tab reaches the password, Enter submits.
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('E-mail', { exact: true })).toBeFocused();
  await page.keyboard.type(OWNER.email);
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Password')).toBeFocused();
  await page.keyboard.type('not the password');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText('Wrong e-mail address or password.');

  const authorized: string[] = [];
  page.on('request', (r) => r.headers().authorization && authorized.push(r.url()));
  await page.getByLabel('Password').fill(OWNER.password);
  await page.keyboard.press('Enter');
  await expect(nav(page)).toBeVisible();
  await expect(page).toHaveURL(`${t.url}/sessions`);
  const cookie = (await page.context().cookies()).find((c) => c.name === 'svc_session');
  expect(cookie?.httpOnly).toBe(true);
  expect(authorized).toEqual([]);

  // An SSO failure sent back to the sign-in page is said in words.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.goto(`${t.url}/sign-in?error=oidc_email_domain`);
  await expect(page.getByRole('alert')).toContainText('not in a domain allowed to sign in here');
});

test('members: invite a viewer, who joins from another browser and signs in; they see no write button', async ({
  page,
  browser,
}, testInfo) => {
  // Two browsers and a dozen pages on a shared two-core machine.
  test.setTimeout(90_000);
  await signInAs(page, OWNER);
  await nav(page).getByRole('link', { name: 'Members' }).click();
  await expect(page.getByRole('heading', { name: 'Members', level: 1 })).toBeVisible();
  await expect(page.getByRole('cell', { name: OWNER.email, exact: true })).toBeVisible();

  const invited = page.waitForRequest(
    (r) => r.url().endsWith('/control-plane/members/invitations') && r.method() === 'POST',
  );
  await page.getByLabel('E-mail', { exact: true }).fill(VIEWER.email);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Invite' }).click();
  // A cookie session's change proves same origin with the token from /auth/session, and carries no key.
  const request = await invited;
  expect(request.headers()['x-svc-csrf']).toBeTruthy();
  expect(request.headers().authorization).toBeUndefined();
  const region = page.getByRole('region', { name: 'Invitation link' });
  const link = (await region.locator('code').textContent())!;
  expect(link).toMatch(/\/join#token=/);
  await expect(page.getByRole('cell', { name: VIEWER.email, exact: true })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'members');

  const other = await browser.newContext();
  const joining = await other.newPage();
  await joining.goto(link.replace(/^https?:\/\/[^/]+/, t.url));
  await expect(joining.getByText(`as viewer with the e-mail address ${VIEWER.email}`)).toBeVisible();
  await joining.getByLabel('Your name').fill(VIEWER.name);
  await joining.getByLabel(/^Password/).fill(VIEWER.password);
  await joining.getByRole('button', { name: 'Join' }).click();
  await expect(nav(joining)).toBeVisible();
  await joining.getByRole('button', { name: 'Sign out' }).click();

  // The new member signs in with their password; as a viewer they see no team page and no button that changes.
  await signInAs(joining, VIEWER);
  for (const name of ['Members', 'Keys', 'Audit log'])
    await expect(nav(joining).getByRole('link', { name })).toHaveCount(0);
  await nav(joining).getByRole('link', { name: 'Notifications' }).click();
  await expect(joining.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
  await expect(joining.getByRole('button', { name: 'New channel' })).toHaveCount(0);
  await joining.goto(`${t.url}/account`);
  await expect(joining.getByText('this session')).toBeVisible();
  await other.close();

  await page.reload();
  await expect(page.getByRole('row').filter({ hasText: VIEWER.email }).getByRole('combobox')).toHaveValue('viewer');
  await expect(page.getByText('No invitation is waiting.')).toBeVisible();
});

test('keys: create one (shown once) and revoke it after confirming; the audit log names the person', async ({
  page,
}, testInfo) => {
  // Two browsers and a dozen pages on a shared two-core machine.
  test.setTimeout(90_000);
  await signInAs(page, OWNER);
  await nav(page).getByRole('link', { name: 'Keys' }).click();
  await page.getByLabel('Name').fill('ci-read');
  await page.getByLabel('Scope').selectOption('read');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByRole('region', { name: 'New key' }).locator('code').textContent())!;
  expect(key).toMatch(/^svc_read_/);
  const row = page.getByRole('row').filter({ hasText: 'ci-read' });
  await expect(row).toContainText(OWNER.email);
  const me = () => fetch(`${t.url}/control-plane/me`, { headers: { authorization: `Bearer ${key}` } });
  expect((await me()).status).toBe(200);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'keys');

  await row.getByRole('button', { name: 'Revoke key ci-read' }).click();
  await page.getByRole('button', { name: 'Confirm revoke' }).click();
  await expect(row).toContainText('revoked');
  expect((await me()).status).not.toBe(200);

  await nav(page).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('heading', { name: 'Audit log', level: 1 })).toBeVisible();
  await expect(page.getByRole('cell', { name: OWNER.email, exact: true }).first()).toBeVisible();
  await page.getByLabel('Actor').fill(OWNER.email);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/actor=owner%40example\.com/);
  const rows = page.getByRole('table', { name: 'Audit log' }).getByRole('row');
  await expect(rows.filter({ hasText: 'POST /control-plane/keys' }).first()).toBeVisible();
  await expect(rows.filter({ hasText: 'POST /control-plane/members/invitations' }).first()).toBeVisible();
  // The export takes the time range: with "Last 24 hours" chosen, its link carries it.
  await page.getByLabel('Time range').selectOption('24h');
  await expect(page.getByRole('link', { name: 'Export JSON lines' })).toHaveAttribute(
    'href',
    /^\/control-plane\/audit\/export\?from=\d+&to=\d+$/,
  );
  const exported = await page.request.get(`${t.url}/control-plane/audit/export`);
  expect(exported.status()).toBe(200);
  expect((await exported.text()).split('\n').filter(Boolean).length).toBeGreaterThan(1);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'audit');
});
