import { expect, test, type Page } from '@playwright/test';
import { startCliServer, type CliServer } from '../../support/svc-server';
import { OWNER, setUpOwnerAndViewer, signInAndOpen, VIEWER } from './people';
import { expectAccessible, screenshot } from './support';

/**
 * The Organisation page (issue 31), in Chromium against `svc-server start` with single sign-on configured by its
 * SVC_OIDC_* flags: the owner renames the organisation and edits its single sign-on policy (a bad domain refused in
 * words naming the field, a group row added by keyboard), which then replaces the server's; a viewer reads it all with
 * nothing to change; the owner gives the policy back to the server's settings. axe and screenshots of both views.
 */

let t: CliServer;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  // svc-server start on a two-core machine other suites share: the test's own 30 s is not always enough.
  test.setTimeout(120_000);
  t = await startCliServer({
    // Discovery happens at the first sign-in, which this spec never starts: the issuer need not answer.
    'oidc-issuer': 'https://sso.example.com',
    'oidc-client-id': 'svc',
    'oidc-allowed-domains': 'example.com',
    'oidc-group-roles': 'svc-admins=admin',
    'oidc-name': 'Example SSO',
  });
  await setUpOwnerAndViewer(t);
});
test.afterAll(async () => {
  await t?.close();
});

async function openOrganisation(page: Page, who: { email: string; password: string }): Promise<void> {
  await signInAndOpen(page, t, who, 'Organisation');
  await expect(page.getByRole('heading', { name: 'Organisation', level: 1 })).toBeVisible();
}

/** The organisation as the API answers it, asked with the page's own session. */
async function organisation(page: Page) {
  const res = await page.request.get(`${t.url}/control-plane/organisation`);
  expect(res.status()).toBe(200);
  return (await res.json()) as { name: string; sso: { policy: unknown; policy_source: string } };
}

test('the owner renames the organisation and sets its single sign-on policy', async ({ page }, testInfo) => {
  await openOrganisation(page, OWNER);
  const sso = page.getByRole('region', { name: 'Single sign-on' });
  await expect(sso).toContainText('enabled Example SSO through https://sso.example.com/');
  await expect(sso).toContainText("the server's settings (SVC_OIDC_ALLOWED_DOMAINS");

  await page.getByLabel('Organisation name').fill('Acme Corp');
  await page.getByRole('button', { name: 'Rename' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Renamed to Acme Corp.' })).toBeVisible();

  // The environment's policy is where editing starts.
  const domains = page.getByLabel(/^Allowed e-mail domains/);
  await expect(domains).toHaveValue('example.com');
  await expect(page.getByLabel('Group 1', { exact: true })).toHaveValue('svc-admins');
  await expect(page.getByLabel('Role of group 1')).toHaveValue('admin');

  await domains.fill('not a domain');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'sso_policy.allowed_domains[0] must be an e-mail domain such as example.com',
  );

  await domains.fill('corp.example.com, Example.com');
  // Keyboard: "Add group" puts the focus in the new row's group field.
  await page.getByRole('button', { name: 'Add group' }).press('Enter');
  await expect(page.getByLabel('Group 2', { exact: true })).toBeFocused();
  await page.keyboard.type('Engineering');
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Role of group 2')).toBeFocused();
  await page.getByLabel('Role of group 2').selectOption('member');
  await page.getByLabel(/^Default role/).selectOption('none');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Single sign-on policy saved.' })).toBeVisible();
  await expect(sso).toContainText("the organisation's own");

  expect(await organisation(page)).toMatchObject({
    name: 'Acme Corp',
    sso: {
      policy: {
        allowed_domains: ['corp.example.com', 'example.com'],
        group_roles: { 'svc-admins': 'admin', Engineering: 'member' },
        default_role: 'none',
      },
      policy_source: 'organisation',
    },
  });
  await expectAccessible(page);
  await screenshot(page, testInfo, 'organisation');
});

test('a viewer reads the organisation and its policy, with nothing to change', async ({ page }, testInfo) => {
  await openOrganisation(page, VIEWER);
  await expect(page.getByRole('note')).toHaveText('The organisation and its single sign-on are managed by its owners.');
  await expect(page.getByText('Acme Corp', { exact: true })).toBeVisible();
  const sso = page.getByRole('region', { name: 'Single sign-on' });
  await expect(sso).toContainText("the organisation's own");
  await expect(sso).toContainText('corp.example.com, example.com');
  await expect(sso).toContainText('svc-admins → admin, Engineering → member');
  await expect(sso).toContainText('none (only mapped groups get in)');
  const main = page.getByRole('main');
  await expect(main.getByRole('textbox')).toHaveCount(0);
  await expect(main.getByRole('combobox')).toHaveCount(0);
  for (const name of ['Rename', 'Save policy', 'Add group', "Use the server's policy instead"])
    await expect(page.getByRole('button', { name })).toHaveCount(0);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'organisation-viewer');
});

test("the owner gives the policy back to the server's settings", async ({ page }) => {
  await openOrganisation(page, OWNER);
  await page.getByRole('button', { name: "Use the server's policy instead" }).click();
  await expect(
    page.getByRole('status').filter({ hasText: "The server's single sign-on policy applies again." }),
  ).toBeVisible();
  await expect(page.getByRole('region', { name: 'Single sign-on' })).toContainText("the server's settings");
  await expect(page.getByLabel(/^Allowed e-mail domains/)).toHaveValue('example.com');
  expect((await organisation(page)).sso.policy_source).toBe('environment');
});
