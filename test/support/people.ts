import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { csrfTokenOf, openSession } from '../../server/src/auth/console-sessions';
import type { Role } from '../../server/src/auth/roles';
import { systemClock, type Clock } from '../../server/src/clock';
import type { Database } from '../../server/src/db/schema';
import { CSRF_HEADER, SESSION_COOKIE } from '../../server/src/http/console-auth';

/** A person with a membership, made straight in the database (no invitation, no password). */
export interface Person {
  id: string;
  email: string;
  name: string;
  tenantId: string;
  role: Role;
  projects: readonly string[] | null;
}

/** Inserts a user and their membership of `tenantId`; `projects` limits them to those (all of them when left out). */
export async function createPerson(
  db: Kysely<Database>,
  input: { tenantId: string; email: string; name: string; role: Role; projects?: readonly string[] },
  clock: Clock = systemClock,
): Promise<Person> {
  const person: Person = {
    ...input,
    id: randomUUID(),
    email: input.email.toLowerCase(),
    projects: input.projects ?? null,
  };
  const now = clock.now();
  await db
    .insertInto('users')
    .values({
      id: person.id,
      email: person.email,
      name: person.name,
      password_hash: null,
      oidc_subject: null,
      created_ms: now,
    })
    .execute();
  await db
    .insertInto('memberships')
    .values({
      tenant_id: person.tenantId,
      user_id: person.id,
      role: person.role,
      projects: person.projects === null ? null : JSON.stringify(person.projects),
      created_ms: now,
    })
    .execute();
  return person;
}

/** A console session as a browser holds it: the cookie header's value and the CSRF token it must echo. */
export interface SignedIn {
  sessionId: string;
  /** `svc_session=<token>`, for a `Cookie` header. */
  cookie: string;
  csrf: string;
  token: string;
}

/** Opens a console session for `person`, as a sign-in would. */
export async function signInAs(db: Kysely<Database>, clock: Clock = systemClock, person: Person): Promise<SignedIn> {
  const opened = await openSession(db, clock, {
    userId: person.id,
    tenantId: person.tenantId,
    method: 'password',
    address: '127.0.0.1',
    userAgent: 'svc tests',
  });
  return {
    sessionId: opened.id,
    cookie: `${SESSION_COOKIE}=${opened.token}`,
    csrf: csrfTokenOf(opened.token),
    token: opened.token,
  };
}

/**
 * The headers of a request from `session` in the console at `origin`: the cookie, and on changes the same-origin proof
 * (`Origin` and `X-Svc-Csrf`) a browser page of the console sends.
 */
export const sessionHeaders = (session: SignedIn, origin: string): Record<string, string> => ({
  cookie: session.cookie,
  origin,
  [CSRF_HEADER]: session.csrf,
});
