import { expect, test } from '@playwright/test';
import type { TestOidcProvider } from '../support/oidc-provider';
import { startSsoServer, type SsoServer } from '../support/oidc-server';
import type { ServerProcess } from '../support/server-process';

/**
 * Single sign-on in Chromium: `svc-server start` with a real OpenID provider on loopback (test/support/oidc-provider.ts).
 * The browser opens /auth/oidc/start, types its account into the provider's own sign-in form, and comes back through
 * the callback to the console, signed in as that person with the role their group maps to.
 */

let provider: TestOidcProvider;
let server: ServerProcess;
let sso: SsoServer | undefined;

test.beforeAll(async () => {
  const alice = { id: 'alice', email: 'alice@example.com', name: 'Alice Admin', groups: ['svc-admins'] };
  sso = await startSsoServer([alice], { 'oidc-group-roles': 'svc-admins=admin', 'oidc-default-role': 'none' });
  ({ provider, server } = sso);
});

test.afterAll(() => sso?.close());

test('signs in through the identity provider and lands on the console with the mapped role', async ({ page }) => {
  await page.goto(`${server.url}/auth/oidc/start`);
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.getByLabel('Account').fill('alice');
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.waitForURL((url) => url.origin === server.url && !url.pathname.startsWith('/auth/'));
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  await expect(page.getByRole('banner').getByText('admin', { exact: true })).toBeVisible();

  // The console's requests carry the session cookie the callback set: the person, not a key.
  const me = await page.request.get(`${server.url}/control-plane/me`);
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({
    key: null,
    person: { email: 'alice@example.com', name: 'Alice Admin', role: 'admin' },
  });
  const cookies = await page.context().cookies(server.url);
  expect(cookies.find((cookie) => cookie.name === 'svc_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  expect(cookies.find((cookie) => cookie.name === 'svc_oidc')).toBeUndefined();
});
