import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  csrfTokenOf,
  listSessions,
  resolveSession,
  revokeSessions,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
} from '../../server/src/auth/console-sessions';
import type { Clock } from '../../server/src/clock';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import { createTenant } from '../../server/src/projects/store';
import { createPerson, signInAs, type Person } from '../support/people';

/**
 * Console sessions on a clock the test moves: idle and absolute expiry, `last_seen_ms` written at most once a minute,
 * revocation and a removed membership ending a session at once, and a CSRF token of its own for each session.
 */
describe('console sessions', () => {
  let database: DatabaseHandle;
  let nowMs = Date.UTC(2026, 0, 1);
  const clock: Clock = { now: () => nowMs };
  let person: Person;
  let tenantId: string;
  const lastSeen = async (id: string) =>
    Number(
      (
        await database.db
          .selectFrom('console_sessions')
          .select('last_seen_ms')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).last_seen_ms,
    );
  const resolve = (token: string) => resolveSession(database.db, clock, token);

  beforeAll(async () => {
    database = openDatabase(':memory:');
    await migrateToLatest(database);
    tenantId = await createTenant(database.db, clock, 'acme');
    person = await createPerson(database.db, { tenantId, email: 'Ann@Example.com', name: 'Ann', role: 'admin' }, clock);
  });
  afterAll(async () => database.db.destroy());

  it('names the person and their membership, and stamps last_seen_ms at most once a minute', async () => {
    const opened = nowMs;
    const session = await signInAs(database.db, clock, person);
    expect(await resolve(session.token)).toEqual({
      sessionId: session.sessionId,
      userId: person.id,
      email: 'ann@example.com',
      name: 'Ann',
      tenantId,
      role: 'admin',
      projects: null,
    });
    nowMs += 59_999;
    expect(await resolve(session.token)).toBeDefined();
    expect(await lastSeen(session.sessionId)).toBe(opened);
    nowMs += 1;
    expect(await resolve(session.token)).toBeDefined();
    expect(await lastSeen(session.sessionId)).toBe(nowMs);
    expect(await resolve('not a token')).toBeUndefined();
  });

  it('ends after SESSION_IDLE_MS without a request', async () => {
    const session = await signInAs(database.db, clock, person);
    nowMs += SESSION_IDLE_MS - 1;
    expect(await resolve(session.token)).toBeDefined();
    // That request was its last: a whole idle period after it, the session is over.
    nowMs += SESSION_IDLE_MS;
    expect(await resolve(session.token)).toBeUndefined();
    expect((await listSessions(database.db, clock, person.id, tenantId)).map((s) => s.id)).not.toContain(
      session.sessionId,
    );
  });

  it('ends SESSION_ABSOLUTE_MS after sign-in however active it is', async () => {
    const start = nowMs;
    const session = await signInAs(database.db, clock, person);
    while (nowMs + SESSION_IDLE_MS / 2 < start + SESSION_ABSOLUTE_MS) {
      nowMs += SESSION_IDLE_MS / 2;
      expect(await resolve(session.token), `${(nowMs - start) / 3600_000} h after sign-in`).toBeDefined();
    }
    nowMs = start + SESSION_ABSOLUTE_MS - 1;
    expect(await resolve(session.token)).toBeDefined();
    nowMs += 1;
    expect(await resolve(session.token)).toBeUndefined();
  });

  it('ends at once when revoked or when the membership is removed', async () => {
    const revoked = await signInAs(database.db, clock, person);
    const other = await signInAs(database.db, clock, person);
    expect(
      await revokeSessions(database.db, clock, { userId: person.id, tenantId, sessionId: revoked.sessionId }),
    ).toBe(1);
    expect(await resolve(revoked.token)).toBeUndefined();
    expect(await resolve(other.token)).toBeDefined();
    const leaver = await createPerson(database.db, { tenantId, email: 'leo@example.com', name: 'Leo', role: 'member' });
    const session = await signInAs(database.db, clock, leaver);
    expect((await resolve(session.token))?.role).toBe('member');
    await database.db.deleteFrom('memberships').where('user_id', '=', leaver.id).execute();
    expect(await resolve(session.token)).toBeUndefined();
  });

  it('derives a CSRF token of its own for each session, the same on every call', async () => {
    const a = await signInAs(database.db, clock, person);
    const b = await signInAs(database.db, clock, person);
    expect(a.csrf).not.toBe(b.csrf);
    expect(csrfTokenOf(a.token)).toBe(a.csrf);
    expect(a.csrf).not.toContain(a.token);
    expect(a.csrf).toMatch(/^[\w-]{43}$/);
  });
});
