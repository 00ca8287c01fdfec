import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import type { Role } from './roles';

/** A console session ends after this long without a request… */
export const SESSION_IDLE_MS = 24 * 3600_000;
/** …and this long after sign-in however active it is (docs/teams.md, "Sessions"). */
export const SESSION_ABSOLUTE_MS = 14 * 24 * 3600_000;
/** `last_seen_ms` is written at most this often, so reading the console is not a write per request. */
const TOUCH_EVERY_MS = 60_000;

export type SignInMethod = Database['console_sessions']['method'];

/** A live console session with the person and their membership, as every request from it sees them. */
export interface SessionPerson {
  sessionId: string;
  userId: string;
  email: string;
  name: string;
  tenantId: string;
  role: Role;
  /** Project ids the member is limited to; null for all of the organisation's. */
  projects: readonly string[] | null;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The token a state-changing request from this session must echo in `X-Svc-Csrf`: derived from the cookie's secret,
 * so it needs no storage, is the same in every tab and cannot be made without the cookie (docs/teams.md, "CSRF").
 */
export const csrfTokenOf = (sessionToken: string): string =>
  createHmac('sha256', sessionToken).update('svc-csrf').digest('base64url');

export interface OpenedSession {
  id: string;
  /** The cookie's value. Never stored: only its hash is. */
  token: string;
  expiresMs: number;
}

/** Opens a session for a member of `tenantId` (the caller checked the membership and the credentials). */
export async function openSession(
  db: Kysely<Database>,
  clock: Clock,
  input: { userId: string; tenantId: string; method: SignInMethod; address: string | null; userAgent: string | null },
): Promise<OpenedSession> {
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  const row = {
    id: randomUUID(),
    token_hash: sha256(token),
    user_id: input.userId,
    tenant_id: input.tenantId,
    method: input.method,
    created_ms: now,
    last_seen_ms: now,
    expires_ms: now + SESSION_ABSOLUTE_MS,
    revoked_ms: null,
    address: input.address,
    user_agent: input.userAgent?.slice(0, 512) ?? null,
  };
  await db.insertInto('console_sessions').values(row).execute();
  return { id: row.id, token, expiresMs: row.expires_ms };
}

/**
 * The session a cookie's token names, if it is live: not revoked, not past either expiry, and its person still a member
 * (a removed member's sessions stop at their next request, since the membership is read each time).
 */
export async function resolveSession(
  db: Kysely<Database>,
  clock: Clock,
  token: string,
): Promise<SessionPerson | undefined> {
  const now = clock.now();
  const row = await db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.user_id', '=', 's.user_id').onRef('m.tenant_id', '=', 's.tenant_id'),
    )
    .select(['s.id', 's.last_seen_ms', 's.tenant_id', 'u.id as user_id', 'u.email', 'u.name', 'm.role', 'm.projects'])
    .where('s.token_hash', '=', sha256(token))
    .where('s.revoked_ms', 'is', null)
    .where('s.expires_ms', '>', now)
    .where('s.last_seen_ms', '>', now - SESSION_IDLE_MS)
    .executeTakeFirst();
  if (!row) return undefined;
  if (now - row.last_seen_ms >= TOUCH_EVERY_MS) {
    await db.updateTable('console_sessions').set({ last_seen_ms: now }).where('id', '=', row.id).execute();
  }
  return {
    sessionId: row.id,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    tenantId: row.tenant_id,
    role: row.role,
    projects: row.projects === null ? null : (JSON.parse(row.projects) as string[]),
  };
}

export interface SessionListing {
  id: string;
  method: SignInMethod;
  createdMs: number;
  lastSeenMs: number;
  expiresMs: number;
  address: string | null;
  userAgent: string | null;
}

/** A person's live sessions in an organisation, the newest first. */
export async function listSessions(
  db: Kysely<Database>,
  clock: Clock,
  userId: string,
  tenantId: string,
): Promise<SessionListing[]> {
  const now = clock.now();
  const rows = await db
    .selectFrom('console_sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('tenant_id', '=', tenantId)
    .where('revoked_ms', 'is', null)
    .where('expires_ms', '>', now)
    .where('last_seen_ms', '>', now - SESSION_IDLE_MS)
    .orderBy('created_ms', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    method: r.method,
    createdMs: r.created_ms,
    lastSeenMs: r.last_seen_ms,
    expiresMs: r.expires_ms,
    address: r.address,
    userAgent: r.user_agent,
  }));
}

/** Ends sessions of a person in an organisation: one (`sessionId`) or all. Returns how many were live. */
export async function revokeSessions(
  db: Kysely<Database>,
  clock: Clock,
  target: { userId: string; tenantId: string; sessionId?: string },
): Promise<number> {
  let q = db
    .updateTable('console_sessions')
    .set({ revoked_ms: clock.now() })
    .where('user_id', '=', target.userId)
    .where('tenant_id', '=', target.tenantId)
    .where('revoked_ms', 'is', null);
  if (target.sessionId !== undefined) q = q.where('id', '=', target.sessionId);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Ends the session a cookie names (sign-out); nothing when it is unknown. */
export async function revokeSessionByToken(db: Kysely<Database>, clock: Clock, token: string): Promise<void> {
  await db
    .updateTable('console_sessions')
    .set({ revoked_ms: clock.now() })
    .where('token_hash', '=', sha256(token))
    .where('revoked_ms', 'is', null)
    .execute();
}
