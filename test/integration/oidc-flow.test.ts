import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcClient } from '../../server/src/auth/oidc/client';
import { OidcError } from '../../server/src/auth/oidc/errors';
import { beginSignIn, finishSignIn } from '../../server/src/auth/oidc/flow';
import { readOidcSettings, type OidcSettings } from '../../server/src/auth/oidc/settings';
import { domainRefusal } from '../support/refusal';
import { startOidcProvider, type OidcUser, type TestOidcProvider } from '../support/oidc-provider';

const REDIRECT_URI = 'http://localhost:4318/api/auth/oidc/callback';
const USERS: OidcUser[] = [
  { id: 'alice', email: 'Alice@Example.com', name: 'Alice Admin', groups: ['devs', 'svc-admins'] },
  { id: 'bob', email: 'bob@example.com', name: 'Bob Dev', groups: ['devs', 'marketing'] },
  { id: 'carol', email: 'carol@example.com', emailVerified: false },
  { id: 'dave', email: 'dave@elsewhere.org', groups: ['svc-admins'] },
  { id: 'erin', name: 'Erin Noemail', groups: ['devs'] },
];

let provider: TestOidcProvider;

beforeAll(async () => {
  provider = await startOidcProvider({ redirectUris: [REDIRECT_URI], users: USERS });
});
afterAll(() => provider?.close());

function settingsFor(issuer: TestOidcProvider, extra: Record<string, string> = {}): OidcSettings {
  const settings = readOidcSettings({
    SVC_OIDC_ISSUER: issuer.issuer,
    SVC_OIDC_CLIENT_ID: issuer.clientId,
    SVC_OIDC_CLIENT_SECRET: issuer.clientSecret,
    SVC_OIDC_ALLOWED_DOMAINS: 'example.com',
    SVC_OIDC_GROUP_ROLES: 'svc-admins=admin, devs=member',
    ...extra,
  });
  if (!settings) throw new Error('expected OIDC settings');
  return settings;
}

/** The browser's round trip: the authorization URL, the provider's sign-in as `accountId`, back at the callback. */
async function signIn(accountId: string, settings = settingsFor(provider), client?: oidc.Configuration) {
  const configuration = client ?? (await oidcClient(settings));
  const { url, pending } = await beginSignIn(configuration, settings, REDIRECT_URI);
  const callback = await provider.signIn(url, accountId);
  return { settings, configuration, url, pending, callback };
}

/** The OidcError `work` throws. */
async function refusal(work: Promise<unknown>): Promise<OidcError> {
  const error = await domainRefusal(() => work);
  expect(error).toBeInstanceOf(OidcError);
  return error as OidcError;
}

