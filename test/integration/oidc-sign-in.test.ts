import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../support/cookie-jar';
import type { OidcUser, TestOidcProvider } from '../support/oidc-provider';
import { startSsoServer, type SsoServer } from '../support/oidc-server';
import type { ServerProcess } from '../support/server-process';

/**
 * Single sign-on end to end over HTTP: `svc-server start` with SVC_OIDC_* (as flags) against a real OpenID provider
 * on loopback. Each case is a browser's round trip with a cookie jar: /auth/oidc/start, the provider's sign-in, the
 * callback, then the console session the cookie opened (or the sign-in page's error code). Last, the organisation's own
 * policy (set by its first owner over the control plane) replacing the SVC_OIDC_* one.
 */

const USERS: OidcUser[] = [
  { id: 'alice', email: 'alice@example.com', name: 'Alice Admin', groups: ['devs', 'svc-admins'] },
  { id: 'bob', email: 'bob@example.com', name: 'Bob Dev', groups: ['devs'] },
  { id: 'carol', email: 'carol@example.com', name: 'Carol Nogroup', groups: ['marketing'] },
  { id: 'dave', email: 'dave@elsewhere.org', groups: ['svc-admins'] },
];

let provider: TestOidcProvider;
let server: ServerProcess;
let sso: SsoServer | undefined;
/** The first owner, from the set-up link the banner prints (before anyone has an account): sets the policy. */
const owner = new CookieJar();
let ownerCsrf = '';

async function setUpOwner(): Promise<void> {
  const link = /set-up:\s+(\S+)/.exec(server.output())?.[1] ?? '';
  const res = await fetch(`${server.url}/auth/setup`, {
    method: 'POST',
    headers: { origin: server.url, 'content-type': 'application/json' },
    body: JSON.stringify({
      token: /#token=([\w-]+)/.exec(link)?.[1],
      email: 'owner@example.com',
      name: 'Owner',
      password: 'correct horse battery',
    }),
  });
  owner.take(res);
  expect(res.status, await res.clone().text()).toBe(201);
  ownerCsrf = ((await res.json()) as { csrf_token: string }).csrf_token;
}

beforeAll(async () => {
  sso = await startSsoServer(USERS, {
    'oidc-group-roles': 'svc-admins=admin,devs=member',
    'oidc-default-role': 'none',
    'oidc-allowed-domains': 'example.com',
    'oidc-name': 'Example SSO',
  });
  ({ provider, server } = sso);
  await setUpOwner();
});

afterAll(() => sso?.close());

/** /auth/oidc/start in a fresh browser: its jar (with the pending sign-in's cookie) and the provider URL. */
async function start(jar = new CookieJar()): Promise<{ jar: CookieJar; authorization: URL }> {
  const res = await jar.visit(`${server.url}/auth/oidc/start`);
  expect(res.status).toBe(302);
  return { jar, authorization: new URL(res.headers.get('location') ?? '') };
}

/** The whole round trip as `accountId`: where the callback sends the browser, and the callback URL itself. */
async function signIn(accountId: string) {
  const { jar, authorization } = await start();
  const callback = await provider.signIn(authorization, accountId);
  const pendingCookie = jar.get('svc_oidc');
  const res = await jar.visit(callback);
  expect(res.status).toBe(302);
  return { jar, callback, pendingCookie, location: res.headers.get('location') };
}

async function me(jar: CookieJar) {
  const res = await fetch(`${server.url}/control-plane/me`, { headers: { cookie: jar.header() } });
  return { status: res.status, body: (await res.json()) as { person: { email: string; role: string } | null } };
}

