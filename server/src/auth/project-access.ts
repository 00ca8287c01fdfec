import type { Caller } from '../http/env';
import { forbidden } from '../shared/domain-errors';

/** Projects of the organisation a caller may act on: null for all of them (admin keys, unlimited members). */
export const projectsOf = (caller: Caller): readonly string[] | null =>
  caller.actor.kind === 'person' ? caller.actor.person.projects : null;

/** Whether a member limited to `limit` (null: to none) may act on project `id` of their organisation. */
export const withinLimit = (limit: readonly string[] | null, id: string): boolean =>
  limit === null || limit.includes(id);

/** Whether the caller may act on project `id` of its organisation (a member limited to some projects may not on others). */
export const mayActOn = (caller: Caller, id: string): boolean => withinLimit(projectsOf(caller), id);

/** Refuses organisation-wide acts (a new project) to a member limited to some projects. */
export function requireWholeOrganisation(caller: Caller, what: string): void {
  if (projectsOf(caller) !== null)
    throw forbidden(`you are limited to some projects of this organisation, so you cannot ${what}`);
}
