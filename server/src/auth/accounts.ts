import type { Kysely } from 'kysely';
import { recordAudit } from '../audit/store';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { conflict, forbidden, invalid } from '../shared/domain-errors';
import { revokeSessions } from './console-sessions';
import type { Mailer } from './mailer';
import { hashPassword, verifyPassword } from './passwords';
import { reserveAttempt, signInSucceeded } from './throttle';
import { consumeToken, createToken, revokeTokens } from './tokens-store';
import {
  anyUser,
  findUserByEmail,
  firstMembership,
  insertMembership,
  insertUser,
  normalEmail,
  setPasswordHash,
} from './users-store';

/** Whom a session is opened for once their credentials are checked. */
export interface Member {
  userId: string;
  tenantId: string;
}

/** A reset link works for an hour, once. */
export const RESET_TTL_MS = 3600_000;

/** A change a person made to their own account, as the audit log keeps it (the target is the person). */
function recordOwnChange(
  db: Kysely<Database>,
  clock: Clock,
  change: {
    user: { id: string; email: string };
    tenantId: string;
    operation: string;
    after: Record<string, unknown>;
    address: string | null;
    status: number;
  },
): Promise<void> {
  const { user } = change;
  return recordAudit(db, clock, {
    tenantId: change.tenantId,
    projectId: null,
    actor: { kind: 'person', id: user.id, label: user.email },
    operation: change.operation,
    target: { type: 'member', id: user.id },
    changes: { after: change.after },
    address: change.address,
    status: change.status,
  });
}

const badToken = (what: string) =>
  invalid(`the ${what} link has been used or has expired`, 'invalid_token', { field: 'token' });

/**
 * Creates the first owner with the set-up link's token, in one transaction with the token's use and its audit entry:
 * a second use, or one after someone has an account, changes nothing.
 */
export async function setUpOwner(
  db: Kysely<Database>,
  clock: Clock,
  input: { token: string; email: string; name: string; password: string; address: string | null },
): Promise<Member> {
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (tx) => {
    const token = await consumeToken(tx, clock, 'setup', input.token);
    if (!token?.tenant_id) throw badToken('set-up');
    if (await anyUser(tx)) throw conflict('set_up_done', 'this server has an owner already: sign in instead');
    const user = await insertUser(tx, clock, { email: input.email, name: input.name, passwordHash });
    await insertMembership(tx, clock, { tenantId: token.tenant_id, userId: user.id, role: 'owner' });
    await recordOwnChange(tx, clock, {
      user,
      tenantId: token.tenant_id,
      operation: 'POST /auth/setup',
      after: { email: user.email, name: user.name, role: 'owner' },
      address: input.address,
      status: 201,
    });
    return { userId: user.id, tenantId: token.tenant_id };
  });
}

/**
 * Checks an e-mail and password, counting the attempt against the account and the address first (throttle.ts):
 * undefined for a wrong pair, whether the account exists or not, in the same time either way.
 */
export async function signIn(
  db: Kysely<Database>,
  clock: Clock,
  input: { email: string; password: string; address: string | null },
): Promise<Member | undefined> {
  const email = normalEmail(input.email);
  await reserveAttempt(db, clock, email, input.address);
  const user = await findUserByEmail(db, email);
  if (!(await verifyPassword(user?.password_hash, input.password)) || !user) return undefined;
  await signInSucceeded(db, clock, email, input.address);
  const membership = await firstMembership(db, user.id);
  if (!membership)
    throw forbidden('you are not a member of any organisation any more: ask an admin to invite you', 'not_a_member');
  return { userId: user.id, tenantId: membership.tenant_id };
}

/**
 * Mails a one-hour reset link to a member with this e-mail, ending their earlier links; does nothing for an unknown
 * address. The caller answers before this runs, so neither the answer nor its timing tells whether the account exists.
 */
export async function requestReset(
  db: Kysely<Database>,
  clock: Clock,
  input: { email: string; publicUrl: string; mailer: Mailer | undefined; log: (line: string) => void },
): Promise<void> {
  const user = await findUserByEmail(db, input.email);
  const membership = user && (await firstMembership(db, user.id));
  if (!user || !membership) return;
  if (!input.mailer) {
    input.log(`password reset asked for ${user.email}, but SVC_SMTP_URL is not set: no e-mail sent`);
    return;
  }
  await revokeTokens(db, clock, 'reset', user.email);
  const { token } = await createToken(db, clock, {
    kind: 'reset',
    tenantId: membership.tenant_id,
    email: user.email,
    ttlMs: RESET_TTL_MS,
  });
  const link = `${input.publicUrl}/reset#token=${token}`;
  await input.mailer.sendMail(
    user.email,
    'Reset your svc password',
    `Someone, hopefully you, asked to reset the password of ${user.email} on ${input.publicUrl}.\n\n` +
      `Choose a new one here (the link works once, for an hour):\n${link}\n\n` +
      'If it was not you, ignore this message: your password stays as it is.\n',
  );
}

/** Sets a new password with a reset token and ends every session of the person, in one transaction with its audit. */
export async function completeReset(
  db: Kysely<Database>,
  clock: Clock,
  input: { token: string; password: string; address: string | null },
): Promise<Member> {
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (tx) => {
    const token = await consumeToken(tx, clock, 'reset', input.token);
    const user = token?.email ? await findUserByEmail(tx, token.email) : undefined;
    const membership = user && (await firstMembership(tx, user.id));
    if (!user || !membership) throw badToken('password reset');
    await setPasswordHash(tx, user.id, passwordHash);
    await revokeSessions(tx, clock, { userId: user.id, tenantId: membership.tenant_id });
    await recordOwnChange(tx, clock, {
      user,
      tenantId: membership.tenant_id,
      operation: 'POST /auth/password-reset/complete',
      after: { password: '[REDACTED]' },
      address: input.address,
      status: 200,
    });
    return { userId: user.id, tenantId: membership.tenant_id };
  });
}
