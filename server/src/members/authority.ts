import { roleRank, type Role } from '../auth/roles';
import type { Actor } from '../http/env';
import { forbidden } from '../shared/domain-errors';

/**
 * Who changes the membership, as the rules see them: a person with their role, or a key. A key that may manage members
 * is an admin key, and counts as an admin: it never grants, changes or removes an owner.
 */
export interface Authority {
  role: Role;
  /** The person's user id; null for a key. */
  userId: string | null;
}

export const authorityOf = (actor: Actor): Authority =>
  actor.kind === 'person' ? { role: actor.person.role, userId: actor.person.userId } : { role: 'admin', userId: null };

/** A role may grant only roles at or below its own: an admin makes admins, members and viewers; an owner, owners too. */
export function checkMayGrant(by: Authority, role: Role): void {
  if (roleRank(role) > roleRank(by.role))
    throw forbidden(`only an owner may grant the ${role} role; yours is ${by.role}`);
}

/** Owners are changed and removed by owners only, so an admin cannot take the organisation from them. */
export function checkMayTouch(by: Authority, target: { role: Role; email: string }): void {
  if (target.role === 'owner' && by.role !== 'owner')
    throw forbidden(`${target.email} is an owner: only an owner may change or remove an owner`);
}
