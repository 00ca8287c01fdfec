import type { Kysely } from 'kysely';
import { withinLimit } from '../auth/project-access';
import type { Database } from '../db/schema';
import type { Caller } from '../http/env';
import { memberOf } from '../members/store';
import { invalid } from '../shared/domain-errors';

/** The person an issue or incident is assigned to, as the API shows them. */
export interface Assignee {
  id: string;
  email: string;
  name: string;
}

/** How a request names the caller themselves, in a body (`assignee`) or a filter (`assignee=me`). */
export const ME = 'me';
/** How a filter asks for what is assigned to no one. */
export const NONE = 'none';

const refused = (message: string) => invalid(`assignee: ${message}`, 'invalid_request', { field: 'assignee' });

/** The user id `me` stands for: the signed-in person's; a key is nobody (400 naming `assignee`). */
function myUserId(caller: Caller): string {
  if (caller.actor.kind === 'key')
    throw refused(`"${ME}" is the person signed in, and a key is not a person: name the user id`);
  return caller.actor.person.userId;
}

/**
 * The person a request assigns to (`null` unassigns): a member of the caller's organisation who may act on the
 * caller's project (docs/teams.md, "Ownership"); anyone else is refused with 400 naming `assignee`.
 */
export async function resolveAssignee(
  db: Kysely<Database>,
  caller: Caller,
  requested: string | null,
): Promise<Assignee | null> {
  if (requested === null) return null;
  const userId = requested === ME ? myUserId(caller) : requested;
  const member = await memberOf(db, caller.tenantId, userId);
  if (!member) throw refused(`no member ${userId} in this organisation`);
  if (!withinLimit(member.projects, caller.projectId))
    throw refused(`${member.email} is limited to other projects of the organisation`);
  return { id: member.userId, email: member.email, name: member.name };
}

/** What a listing's `assignee` filter keeps: unassigned ones (`none`), or those of one user id (`me`: the caller's). */
export type AssigneeFilter = { unassigned: true } | { userId: string };

export function assigneeFilter(caller: Caller, raw: string): AssigneeFilter {
  if (raw === NONE) return { unassigned: true };
  return { userId: raw === ME ? myUserId(caller) : raw };
}

/** The assignee of a row read with its assignee's account (`assignee_email`, `assignee_name` from `users`). */
export function assigneeOfRow(row: {
  assignee_id: string | null;
  assignee_email: string | null;
  assignee_name: string | null;
}): Assignee | null {
  const { assignee_id: id, assignee_email: email, assignee_name: name } = row;
  return id === null || email === null || name === null ? null : { id, email, name };
}