describe('OpenID Connect sign-in against a real provider', () => {
  it('signs in with authorization code, PKCE S256, state and nonce, and maps the highest group role', async () => {
    const { settings, configuration, url, pending, callback } = await signIn('alice');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).not.toBe(pending.codeVerifier);
    expect(url.searchParams.get('state')).toBe(pending.state);
    expect(url.searchParams.get('nonce')).toBe(pending.nonce);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    expect(callback.searchParams.get('code')).toBeTruthy();

    const identity = await finishSignIn(configuration, settings, callback, pending);
    expect(identity).toEqual({
      subject: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
      name: 'Alice Admin',
      groups: ['devs', 'svc-admins'],
      role: 'admin',
    });
  });

  it('maps a group to its role, and gives the default role (or none) when no group is mapped', async () => {
    const bob = await signIn('bob');
    expect(await finishSignIn(bob.configuration, bob.settings, bob.callback, bob.pending)).toMatchObject({
      groups: ['devs', 'marketing'],
      role: 'member',
    });
    const carol = await signIn('carol');
    expect(await finishSignIn(carol.configuration, carol.settings, carol.callback, carol.pending)).toMatchObject({
      groups: [],
      emailVerified: false,
      name: null,
      role: 'viewer',
    });
    const strict = settingsFor(provider, { SVC_OIDC_DEFAULT_ROLE: 'none' });
    const again = await signIn('carol', strict);
    expect((await finishSignIn(again.configuration, strict, again.callback, again.pending)).role).toBeNull();
  });

  it('refuses a callback whose state is not the one this browser started with', async () => {
    const { settings, configuration, callback, pending } = await signIn('alice');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'another-state');
    const refused = await refusal(finishSignIn(configuration, settings, forged, pending));
    expect(refused.code).toBe('oidc_state_mismatch');
    expect(refused.message).toMatch(/start the sign-in again/i);
    // A callback meant for another browser's sign-in is refused the same way.
    const other = await signIn('bob');
    expect((await refusal(finishSignIn(configuration, settings, other.callback, pending))).code).toBe(
      'oidc_state_mismatch',
    );
  });

  it('refuses a replayed code: the second exchange of the same code fails', async () => {
    const { settings, configuration, callback, pending } = await signIn('bob');
    expect((await finishSignIn(configuration, settings, callback, pending)).email).toBe('bob@example.com');
    const refused = await refusal(finishSignIn(configuration, settings, callback, pending));
    expect(refused.code).toBe('oidc_exchange_failed');
    expect(refused.message).toMatch(/invalid_grant.*used already or has expired/);
  });

  it('refuses an ID token signed with a key the issuer does not publish', async () => {
    const { settings, configuration, callback, pending } = await signIn('alice');
    provider.forgeSignatures(true);
    try {
      const refused = await refusal(finishSignIn(configuration, settings, callback, pending));
      expect(refused.code).toBe('oidc_token_invalid');
      expect(refused.message).toMatch(/signature verification failed/);
    } finally {
      provider.forgeSignatures(false);
    }
  });

  it('refuses an expired ID token (this server two hours ahead of a one-hour token)', async () => {
    const settings = settingsFor(provider);
    const late = await oidc.discovery(
      settings.issuer,
      settings.clientId,
      { [oidc.clockSkew]: 2 * 3600 },
      oidc.ClientSecretBasic(provider.clientSecret ?? ''),
      { execute: [oidc.allowInsecureRequests] },
    );
    const { callback, pending } = await signIn('alice', settings, late);
    const refused = await refusal(finishSignIn(late, settings, callback, pending));
    expect(refused.code).toBe('oidc_token_invalid');
    expect(refused.message).toMatch(/"exp".*past current timestamp.*clock/);
  });

  it('refuses an e-mail address outside the allowed domains, and accepts it when any domain is allowed', async () => {
    const { settings, configuration, callback, pending } = await signIn('dave');
    const refused = await refusal(finishSignIn(configuration, settings, callback, pending));
    expect(refused.code).toBe('oidc_email_domain');
    expect(refused.message).toBe(
      'dave@elsewhere.org may not sign in here: only addresses at example.com may. Sign in with your work account, ' +
        'or ask an administrator to invite you.',
    );
    const open = settingsFor(provider, { SVC_OIDC_ALLOWED_DOMAINS: '' });
    const again = await signIn('dave', open);
    expect(await finishSignIn(again.configuration, open, again.callback, again.pending)).toMatchObject({
      email: 'dave@elsewhere.org',
      role: 'admin',
    });
  });

  it('refuses a sign-in without an e-mail claim, naming the claim', async () => {
    const { settings, configuration, callback, pending } = await signIn('erin');
    const refused = await refusal(finishSignIn(configuration, settings, callback, pending));
    expect(refused.code).toBe('oidc_no_email');
    expect(refused.message).toContain('(claim "email")');
    expect(refused.message).toContain('SVC_OIDC_EMAIL_CLAIM');
  });

  it('reports a refusal at the provider (unknown account: access_denied)', async () => {
    const { settings, configuration, callback, pending } = await signIn('mallory');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const refused = await refusal(finishSignIn(configuration, settings, callback, pending));
    expect(refused.code).toBe('oidc_denied');
    expect(refused.message).toContain('access_denied');
  });

  it('names SVC_OIDC_ISSUER when discovery fails', async () => {
    const settings = settingsFor(provider, { SVC_OIDC_ISSUER: `${provider.issuer}/no-such-realm` });
    const refused = await refusal(oidcClient(settings));
    expect(refused.code).toBe('oidc_discovery_failed');
    expect(refused.message).toContain(`SVC_OIDC_ISSUER (${provider.issuer}/no-such-realm)`);
  });
});

describe('OpenID Connect sign-in as a public client (PKCE, no secret)', () => {
  let publicProvider: TestOidcProvider;
  beforeAll(async () => {
    publicProvider = await startOidcProvider({ redirectUris: [REDIRECT_URI], users: USERS, clientSecret: null });
  });
  afterAll(() => publicProvider?.close());

  it('signs in without a client secret', async () => {
    const settings = settingsFor(publicProvider);
    expect(settings.clientSecret).toBeUndefined();
    const configuration = await oidcClient(settings);
    const { url, pending } = await beginSignIn(configuration, settings, REDIRECT_URI);
    const callback = await publicProvider.signIn(url, 'bob');
    expect(await finishSignIn(configuration, settings, callback, pending)).toMatchObject({
      email: 'bob@example.com',
      role: 'member',
    });
  });
});
