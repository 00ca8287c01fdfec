import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import { recordAudit } from '../audit/store';
import { checkPassword, hashPassword, verifyPassword } from '../auth/passwords';
import type { Role } from '../auth/roles';
import { reserveAttempt, signInSucceeded } from '../auth/throttle';
import { consumeToken } from '../auth/tokens-store';
import { findUserByEmail, insertMembership, insertUser, type UserRow } from '../auth/users-store';
import type { Database } from '../db/schema';
import { conflict, invalid } from '../shared/domain-errors';
import { invitationGone, invitationOf } from './invitations';

export interface Acceptance {
  token: string;
  /** The new account's name; not needed (and not changed) when the e-mail has an account. */
  name?: string | undefined;
  /** The new account's password, or the existing account's. */
  password: string;
  address: string | null;
}

export interface Accepted {
  user: { id: string; email: string; name: string };
  tenantId: string;
  organisation: string;
  role: Role;
}

/** What the invitation's person proves: a new account's name and password, or an existing account's password. */
async function credentials(
  db: Kysely<Database>,
  clock: Clock,
  existing: UserRow | undefined,
  input: Acceptance,
): Promise<{ user: UserRow } | { name: string; passwordHash: string } | 'wrong_password'> {
  if (existing) {
    // Without a password the link alone would hand over an account that signs in through single sign-on.
    if (existing.password_hash === null)
      throw conflict(
        'password_not_set',
        `the account of ${existing.email} has no password (it signs in through single sign-on): set one with a password reset, then accept the invitation`,
      );
    // The same limits as sign-in: an invitation link must not be a way round them to guess the account's password.
    await reserveAttempt(db, clock, existing.email, input.address);
    if (!(await verifyPassword(existing.password_hash, input.password))) return 'wrong_password';
    await signInSucceeded(db, clock, existing.email, input.address);
    return { user: existing };
  }
  const name = input.name?.trim();
  if (!name) throw invalid('name is required to make your account', 'invalid_request', { field: 'name' });
  checkPassword(input.password);
  return { passwordHash: await hashPassword(input.password), name };
}

/**
 * Accepts an invitation: makes the account when the e-mail has none (name and password), else checks that account's
 * password; adds the membership, uses up the token and records it in the audit log, in one transaction. An existing
 * account's wrong password is `wrong_password`, and leaves the invitation usable.
 */
export async function acceptInvitation(
  db: Kysely<Database>,
  clock: Clock,
  input: Acceptance,
): Promise<Accepted | 'wrong_password'> {
  const invitation = await invitationOf(db, clock, input.token);
  const proof = await credentials(db, clock, await findUserByEmail(db, invitation.email), input);
  if (proof === 'wrong_password') return proof;
  return db.transaction().execute(async (tx) => {
    if (!(await consumeToken(tx, clock, 'invite', input.token))) throw invitationGone();
    const user = 'user' in proof ? proof.user : await insertUser(tx, clock, { email: invitation.email, ...proof });
    const member = await tx
      .selectFrom('memberships')
      .select('role')
      .where('tenant_id', '=', invitation.tenantId)
      .where('user_id', '=', user.id)
      .executeTakeFirst();
    if (member) throw conflict('already_member', `${user.email} is a member of this organisation already`);
    const { tenantId, role, projects } = invitation;
    await insertMembership(tx, clock, { tenantId, userId: user.id, role, projects });
    await recordAudit(tx, clock, {
      tenantId,
      projectId: null,
      actor: { kind: 'person', id: user.id, label: user.email },
      operation: 'POST /auth/invitations/accept',
      target: { type: 'member', id: user.id },
      changes: { after: { email: user.email, role, projects } },
      address: input.address,
      status: 201,
    });
    return {
      user: { id: user.id, email: user.email, name: user.name },
      tenantId,
      organisation: invitation.organisation,
      role,
    };
  });
}
