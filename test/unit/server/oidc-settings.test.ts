import { describe, expect, it } from 'vitest';
import { roleFor } from '../../../server/src/auth/oidc/identity';
import { readOidcSettings } from '../../../server/src/auth/oidc/settings';

const BASE = { SVC_OIDC_ISSUER: 'https://id.example.com/realms/acme', SVC_OIDC_CLIENT_ID: 'svc' };

describe('SVC_OIDC_* settings', () => {
  it('is off without SVC_OIDC_*, and has defaults for all but the issuer and client id', () => {
    expect(readOidcSettings({})).toBeUndefined();
    expect(readOidcSettings(BASE)).toEqual({
      issuer: new URL(BASE.SVC_OIDC_ISSUER),
      clientId: 'svc',
      scopes: 'openid email profile',
      emailClaim: 'email',
      groupsClaim: 'groups',
      allowedDomains: [],
      groupRoles: new Map(),
      defaultRole: 'viewer',
      name: 'Single sign-on',
    });
  });

  it('reads every variable', () => {
    const settings = readOidcSettings({
      ...BASE,
      SVC_OIDC_CLIENT_SECRET: 's3cret',
      SVC_OIDC_SCOPES: 'openid email groups',
      SVC_OIDC_EMAIL_CLAIM: 'upn',
      SVC_OIDC_GROUPS_CLAIM: 'roles',
      SVC_OIDC_ALLOWED_DOMAINS: '@Example.com, example.org',
      SVC_OIDC_GROUP_ROLES: 'svc-admins=admin, cn=devs=member, ops=member',
      SVC_OIDC_DEFAULT_ROLE: 'none',
      SVC_OIDC_NAME: 'Sign in with Acme',
    });
    expect(settings).toMatchObject({
      clientSecret: 's3cret',
      scopes: 'openid email groups',
      emailClaim: 'upn',
      groupsClaim: 'roles',
      allowedDomains: ['example.com', 'example.org'],
      defaultRole: null,
      name: 'Sign in with Acme',
    });
    expect([...(settings?.groupRoles ?? [])]).toEqual([
      ['svc-admins', 'admin'],
      ['cn=devs', 'member'],
      ['ops', 'member'],
    ]);
    expect(settings && roleFor(settings, ['cn=devs', 'svc-admins'])).toBe('admin');
    expect(settings && roleFor(settings, ['others'])).toBeNull();
  });

  it.each([
    [{ SVC_OIDC_CLIENT_ID: 'svc' }, 'SVC_OIDC_CLIENT_ID needs SVC_OIDC_ISSUER too'],
    [{ SVC_OIDC_ISSUER: 'https://id.example.com' }, 'SVC_OIDC_ISSUER needs SVC_OIDC_CLIENT_ID too'],
    [{ ...BASE, SVC_OIDC_ISSUER: 'id.example.com' }, 'SVC_OIDC_ISSUER must be the provider'],
    [{ ...BASE, SVC_OIDC_ISSUER: 'http://id.example.com' }, 'SVC_OIDC_ISSUER must be an https URL'],
    [{ ...BASE, SVC_OIDC_SCOPES: 'email profile' }, 'SVC_OIDC_SCOPES must include openid'],
    [{ ...BASE, SVC_OIDC_ALLOWED_DOMAINS: 'example' }, 'SVC_OIDC_ALLOWED_DOMAINS: "example" is not an e-mail domain'],
    [{ ...BASE, SVC_OIDC_GROUP_ROLES: 'admins' }, 'SVC_OIDC_GROUP_ROLES: "admins" is not group=role'],
    [{ ...BASE, SVC_OIDC_GROUP_ROLES: 'admins=root' }, 'SVC_OIDC_GROUP_ROLES: "root" is not a role'],
    [{ ...BASE, SVC_OIDC_DEFAULT_ROLE: 'guest' }, 'viewer or none'],
  ])('refuses %o naming the variable', (env, message) => {
    expect(() => readOidcSettings(env)).toThrow(message);
  });

  it('allows plain http for a provider on this machine only', () => {
    expect(readOidcSettings({ ...BASE, SVC_OIDC_ISSUER: 'http://127.0.0.1:8080' })?.issuer.host).toBe('127.0.0.1:8080');
    expect(readOidcSettings({ ...BASE, SVC_OIDC_ISSUER: 'http://localhost:8080/dex' })?.issuer.pathname).toBe('/dex');
  });
});
