import { expect, type Page } from '@playwright/test';
import type { CliServer } from '../../support/svc-server';

/** The people the console specs sign in as: the first owner (from the set-up link) and a viewer they invite. */
export const OWNER = { email: 'owner@example.com', name: 'Olive Owner', password: 'correct horse battery' };
export const VIEWER = { email: 'viewer@example.com', name: 'Vic Viewer', password: 'staple battery horse' };

type Session = { cookie: string; csrf: string };

/** A JSON POST as the console's page makes it (its Origin; the session's cookie and CSRF token when given). */
async function post(t: CliServer, path: string, body: unknown, session?: Session): Promise<Response> {
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

/** Through the API: the owner from the set-up link `t`'s banner printed, and a viewer they invite, with passwords. */
export async function setUpOwnerAndViewer(t: CliServer): Promise<void> {
  const link = /set-up:\s+(\S+)/.exec(t.output())?.[1] ?? '';
  const token = (url: string) => /#token=([\w-]+)/.exec(url)?.[1];
  const setUp = await post(t, '/auth/setup', { token: token(link), ...OWNER });
  const cookie = /svc_session=[^;]+/.exec(setUp.headers.get('set-cookie') ?? '')?.[0] ?? '';
  const session = { cookie, csrf: ((await setUp.json()) as { csrf_token: string }).csrf_token };
  const invited = await post(t, '/control-plane/members/invitations', { email: VIEWER.email, role: 'viewer' }, session);
  const { link: invitation } = (await invited.json()) as { link: string };
  await post(t, '/auth/invitations/accept', { token: token(invitation), name: VIEWER.name, password: VIEWER.password });
}

/** Signs in on the sign-in page with e-mail and password, then opens the console page the navigation names `link`. */
export async function signInAndOpen(
  page: Page,
  t: CliServer,
  who: { email: string; password: string },
  link: string,
): Promise<void> {
  await page.goto(`${t.url}/sign-in`);
  await page.getByLabel('E-mail', { exact: true }).fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
}
