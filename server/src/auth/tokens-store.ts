import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import type { Role } from './roles';

export type TokenKind = Database['auth_tokens']['kind'];
export type TokenRow = Database['auth_tokens'];

export interface NewToken {
  kind: TokenKind;
  tenantId?: string | null;
  email?: string | null;
  role?: Role | null;
  /** The project ids an invitation limits the member to; null or absent for all. */
  projects?: readonly string[] | null;
  /** Kind-specific data, stored as JSON. */
  payload?: unknown;
  /** The user id of the person who made it (an invitation's inviter). */
  createdBy?: string | null;
  ttlMs: number;
}

/** Tokens are stored as their SHA-256 only: the database alone cannot be turned into a working link. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Makes a one-time token (set-up link, invitation, password reset, a pending single sign-on): 256 random bits handed
 * out once as `token`; only `hash` is kept.
 */
export async function createToken(
  db: Kysely<Database>,
  clock: Clock,
  input: NewToken,
): Promise<{ token: string; hash: string; expiresMs: number }> {
  const token = randomBytes(32).toString('base64url');
  const hash = tokenHash(token);
  const now = clock.now();
  const expiresMs = now + input.ttlMs;
  await db
    .insertInto('auth_tokens')
    .values({
      token_hash: hash,
      kind: input.kind,
      tenant_id: input.tenantId ?? null,
      email: input.email ?? null,
      role: input.role ?? null,
      projects: input.projects ? JSON.stringify(input.projects) : null,
      payload: input.payload === undefined ? null : JSON.stringify(input.payload),
      created_by: input.createdBy ?? null,
      created_ms: now,
      expires_ms: expiresMs,
      used_ms: null,
    })
    .execute();
  return { token, hash, expiresMs };
}

/** The live (unused, unexpired) token of `kind`, without using it up: for showing an invitation before it is accepted. */
export function peekToken(
  db: Kysely<Database>,
  clock: Clock,
  kind: TokenKind,
  token: string,
): Promise<TokenRow | undefined> {
  return db
    .selectFrom('auth_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash(token))
    .where('kind', '=', kind)
    .where('used_ms', 'is', null)
    .where('expires_ms', '>', clock.now())
    .executeTakeFirst();
}

/**
 * Uses up a live token of `kind` and returns it; undefined when it is unknown, of another kind, expired or used. The
 * one conditional update decides, so of two requests racing with the same token (on any replica) only one gets it.
 * Pass the transaction of what the token allows, so a failure there leaves the token unused.
 */
export async function consumeToken(
  db: Kysely<Database>,
  clock: Clock,
  kind: TokenKind,
  token: string,
): Promise<TokenRow | undefined> {
  const now = clock.now();
  const hash = tokenHash(token);
  const result = await db
    .updateTable('auth_tokens')
    .set({ used_ms: now })
    .where('token_hash', '=', hash)
    .where('kind', '=', kind)
    .where('used_ms', 'is', null)
    .where('expires_ms', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('auth_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirstOrThrow();
}

/** Ends every live token of `kind` (optionally only those for `email`): a new set-up link or reset replaces the old. */
export async function revokeTokens(db: Kysely<Database>, clock: Clock, kind: TokenKind, email?: string): Promise<void> {
  let q = db
    .updateTable('auth_tokens')
    .set({ used_ms: clock.now() })
    .where('kind', '=', kind)
    .where('used_ms', 'is', null);
  if (email !== undefined) q = q.where('email', '=', email);
  await q.execute();
}
