import type { KeyScope } from '../db/schema';

/** A member's role in an organisation (docs/teams.md, "Roles"). */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const satisfies readonly Role[];

/**
 * What an operation needs. Every control-plane operation declares one (`x-svc-permission` in the OpenAPI document) and
 * the control plane's one authorisation middleware enforces it for people and keys alike.
 */
export type Permission =
  /** See the project's telemetry, issues, incidents, settings (never a secret). */
  | 'project.view'
  /** Issue status and assignment, analyses and fix pull requests, incidents opened, acknowledged, resolved. */
  | 'issues.triage'
  /** What CI sends besides telemetry: source maps and Playwright test runs. */
  | 'releases.write'
  /** Notification channels and rules, integrations, repositories, cost connections. */
  | 'project.configure'
  /** Projects and machine keys of the organisation. */
  | 'keys.manage'
  /** Invite, change and remove members (never an owner unless the actor is one), revoke their sessions. */
  | 'members.manage'
  | 'audit.view'
  /** The organisation itself, single sign-on, owners. */
  | 'org.manage';

export const PERMISSIONS = [
  'project.view',
  'issues.triage',
  'releases.write',
  'project.configure',
  'keys.manage',
  'members.manage',
  'audit.view',
  'org.manage',
] as const satisfies readonly Permission[];

const VIEWER: readonly Permission[] = ['project.view'];
const MEMBER: readonly Permission[] = [...VIEWER, 'issues.triage', 'releases.write'];
const ADMIN: readonly Permission[] = [...MEMBER, 'project.configure', 'keys.manage', 'members.manage', 'audit.view'];
const OWNER: readonly Permission[] = [...ADMIN, 'org.manage'];

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: OWNER,
  admin: ADMIN,
  member: MEMBER,
  viewer: VIEWER,
};

/**
 * Machine keys keep what they could do before people signed in: a read key views, a control key works one project
 * (configuration included), an admin key manages the organisation's projects, keys, members and audit log. No key
 * manages the organisation itself: that takes an owner.
 */
export const SCOPE_PERMISSIONS: Readonly<Record<KeyScope, readonly Permission[]>> = {
  ingest: [],
  read: VIEWER,
  control: [...MEMBER, 'project.configure'],
  admin: ADMIN,
};

/** Roles ordered by what they may do: a role may grant only roles at or below its own. */
export const roleRank = (role: Role): number => ROLES.length - ROLES.indexOf(role);
