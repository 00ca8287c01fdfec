import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import { clearAssignments } from '../assignment/store';
import { revokeSessions } from '../auth/console-sessions';
import type { Role } from '../auth/roles';
import type { Database } from '../db/schema';
import { conflict, DomainError } from '../shared/domain-errors';
import { checkMayGrant, checkMayTouch, type Authority } from './authority';
import { checkProjectLimit } from './projects';

/** A member of an organisation as the API lists them. */
export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  /** Project ids they are limited to; null for every project of the organisation. */
  projects: string[] | null;
  createdMs: number;
  /** Their last request from any console session in this organisation; null when they have never signed in. */
  lastSeenMs: number | null;
}

const parseProjects = (raw: string | null): string[] | null => (raw === null ? null : (JSON.parse(raw) as string[]));

function membersOf(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id as user_id', 'u.email', 'u.name', 'm.role', 'm.projects', 'm.created_ms'])
    .select((eb) =>
      eb
        .selectFrom('console_sessions as s')
        .select((s) => s.fn.max('s.last_seen_ms').as('at'))
        .whereRef('s.user_id', '=', 'm.user_id')
        .whereRef('s.tenant_id', '=', 'm.tenant_id')
        .as('last_seen_ms'),
    )
    .where('m.tenant_id', '=', tenantId);
}

type MemberRow = Awaited<ReturnType<ReturnType<typeof membersOf>['executeTakeFirstOrThrow']>>;

const toMember = (r: MemberRow): Member => ({
  userId: r.user_id,
  email: r.email,
  name: r.name,
  role: r.role,
  projects: parseProjects(r.projects),
  createdMs: r.created_ms,
  lastSeenMs: r.last_seen_ms === null ? null : Number(r.last_seen_ms),
});

/** The organisation's members, longest-standing first. */
export async function listMembers(db: Kysely<Database>, tenantId: string): Promise<Member[]> {
  const rows = await membersOf(db, tenantId).orderBy('m.created_ms').orderBy('u.email').execute();
  return rows.map(toMember);
}

/** A member of the organisation, or undefined when `userId` is none. */
export async function memberOf(db: Kysely<Database>, tenantId: string, userId: string): Promise<Member | undefined> {
  const row = await membersOf(db, tenantId).where('m.user_id', '=', userId).executeTakeFirst();
  return row && toMember(row);
}

/** A member of the organisation; not_found naming `user_id` otherwise. */
export async function findMember(db: Kysely<Database>, tenantId: string, userId: string): Promise<Member> {
  const member = await memberOf(db, tenantId, userId);
  if (!member)
    throw new DomainError('not_found', 'not_found', `no member ${userId} in this organisation`, { field: 'user_id' });
  return member;
}

/**
 * Serializes membership changes in one organisation, so two owners demoting each other at once cannot leave it with
 * none: the tenant's row is written first, which takes its row lock on PostgreSQL and the write lock on SQLite.
 */
async function lockTenant(db: Kysely<Database>, tenantId: string): Promise<void> {
  await db
    .updateTable('tenants')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', tenantId)
    .execute();
}

/** Refuses to leave the organisation without an owner: 409 naming the last one. */
async function checkNotLastOwner(db: Kysely<Database>, tenantId: string, target: Member): Promise<void> {
  const others = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'owner')
    .where('user_id', '!=', target.userId)
    .limit(1)
    .executeTakeFirst();
  if (!others)
    throw conflict(
      'last_owner',
      `${target.email} is the organisation's last owner: make another member an owner first`,
      { user_id: target.userId },
    );
}

export interface MemberChange {
  tenantId: string;
  by: Authority;
  userId: string;
  role?: Role;
  /** Null lifts the limit; left out keeps it. */
  projects?: readonly string[] | null;
}

/** Changes a member's role or project limit under the rules of docs/teams.md; the member before and after. */
export function changeMember(db: Kysely<Database>, change: MemberChange): Promise<{ before: Member; after: Member }> {
  return db.transaction().execute(async (tx) => {
    await lockTenant(tx, change.tenantId);
    const before = await findMember(tx, change.tenantId, change.userId);
    checkMayTouch(change.by, before);
    const after = { ...before };
    if (change.role !== undefined) {
      checkMayGrant(change.by, change.role);
      if (before.role === 'owner' && change.role !== 'owner') await checkNotLastOwner(tx, change.tenantId, before);
      after.role = change.role;
    }
    if (change.projects !== undefined) after.projects = await checkProjectLimit(tx, change.tenantId, change.projects);
    await tx
      .updateTable('memberships')
      .set({ role: after.role, projects: after.projects === null ? null : JSON.stringify(after.projects) })
      .where('tenant_id', '=', change.tenantId)
      .where('user_id', '=', change.userId)
      .execute();
    return { before, after };
  });
}

/**
 * Removes a member (or lets one leave), ends their sessions in the organisation and unassigns what they held in it, in
 * the same transaction, so their next request is refused. Their account stays: they may be invited again. `label`
 * names who removed them in the issues' and incidents' assignment history (actorLabel).
 */
export function removeMember(
  db: Kysely<Database>,
  clock: Clock,
  target: { tenantId: string; by: Authority; label: string; userId: string },
): Promise<Member> {
  return db.transaction().execute(async (tx) => {
    await lockTenant(tx, target.tenantId);
    const member = await findMember(tx, target.tenantId, target.userId);
    checkMayTouch(target.by, member);
    if (member.role === 'owner') await checkNotLastOwner(tx, target.tenantId, member);
    await tx
      .deleteFrom('memberships')
      .where('tenant_id', '=', target.tenantId)
      .where('user_id', '=', target.userId)
      .execute();
    await revokeSessions(tx, clock, { userId: target.userId, tenantId: target.tenantId });
    await clearAssignments(tx, target, { by: target.label, atMs: clock.now() });
    return member;
  });
}
