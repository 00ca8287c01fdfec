import { roleRank, type Role } from '../roles';
import { OidcError } from './errors';
import type { OidcSettings } from './settings';

/** Who signed in, as the provider vouches for them, and the role their groups grant. */
export interface OidcIdentity {
  /** The provider's stable identifier for the person (`sub`); an e-mail address can change hands, this cannot. */
  subject: string;
  /** Lower-cased. */
  email: string;
  emailVerified: boolean;
  name: string | null;
  groups: string[];
  /** The highest role of the mapped groups, else the default role; null: no membership just in time. */
  role: Role | null;
}

type Claims = Record<string, unknown>;

function groupsOf(claims: Claims, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((group): group is string => typeof group === 'string');
  return [];
}

/** The highest role any of `groups` maps to, else the default role. */
export function roleFor(settings: OidcSettings, groups: readonly string[]): Role | null {
  const mapped = groups.flatMap((group) => settings.groupRoles.get(group) ?? []);
  if (mapped.length === 0) return settings.defaultRole;
  return mapped.reduce((best, role) => (roleRank(role) > roleRank(best) ? role : best));
}

function emailOf(settings: OidcSettings, claims: Claims): string {
  const value = claims[settings.emailClaim];
  if (typeof value !== 'string' || !value.includes('@')) {
    throw new OidcError(
      'oidc_no_email',
      `The identity provider sent no e-mail address (claim "${settings.emailClaim}"). Ask your administrator to ` +
        `release it to this application, or to set SVC_OIDC_EMAIL_CLAIM to the claim that holds it.`,
    );
  }
  const email = value.trim().toLowerCase();
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (settings.allowedDomains.length > 0 && !settings.allowedDomains.includes(domain)) {
    throw new OidcError(
      'oidc_email_domain',
      `${email} may not sign in here: only addresses at ${settings.allowedDomains.join(', ')} may. ` +
        `Sign in with your work account, or ask an administrator to invite you.`,
    );
  }
  return email;
}

/** The identity in `claims` (ID token claims, completed from userinfo), refused without an allowed e-mail address. */
export function identityFrom(settings: OidcSettings, claims: Claims & { sub: string }): OidcIdentity {
  const email = emailOf(settings, claims);
  const groups = groupsOf(claims, settings.groupsClaim);
  const name = typeof claims['name'] === 'string' && claims['name'] !== '' ? claims['name'] : null;
  return {
    subject: claims.sub,
    email,
    // Some providers send the string "true" (Cognito, older Azure AD B2C).
    emailVerified: claims['email_verified'] === true || claims['email_verified'] === 'true',
    name,
    groups,
    role: roleFor(settings, groups),
  };
}
