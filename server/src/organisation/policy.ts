import { OIDC_DEFAULTS, type OidcSettings, type SsoPolicy } from '../auth/oidc/settings';
import type { Role } from '../auth/roles';

/** A single sign-on policy as the API answers it and the database keeps it (`tenants.sso_policy`). */
export interface SsoPolicyJson {
  /** Lower-case e-mail domains; empty allows any. */
  allowed_domains: string[];
  group_roles: Record<string, Role>;
  /** `none`: only mapped groups (and existing members) get in. */
  default_role: Role | 'none';
}

/** A change to a policy: what it leaves out stays as it was. */
export type PolicyChange = Partial<SsoPolicy>;

export const policyJson = (policy: SsoPolicy): SsoPolicyJson => ({
  allowed_domains: [...policy.allowedDomains],
  group_roles: Object.fromEntries(policy.groupRoles),
  default_role: policy.defaultRole ?? 'none',
});

export const policyOf = (json: SsoPolicyJson): SsoPolicy => ({
  allowedDomains: json.allowed_domains,
  groupRoles: new Map(Object.entries(json.group_roles)),
  defaultRole: json.default_role === 'none' ? null : json.default_role,
});

/** The server's policy (SVC_OIDC_*); without single sign-on configured, its defaults: any domain, no groups, viewer. */
export const environmentPolicy = (settings: OidcSettings | undefined): SsoPolicy => ({
  allowedDomains: settings?.allowedDomains ?? [],
  groupRoles: settings?.groupRoles ?? new Map(),
  defaultRole: settings ? settings.defaultRole : OIDC_DEFAULTS.defaultRole,
});

/** `current` with what `change` gives; a domain given twice is kept once. */
const changedPolicy = (current: SsoPolicy, change: PolicyChange): SsoPolicy => ({
  allowedDomains: change.allowedDomains ? [...new Set(change.allowedDomains)] : current.allowedDomains,
  groupRoles: change.groupRoles ?? current.groupRoles,
  defaultRole: change.defaultRole !== undefined ? change.defaultRole : current.defaultRole,
});

/**
 * The organisation's policy after `change`: unchanged when it gives none, removed by null, else the policy in force
 * (the stored one, else `inForce`, the environment's) with what it gives.
 */
export function nextPolicy(
  stored: SsoPolicy | null,
  change: PolicyChange | null | undefined,
  inForce: SsoPolicy,
): SsoPolicy | null {
  if (change === undefined) return stored;
  if (change === null) return null;
  return changedPolicy(stored ?? inForce, change);
}
