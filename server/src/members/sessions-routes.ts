import { createRoute, z } from '@hono/zod-openapi';
import { listSessions, revokeSessions, type SignInMethod } from '../auth/console-sessions';
import { clearSessionCookie } from '../auth/session-cookie';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { idParams, listOf, Time } from '../http/schemas';
import { DomainError } from '../shared/domain-errors';
import { iso } from '../shared/time';

const METHODS = ['password', 'oidc', 'setup', 'invite', 'reset'] as const satisfies readonly SignInMethod[];

const Session = z
  .object({
    id: z.string(),
    method: z.enum(METHODS).openapi({ description: 'How it was opened' }),
    created_at: Time,
    last_seen_at: Time,
    expires_at: Time.openapi({ description: 'Absolute expiry; it ends sooner after a day without a request' }),
    address: z.string().nullable(),
    user_agent: z.string().nullable(),
    current: z.boolean().openapi({ description: 'The session this request came with' }),
  })
  .openapi('ConsoleSession');

const tags = ['members'];

const listRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/',
  summary: 'Your live console sessions in this organisation',
  description: 'Newest first. A key has no sessions: its list is empty.',
  responses: { 200: jsonAnswer('Sessions', listOf(Session)), ...errors(401, 403) },
});

const revokeRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'delete',
  path: '/{id}',
  summary: 'End one of your sessions (signing out that browser); ending the current one signs you out here',
  request: { params: idParams('Session id') },
  responses: { 204: { description: 'Ended' }, ...errors(400, 401, 403, 404) },
});

const noSuchSession = (id: string) =>
  new DomainError('not_found', 'not_found', `no live session ${id} of yours`, { field: 'id' });

/** `/control-plane/me/sessions`: a person's own console sessions (docs/teams.md, "Sessions"). */
export function mySessionRoutes(services: Services) {
  const { db, clock } = services;
  return createRouter()
    .openapi(listRoute, async (c) => {
      const { actor, tenantId } = c.get('caller');
      if (actor.kind !== 'person') return c.json({ data: [] }, 200);
      const sessions = await listSessions(db, clock, actor.person.userId, tenantId);
      const data = sessions.map((s) => ({
        id: s.id,
        method: s.method,
        created_at: iso(s.createdMs),
        last_seen_at: iso(s.lastSeenMs),
        expires_at: iso(s.expiresMs),
        address: s.address,
        user_agent: s.userAgent,
        current: s.id === actor.person.sessionId,
      }));
      return c.json({ data }, 200);
    })
    .openapi(revokeRoute, async (c) => {
      const { actor, tenantId } = c.get('caller');
      const { id } = c.req.valid('param');
      if (actor.kind !== 'person') throw noSuchSession(id);
      const ended = await revokeSessions(db, clock, { userId: actor.person.userId, tenantId, sessionId: id });
      if (ended === 0) throw noSuchSession(id);
      if (id === actor.person.sessionId) clearSessionCookie(c, services.publicUrl);
      return c.body(null, 204);
    });
}