describe('single sign-on through svc-server start and a real OpenID provider', () => {
  it('tells the sign-in page about the provider', async () => {
    const res = await fetch(`${server.url}/auth/options`);
    expect(await res.json()).toMatchObject({ sso: { name: 'Example SSO' } });
  });

  it('starts with a short-lived HttpOnly cookie scoped to the callback, and PKCE, state and nonce', async () => {
    const res = await fetch(`${server.url}/auth/oidc/start`, { redirect: 'manual' });
    const [cookie = ''] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^svc_oidc=[\w-]{43}; Max-Age=600; Path=\/auth\/oidc; HttpOnly; SameSite=Lax$/);
    const authorization = new URL(res.headers.get('location') ?? '');
    expect(authorization.origin).toBe(provider.issuer);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${server.url}/auth/oidc/callback`);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    for (const name of ['state', 'nonce', 'code_challenge'])
      expect(authorization.searchParams.get(name)).toMatch(/^[\w-]{20,}$/);
  });

  it('signs a person in with the role their group maps to, just in time, and opens a console session', async () => {
    const { jar, location } = await signIn('alice');
    expect(location).toBe('/');
    expect(jar.get('svc_oidc')).toBeUndefined();
    expect(jar.get('svc_session')).toBeTruthy();
    const { status, body } = await me(jar);
    expect(status).toBe(200);
    expect(body.person).toMatchObject({ email: 'alice@example.com', name: 'Alice Admin', role: 'admin' });
    // Signing in again finds the same account and membership.
    const again = await signIn('alice');
    expect((await me(again.jar)).body.person).toMatchObject({ email: 'alice@example.com', role: 'admin' });
    expect(server.output()).toContain('single sign-on: alice@example.com signed in');
    // One audit entry for the membership made just in time, none for the second sign-in that changed nothing.
    const audit = await fetch(`${server.url}/control-plane/audit?target_type=member`, {
      headers: { cookie: jar.header() },
    });
    const entries = ((await audit.json()) as { data: unknown[] }).data.filter(
      (entry) => (entry as { changes: { after?: { email?: string } } }).changes.after?.email === 'alice@example.com',
    );
    expect(entries).toEqual([
      expect.objectContaining({
        actor: { kind: 'system', id: 'oidc', label: `single sign-on (${new URL(provider.issuer).host})` },
        operation: 'GET /auth/oidc/callback',
        changes: { after: { email: 'alice@example.com', role: 'admin' } },
        status: 302,
      }),
    ]);
  });

  it('maps the highest role of the groups: devs=member', async () => {
    const { jar, location } = await signIn('bob');
    expect(location).toBe('/');
    expect((await me(jar)).body.person).toMatchObject({ email: 'bob@example.com', role: 'member' });
  });

  it('refuses an e-mail address outside the allowed domains', async () => {
    const { jar, location } = await signIn('dave');
    expect(location).toBe('/sign-in?error=oidc_email_domain');
    expect(jar.get('svc_session')).toBeUndefined();
    expect(server.output()).toContain('single sign-on refused (oidc_email_domain): dave@elsewhere.org may not sign in');
  });

  it('refuses a callback whose state was tampered with', async () => {
    const { jar, authorization } = await start();
    const callback = await provider.signIn(authorization, 'alice');
    const pendingCookie = jar.get('svc_oidc') ?? '';
    callback.searchParams.set('state', 'forged-state');
    const res = await jar.visit(callback);
    expect(res.headers.get('location')).toBe('/sign-in?error=oidc_state_mismatch');
    expect(jar.get('svc_session')).toBeUndefined();
    // The pending sign-in is used up by the attempt: the genuine state cannot follow it.
    callback.searchParams.set('state', authorization.searchParams.get('state') ?? '');
    jar.set('svc_oidc', pendingCookie);
    expect((await jar.visit(callback)).headers.get('location')).toBe('/sign-in?error=oidc_expired');
  });

  it('refuses a replayed callback, with or without the cookie it came with', async () => {
    const { callback, pendingCookie, location } = await signIn('bob');
    expect(location).toBe('/');
    const replay = new CookieJar();
    replay.set('svc_oidc', pendingCookie ?? '');
    const res = await replay.visit(callback);
    expect(res.headers.get('location')).toBe('/sign-in?error=oidc_expired');
    expect(replay.get('svc_session')).toBeUndefined();
    // In another browser that started its own sign-in, the old callback's state is not that browser's.
    const other = await start();
    expect((await other.jar.visit(callback)).headers.get('location')).toBe('/sign-in?error=oidc_state_mismatch');
    expect(other.jar.get('svc_session')).toBeUndefined();
  });

  it('refuses a person who is no member and whose groups map to no role (SVC_OIDC_DEFAULT_ROLE=none)', async () => {
    const { jar, location } = await signIn('carol');
    expect(location).toBe('/sign-in?error=oidc_not_member');
    expect(jar.get('svc_session')).toBeUndefined();
    expect(server.output()).toContain('single sign-on refused (oidc_not_member): carol@example.com is not a member');
  });
});

describe("the organisation's own policy replaces the SVC_OIDC_* one (docs/teams.md, 'Organisation')", () => {
  async function setPolicy(policy: unknown) {
    const res = await fetch(`${server.url}/control-plane/organisation`, {
      method: 'PATCH',
      headers: {
        cookie: owner.header(),
        origin: server.url,
        'x-svc-csrf': ownerCsrf,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ sso_policy: policy }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { sso: { policy_source: string } };
  }

  it('refuses an address of a domain the environment allows but the organisation does not', async () => {
    expect((await setPolicy({ allowed_domains: ['corp.example.com'] })).sso.policy_source).toBe('organisation');
    const { jar, location } = await signIn('bob');
    expect(location).toBe('/sign-in?error=oidc_email_domain');
    expect(jar.get('svc_session')).toBeUndefined();
    expect(server.output()).toContain('bob@example.com may not sign in here: only addresses at corp.example.com may');
  });

  it("grants the role of the organisation's group mapping, which the environment does not have", async () => {
    // carol's group, marketing, maps to nothing in SVC_OIDC_GROUP_ROLES (and SVC_OIDC_DEFAULT_ROLE is none).
    await setPolicy({ allowed_domains: ['example.com'], group_roles: { marketing: 'member' } });
    const { jar, location } = await signIn('carol');
    expect(location).toBe('/');
    expect((await me(jar)).body.person).toMatchObject({ email: 'carol@example.com', role: 'member' });
  });

  it("goes back to the environment's policy when the organisation's is removed", async () => {
    expect((await setPolicy(null)).sso.policy_source).toBe('environment');
    const { jar, location } = await signIn('bob');
    expect(location).toBe('/');
    expect((await me(jar)).body.person).toMatchObject({ email: 'bob@example.com', role: 'member' });
  });
});
