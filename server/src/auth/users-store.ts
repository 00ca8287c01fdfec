import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { conflict } from '../shared/domain-errors';
import type { Role } from './roles';

export type UserRow = Database['users'];

/** E-mail addresses are compared lower-cased: one person per address whatever the case it is typed in. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

export function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', normalEmail(email)).executeTakeFirst();
}

export function findUser(db: Kysely<Database>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether anyone has an account yet: the server prints a set-up link until someone does. */
export async function anyUser(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Adds a person; 409 `email_taken` when the address has an account already. */
export async function insertUser(
  db: Kysely<Database>,
  clock: Clock,
  input: { email: string; name: string; passwordHash: string | null; oidcSubject?: string | null },
): Promise<UserRow> {
  const row: UserRow = {
    id: randomUUID(),
    email: normalEmail(input.email),
    name: input.name.trim(),
    password_hash: input.passwordHash,
    oidc_subject: input.oidcSubject ?? null,
    created_ms: clock.now(),
  };
  if (await findUserByEmail(db, row.email))
    throw conflict('email_taken', `an account with the e-mail ${row.email} exists already`, { field: 'email' });
  await db.insertInto('users').values(row).execute();
  return row;
}

export async function setPasswordHash(db: Kysely<Database>, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

/** Makes `userId` a member of `tenantId` with `role`, limited to `projects` when given. */
export async function insertMembership(
  db: Kysely<Database>,
  clock: Clock,
  input: { tenantId: string; userId: string; role: Role; projects?: readonly string[] | null },
): Promise<void> {
  await db
    .insertInto('memberships')
    .values({
      tenant_id: input.tenantId,
      user_id: input.userId,
      role: input.role,
      projects: input.projects ? JSON.stringify(input.projects) : null,
      created_ms: clock.now(),
    })
    .execute();
}

/** The organisation a person signs in to: their oldest membership (one per person today; docs/teams.md). */
export function firstMembership(
  db: Kysely<Database>,
  userId: string,
): Promise<{ tenant_id: string; role: Role } | undefined> {
  return db
    .selectFrom('memberships')
    .select(['tenant_id', 'role'])
    .where('user_id', '=', userId)
    .orderBy('created_ms')
    .limit(1)
    .executeTakeFirst();
}
