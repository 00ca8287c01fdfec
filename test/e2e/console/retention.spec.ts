import { expect, test, type Page } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { expectAccessible, screenshot } from './support';

/**
 * The Data retention page (issue 32), in Chromium against `svc-server start --retention-replays-days 20`: the owner
 * sets the project's replays and logs by keyboard and puts metrics back to the server default (an empty field), each
 * field showing the server default as its placeholder; a viewer reads the days with nothing to change. axe and
 * screenshots of both views.
 */

const OWNER = { email: 'owner@example.com', name: 'Olive Owner', password: 'correct horse battery' };
const VIEWER = { email: 'viewer@example.com', name: 'Vic Viewer', password: 'staple battery horse' };

let t: CliServer;

test.describe.configure({ mode: 'serial' });

async function post(path: string, body: unknown, session?: { cookie: string; csrf: string }) {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: {
      origin: t.url,
      'content-type': 'application/json',
      ...(session && { cookie: session.cookie, 'x-svc-csrf': session.csrf }),
    },
    body: JSON.stringify(body),
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return res;
}

/** The owner from the set-up link the banner prints, and a viewer they invite. */
async function setUpPeople(): Promise<void> {
  const link = /set-up:\s+(\S+)/.exec(t.output())?.[1] ?? '';
  const token = (url: string) => /#token=([\w-]+)/.exec(url)?.[1];
  const setUp = await post('/auth/setup', { token: token(link), ...OWNER });
  const cookie = /svc_session=[^;]+/.exec(setUp.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const session = { cookie, csrf: ((await setUp.json()) as { csrf_token: string }).csrf_token };
  const invited = await post('/control-plane/members/invitations', { email: VIEWER.email, role: 'viewer' }, session);
  const { link: invitation } = (await invited.json()) as { link: string };
  await post('/auth/invitations/accept', { token: token(invitation), name: VIEWER.name, password: VIEWER.password });
}

test.beforeAll(async () => {
  // svc-server start on a two-core machine other suites share: the test's own 30 s is not always enough.
  test.setTimeout(120_000);
  t = await startCliServer({ 'retention-replays-days': '20' });
  await setUpPeople();
});
test.afterAll(async () => {
  await t?.close();
});

async function openRetention(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${t.url}/sign-in`);
  await page.getByLabel('E-mail', { exact: true }).fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Data retention' }).click();
  await expect(page.getByRole('heading', { name: 'Data retention', level: 1 })).toBeVisible();
}

/** Each signal's days and source as the API answers them, asked with the page's own session. */
async function retention(page: Page) {
  const res = await page.request.get(`${t.url}/control-plane/retention`);
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { signals: Array<{ signal: string; days: number; source: string }> };
  return Object.fromEntries(body.signals.map((s) => [s.signal, `${s.days} ${s.source}`]));
}

test("the owner sets the project's days by keyboard and resets one to the server default", async ({
  page,
}, testInfo) => {
  await openRetention(page, OWNER);
  const replays = page.getByLabel('Replays');
  await expect(replays).toHaveAttribute('placeholder', 'server default (20 days)');
  await expect(page.getByLabel('Logs')).toHaveAttribute('placeholder', 'server default (30 days)');
  // The audit log is the organisation's: shown, not editable here.
  await expect(page.getByLabel('Audit log')).toHaveText('30 days');

  await page.getByLabel('Metrics').fill('90');
  await replays.focus();
  await page.keyboard.type('14');
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Recipes')).toBeFocused();
  await page.getByLabel('Logs').fill('0');
  await page.getByLabel('Logs').press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Retention saved.' })).toBeVisible();
  expect(await retention(page)).toMatchObject({
    replays: '14 project',
    logs: '0 project',
    metrics: '90 project',
    spans: '30 server',
  });
  await expect(page.getByRole('row', { name: /Logs/ })).toContainText("project's own (server default 30 days)");

  await page.getByLabel('Metrics').fill('');
  await page.getByRole('button', { name: 'Save retention' }).click();
  await expect.poll(async () => (await retention(page)).metrics).toBe('30 server');
  await expect(page.getByLabel('Metrics')).toHaveValue('');
  await expect(page.getByLabel('Replays')).toHaveValue('14');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'retention');
});

test('a viewer reads the days with nothing to change', async ({ page }, testInfo) => {
  await openRetention(page, VIEWER);
  await expect(page.getByRole('note')).toContainText('Admins and owners change it.');
  await expect(page.getByLabel('Replays')).toHaveText('14 days');
  await expect(page.getByLabel('Logs')).toHaveText('for ever');
  const main = page.getByRole('main');
  await expect(main.getByRole('spinbutton')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Save retention' })).toHaveCount(0);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'retention-viewer');
});
