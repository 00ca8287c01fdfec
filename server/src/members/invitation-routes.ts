import { createRoute, z } from '@hono/zod-openapi';
import { PASSWORD_MAX } from '../auth/passwords';
import { ROLES } from '../auth/roles';
import { SessionSchema, startSession } from '../auth/session-answer';
import { findUserByEmail } from '../auth/users-store';
import { clientAddress } from '../http/client-address';
import { requireOwnOrigin } from '../http/console-auth';
import type { Services } from '../http/env';
import { ApiError } from '../http/errors';
import { createRouter, errors, ErrorSchema, jsonAnswer, jsonBody, readControlJson } from '../http/openapi';
import { acceptInvitation } from './accept';
import { invitationOf } from './invitations';

const tags = ['auth'];
const THROTTLED = {
  error: { code: 'throttled', message: 'too many failed sign-ins for this account: try again in 15 minutes' },
};
const Token = z.string().min(1).max(200).openapi({ description: 'The token of the invitation link, after `#token=`' });

const inspectRoute = createRoute({
  tags,
  method: 'post',
  path: '/inspect',
  summary: 'What an invitation link invites to, before it is accepted',
  description: 'The token is sent in the body, not the URL, so it stays out of logs. The link is not used up.',
  middleware: [readControlJson],
  request: { body: jsonBody(z.strictObject({ token: Token }), { token: 'from <public URL>/join#token=…' }) },
  responses: {
    200: jsonAnswer(
      'The invitation',
      z.object({
        organisation: z.object({ name: z.string() }),
        email: z.string(),
        role: z.enum(ROLES),
        has_account: z
          .boolean()
          .openapi({ description: "The e-mail has an account: accepting asks for that account's password" }),
      }),
    ),
    ...errors(400, 403, 404, 413, 415),
  },
});

const acceptRoute = createRoute({
  tags,
  method: 'post',
  path: '/accept',
  summary: 'Accept an invitation and sign in',
  description:
    "Makes the account when the invited e-mail has none (`name` and a new `password`); otherwise `password` is that account's, and `name` is " +
    'not needed. Wrong passwords count against sign-in throttling (429). The link is used up only on success.',
  middleware: [readControlJson],
  request: {
    body: jsonBody(
      z.strictObject({
        token: Token,
        name: z.string().trim().min(1).max(200).optional(),
        password: z.string().min(1).max(PASSWORD_MAX),
      }),
      { token: 'from <public URL>/join#token=…', name: 'Ada Lovelace', password: 'correct horse battery' },
    ),
  },
  responses: {
    201: jsonAnswer('A member now, and signed in: the session cookie is set', SessionSchema),
    ...errors(400, 401, 403, 404, 409, 413, 415),
    429: {
      description: 'Too many failed attempts for the account or from the address (`throttled`)',
      content: { 'application/json': { schema: ErrorSchema, example: THROTTLED } },
      headers: z.object({
        'Retry-After': z.string().openapi({ description: 'Seconds until attempts are taken again' }),
      }),
    },
  },
});

/** The public invitation routes (docs/teams.md, "Members and invitations"); mount at '/auth/invitations'. */
export function invitationRoutes(services: Services) {
  const { db, clock } = services;
  const router = createRouter();
  // Both only POST: another site's page must not accept an invitation into a browser (login CSRF).
  router.use('*', async (c, next) => {
    requireOwnOrigin(services, c);
    await next();
  });
  return router
    .openapi(inspectRoute, async (c) => {
      const invitation = await invitationOf(db, clock, c.req.valid('json').token);
      return c.json(
        {
          organisation: { name: invitation.organisation },
          email: invitation.email,
          role: invitation.role,
          has_account: (await findUserByEmail(db, invitation.email)) !== undefined,
        },
        200,
      );
    })
    .openapi(acceptRoute, async (c) => {
      const { token, name, password } = c.req.valid('json');
      const accepted = await acceptInvitation(db, clock, { token, name, password, address: clientAddress(c) });
      if (accepted === 'wrong_password')
        throw new ApiError(401, 'invalid_credentials', "wrong password for the invited e-mail's account", {
          field: 'password',
        });
      const member = { userId: accepted.user.id, tenantId: accepted.tenantId, method: 'invite' as const };
      return c.json(await startSession(services, c, member), 201);
    });
}
