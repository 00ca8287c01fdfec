import { ConfigError } from '../../config';
import { ROLES, type Role } from '../roles';

/** Single sign-on through an OpenID provider (SVC_OIDC_* settings, docs/teams.md). */
export interface OidcSettings {
  /** The issuer identifier; its discovery document is at `<issuer>/.well-known/openid-configuration`. */
  issuer: URL;
  clientId: string;
  /** Absent for a public client, which proves itself with PKCE alone. */
  clientSecret?: string;
  /** Space-separated, always including `openid`. */
  scopes: string;
  /** The claim holding the e-mail address (ID token, else userinfo). */
  emailClaim: string;
  /** The claim holding the person's groups: an array of names, or one name. */
  groupsClaim: string;
  /** Lower-case e-mail domains allowed to sign in; empty allows any. */
  allowedDomains: string[];
  /** Group name to the role it grants; the highest matched role wins. */
  groupRoles: ReadonlyMap<string, Role>;
  /** The role of a person no mapped group matches; null grants no membership just in time. */
  defaultRole: Role | null;
  /** The sign-in button's label. */
  name: string;
}

/**
 * Who may sign in and with which role: from SVC_OIDC_*, unless the organisation stored its own (organisation/, docs/
 * teams.md "Organisation"), which then replaces all three.
 */
export type SsoPolicy = Pick<OidcSettings, 'allowedDomains' | 'groupRoles' | 'defaultRole'>;

export const OIDC_DEFAULTS = {
  scopes: 'openid email profile',
  emailClaim: 'email',
  groupsClaim: 'groups',
  defaultRole: 'viewer',
  name: 'Single sign-on',
} as const;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Plain http is for a provider on this machine only (development, tests); anything else must be https. */
export const isLoopbackHttp = (url: URL): boolean => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

const list = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');

function parseRole(name: string, raw: string, orElse = ''): Role {
  if (!(ROLES as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name}: "${raw}" is not a role; use one of ${ROLES.join(', ')}${orElse}`);
  }
  return raw as Role;
}

function parseIssuer(raw: string): URL {
  const name = 'SVC_OIDC_ISSUER';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `${name} must be the provider's issuer URL, e.g. https://accounts.example.com (got "${raw}")`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError(`${name} must be an issuer URL without query or fragment (got "${raw}")`);
  }
  if (url.protocol !== 'https:' && !isLoopbackHttp(url)) {
    throw new ConfigError(`${name} must be an https URL; plain http is only for localhost (got "${raw}")`);
  }
  return url;
}

function parseGroupRoles(raw: string | undefined): Map<string, Role> {
  const name = 'SVC_OIDC_GROUP_ROLES';
  const roles = new Map<string, Role>();
  for (const entry of list(raw)) {
    // The last "=" separates the role, so a group name may contain "=" itself (cn=admins=admin).
    const at = entry.lastIndexOf('=');
    const group = entry.slice(0, at).trim();
    if (at < 0 || group === '') {
      throw new ConfigError(`${name}: "${entry}" is not group=role, e.g. svc-admins=admin,devs=member`);
    }
    roles.set(group, parseRole(name, entry.slice(at + 1).trim()));
  }
  return roles;
}

/** A lower-case e-mail domain such as example.com: two labels at least, no trailing dot. */
export const isEmailDomain = (domain: string): boolean => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain);

function parseDomains(raw: string | undefined): string[] {
  return list(raw).map((domain) => {
    const bare = domain.replace(/^@/, '').toLowerCase();
    if (!isEmailDomain(bare)) {
      throw new ConfigError(`SVC_OIDC_ALLOWED_DOMAINS: "${domain}" is not an e-mail domain like example.com`);
    }
    return bare;
  });
}

function parseScopes(raw: string | undefined): string {
  const scopes = (raw ?? OIDC_DEFAULTS.scopes).split(/[\s,]+/).filter((s) => s !== '');
  if (!scopes.includes('openid')) {
    throw new ConfigError(`SVC_OIDC_SCOPES must include openid (got "${raw}")`);
  }
  return scopes.join(' ');
}

const nonEmpty = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
};

/**
 * Reads SVC_OIDC_* from `env`: undefined when single sign-on is not configured (no SVC_OIDC_* set); a ConfigError naming
 * the variable when a value is wrong or one that is needed is missing.
 */
export function readOidcSettings(env: NodeJS.ProcessEnv): OidcSettings | undefined {
  const issuer = nonEmpty(env, 'SVC_OIDC_ISSUER');
  const clientId = nonEmpty(env, 'SVC_OIDC_CLIENT_ID');
  if (issuer === undefined) {
    const stray = Object.keys(env).find((key) => key.startsWith('SVC_OIDC_') && nonEmpty(env, key) !== undefined);
    if (stray) throw new ConfigError(`${stray} needs SVC_OIDC_ISSUER too (the provider's issuer URL)`);
    return undefined;
  }
  if (clientId === undefined) throw new ConfigError('SVC_OIDC_ISSUER needs SVC_OIDC_CLIENT_ID too');
  const defaultRole = nonEmpty(env, 'SVC_OIDC_DEFAULT_ROLE') ?? OIDC_DEFAULTS.defaultRole;
  const clientSecret = nonEmpty(env, 'SVC_OIDC_CLIENT_SECRET');
  return {
    issuer: parseIssuer(issuer),
    clientId,
    ...(clientSecret === undefined ? {} : { clientSecret }),
    scopes: parseScopes(nonEmpty(env, 'SVC_OIDC_SCOPES')),
    emailClaim: nonEmpty(env, 'SVC_OIDC_EMAIL_CLAIM') ?? OIDC_DEFAULTS.emailClaim,
    groupsClaim: nonEmpty(env, 'SVC_OIDC_GROUPS_CLAIM') ?? OIDC_DEFAULTS.groupsClaim,
    allowedDomains: parseDomains(env['SVC_OIDC_ALLOWED_DOMAINS']),
    groupRoles: parseGroupRoles(env['SVC_OIDC_GROUP_ROLES']),
    defaultRole: defaultRole === 'none' ? null : parseRole('SVC_OIDC_DEFAULT_ROLE', defaultRole, ' or none'),
    name: nonEmpty(env, 'SVC_OIDC_NAME') ?? OIDC_DEFAULTS.name,
  };
}
