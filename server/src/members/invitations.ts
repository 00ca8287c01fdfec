import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Role } from '../auth/roles';
import { createToken, peekToken } from '../auth/tokens-store';
import { normalEmail } from '../auth/users-store';
import type { Database } from '../db/schema';
import { tenantNamed } from '../projects/store';
import { conflict, DomainError } from '../shared/domain-errors';
import { checkMayGrant, type Authority } from './authority';
import { checkProjectLimit } from './projects';

/** An invitation link works for a week, once. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

/** A pending invitation: sent, neither accepted, withdrawn nor expired. */
export interface Invitation {
  /** The SHA-256 of its token, which is all that is stored: it names the invitation without being its link. */
  id: string;
  email: string;
  role: Role;
  projects: string[] | null;
  createdMs: number;
  expiresMs: number;
  invitedBy: { id: string; email: string } | null;
}

const parseProjects = (raw: string | null): string[] | null => (raw === null ? null : (JSON.parse(raw) as string[]));

/** The one live invitation of a token (unknown, used and expired ones alike are refused with the same words). */
export const invitationGone = () =>
  new DomainError(
    'not_found',
    'invitation_invalid',
    'this invitation link is unknown, used or expired: ask for a new one',
  );

function pending(db: Kysely<Database>, clock: Clock, tenantId: string) {
  return db
    .selectFrom('auth_tokens as t')
    .leftJoin('users as u', 'u.id', 't.created_by')
    .select(['t.token_hash', 't.email', 't.role', 't.projects', 't.created_ms', 't.expires_ms', 'u.id as by_id'])
    .select('u.email as by_email')
    .where('t.kind', '=', 'invite')
    .where('t.tenant_id', '=', tenantId)
    .where('t.used_ms', 'is', null)
    .where('t.expires_ms', '>', clock.now());
}

type PendingRow = Awaited<ReturnType<ReturnType<typeof pending>['executeTakeFirstOrThrow']>>;

const toInvitation = (r: PendingRow): Invitation => ({
  id: r.token_hash,
  email: r.email ?? '',
  role: r.role ?? 'viewer',
  projects: parseProjects(r.projects),
  createdMs: r.created_ms,
  expiresMs: r.expires_ms,
  invitedBy: r.by_id !== null && r.by_email !== null ? { id: r.by_id, email: r.by_email } : null,
});

/** The organisation's pending invitations, newest first. */
export async function listInvitations(db: Kysely<Database>, clock: Clock, tenantId: string): Promise<Invitation[]> {
  return (await pending(db, clock, tenantId).orderBy('t.created_ms', 'desc').execute()).map(toInvitation);
}

/** Ends the pending invitations of `email` to the organisation (a new one replaces them; or withdrawn). */
async function endInvitations(
  db: Kysely<Database>,
  clock: Clock,
  tenantId: string,
  where: { email?: string; id?: string },
) {
  let q = db
    .updateTable('auth_tokens')
    .set({ used_ms: clock.now() })
    .where('kind', '=', 'invite')
    .where('tenant_id', '=', tenantId)
    .where('used_ms', 'is', null);
  if (where.email !== undefined) q = q.where('email', '=', where.email);
  if (where.id !== undefined) q = q.where('token_hash', '=', where.id);
  await q.execute();
}

export interface NewInvitation {
  tenantId: string;
  by: Authority;
  email: string;
  role: Role;
  projects?: readonly string[] | null;
}

/**
 * Invites a person by e-mail: a single-use link valid for a week, replacing any pending invitation of the same address
 * to the organisation. The token is returned this once, for the link.
 */
export function createInvitation(
  db: Kysely<Database>,
  clock: Clock,
  input: NewInvitation,
): Promise<{ invitation: Invitation; token: string }> {
  checkMayGrant(input.by, input.role);
  const email = normalEmail(input.email);
  return db.transaction().execute(async (tx) => {
    const member = await tx
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('u.id')
      .where('m.tenant_id', '=', input.tenantId)
      .where('u.email', '=', email)
      .executeTakeFirst();
    if (member)
      throw conflict('already_member', `${email} is a member of this organisation already`, { field: 'email' });
    const projects = await checkProjectLimit(tx, input.tenantId, input.projects);
    await endInvitations(tx, clock, input.tenantId, { email });
    const made = await createToken(tx, clock, {
      kind: 'invite',
      tenantId: input.tenantId,
      email,
      role: input.role,
      projects,
      createdBy: input.by.userId,
      ttlMs: INVITATION_TTL_MS,
    });
    const invitation = toInvitation(
      await pending(tx, clock, input.tenantId).where('t.token_hash', '=', made.hash).executeTakeFirstOrThrow(),
    );
    return { invitation, token: made.token };
  });
}

/** Withdraws a pending invitation: its link stops working. An owner's invitation is withdrawn by an owner only. */
export async function withdrawInvitation(
  db: Kysely<Database>,
  clock: Clock,
  target: { tenantId: string; by: Authority; id: string },
): Promise<Invitation> {
  const row = await pending(db, clock, target.tenantId).where('t.token_hash', '=', target.id).executeTakeFirst();
  if (!row) throw new DomainError('not_found', 'not_found', `no pending invitation ${target.id}`, { field: 'id' });
  const invitation = toInvitation(row);
  checkMayGrant(target.by, invitation.role);
  await endInvitations(db, clock, target.tenantId, { id: invitation.id });
  return invitation;
}

/** The pending invitation a link's token names, in any organisation; invitation_invalid when there is none. */
export async function invitationOf(db: Kysely<Database>, clock: Clock, token: string) {
  const row = await peekToken(db, clock, 'invite', token);
  if (!row || row.tenant_id === null || row.email === null || row.role === null) throw invitationGone();
  return {
    tenantId: row.tenant_id,
    organisation: (await tenantNamed(db, row.tenant_id)).name,
    email: row.email,
    role: row.role,
    projects: parseProjects(row.projects),
  };
}
