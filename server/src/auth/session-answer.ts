import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv, Services } from '../http/env';
import { clientAddress } from '../http/client-address';
import { Time } from '../http/schemas';
import { tenantNamed } from '../projects/store';
import { iso } from '../shared/time';
import { ROLES } from './roles';
import { csrfTokenOf, openSession, resolveSession, SESSION_IDLE_MS, type SignInMethod } from './console-sessions';
import { setSessionCookie } from './session-cookie';

export const SessionSchema = z
  .object({
    person: z.object({ id: z.string(), email: z.string(), name: z.string() }),
    organisation: z.object({ id: z.string(), name: z.string() }),
    role: z.enum(ROLES),
    csrf_token: z.string().openapi({
      description: 'Echo it in `X-Svc-Csrf` on every state-changing control-plane request made with this session',
    }),
    expires_at: Time.openapi({ description: 'When the session ends unless used again (idle) or at the latest' }),
  })
  .openapi('ConsoleSession');
export type SessionBody = z.infer<typeof SessionSchema>;

/** What GET /auth/session answers for a cookie's token; undefined when it names no live session. */
export async function sessionBody(services: Services, token: string): Promise<SessionBody | undefined> {
  const person = await resolveSession(services.db, services.clock, token);
  if (!person) return undefined;
  const [organisation, times] = await Promise.all([
    tenantNamed(services.db, person.tenantId),
    services.db
      .selectFrom('console_sessions')
      .select(['expires_ms', 'last_seen_ms'])
      .where('id', '=', person.sessionId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    person: { id: person.userId, email: person.email, name: person.name },
    organisation,
    role: person.role,
    csrf_token: csrfTokenOf(token),
    expires_at: iso(Math.min(times.expires_ms, times.last_seen_ms + SESSION_IDLE_MS)),
  };
}

/**
 * Signs a member in: opens a console session, hands its cookie and answers what GET /auth/session would. For every
 * way in (password, set-up link, reset, invitation, single sign-on).
 */
export async function startSession(
  services: Services,
  c: Context<AppEnv>,
  member: { userId: string; tenantId: string; method: SignInMethod },
): Promise<SessionBody> {
  const opened = await openSession(services.db, services.clock, {
    ...member,
    address: clientAddress(c),
    userAgent: c.req.header('user-agent') ?? null,
  });
  setSessionCookie(c, services.publicUrl, opened);
  const body = await sessionBody(services, opened.token);
  if (!body) throw new Error(`session ${opened.id} was opened but does not resolve`);
  return body;
}
