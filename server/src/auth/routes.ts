import { createRoute, z } from '@hono/zod-openapi';
import { getCookie } from 'hono/cookie';
import { clientAddress } from '../http/client-address';
import { requireOwnOrigin, SESSION_COOKIE } from '../http/console-auth';
import type { Services } from '../http/env';
import { ApiError } from '../http/errors';
import { createRouter, ErrorSchema, jsonAnswer, jsonBody, readControlJson } from '../http/openapi';
import { text } from '../http/schemas';
import { completeReset, requestReset, setUpOwner, signIn } from './accounts';
import { revokeSessionByToken } from './console-sessions';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords';
import { SessionSchema, sessionBody, startSession } from './session-answer';
import { clearSessionCookie } from './session-cookie';
import { RESET_ACCOUNT_LIMIT, reserveResetRequest } from './throttle';
import { anyUser, normalEmail } from './users-store';

/**
 * The public sign-in routes under /auth (docs/teams.md, "Sign-in"): no key, outside the control plane. Each that
 * changes something must come from the server's own origin, which is what stops another site signing a browser in to
 * an account of its choosing (login CSRF).
 */

const tags = ['auth'];
/** An error answer with its example (the document shows one for every JSON error answer). */
const refusal = (description: string, code: string, message: string) => ({
  description,
  content: { 'application/json': { schema: ErrorSchema, example: { error: { code, message } } } },
});
const BAD_REQUEST = refusal(
  'Invalid request: the message names the field; nothing changed',
  'invalid_request',
  'email must be a valid email',
);
const FOREIGN = refusal(
  "The Origin header is not this server's: cross-site request refused",
  'forbidden',
  "cross-site request refused: the Origin header must be this server's",
);
const SIGNED_IN = jsonAnswer('Signed in: the session cookie is set', SessionSchema);

const Email = z.email().max(254).openapi({ example: 'ada@example.com' });
const NewPassword = z
  .string()
  .min(PASSWORD_MIN)
  .max(PASSWORD_MAX)
  .openapi({ description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, example: 'correct horse battery' });
const Token = z.string().min(1).max(200).openapi({ description: 'The token of the link, after `#token=`' });

const optionsRoute = createRoute({
  tags,
  method: 'get',
  path: '/options',
  summary: 'How people may sign in here, and whether the first owner is still to be set up',
  responses: {
    200: jsonAnswer(
      'The ways in',
      z.object({
        password: z.boolean(),
        sso: z.object({ name: z.string() }).nullable().openapi({ description: 'The single sign-on provider, if any' }),
        setup_required: z.boolean().openapi({ description: 'Nobody has an account yet: use the set-up link' }),
      }),
    ),
  },
});

const sessionRoute = createRoute({
  tags,
  method: 'get',
  path: '/session',
  summary: "The session cookie's person, organisation and role, and its CSRF token",
  responses: {
    200: jsonAnswer('Signed in', SessionSchema),
    401: refusal('No session, or it has ended', 'unauthorized', 'your session has ended: sign in again'),
  },
});

const setupRoute = createRoute({
  tags,
  method: 'post',
  path: '/setup',
  summary: 'Creates the first owner with the one-time link printed at first start',
  middleware: [readControlJson],
  request: {
    body: jsonBody(z.object({ token: Token, email: Email, name: text(200), password: NewPassword }), {
      token: 'from <public URL>/welcome#token=…',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      password: 'correct horse battery',
    }),
  },
  responses: {
    201: jsonAnswer('The owner is created and signed in', SessionSchema),
    400: refusal(
      'Invalid field, or the link has been used or has expired (`invalid_token`); nothing changed',
      'invalid_token',
      'this link has been used or has expired: ask for a new one',
    ),
    403: FOREIGN,
    409: refusal(
      'Someone has an account already; nothing changed',
      'conflict',
      'the first owner is set up already: sign in',
    ),
  },
});

const signInRoute = createRoute({
  tags,
  method: 'post',
  path: '/sign-in',
  summary: 'Signs in with e-mail and password',
  middleware: [readControlJson],
  request: {
    body: jsonBody(
      z.object({ email: z.string().trim().min(1).max(254), password: z.string().min(1).max(PASSWORD_MAX) }),
      { email: 'ada@example.com', password: 'correct horse battery' },
    ),
  },
  responses: {
    200: SIGNED_IN,
    400: BAD_REQUEST,
    401: refusal(
      'Wrong e-mail or password (`invalid_credentials`): which of the two is not said',
      'invalid_credentials',
      'wrong e-mail or password',
    ),
    403: refusal(
      "Cross-site request refused, or the account is no organisation's member any more",
      'forbidden',
      'you are no member of any organisation here: ask an admin to invite you',
    ),
    429: {
      ...refusal(
        'Too many failed sign-ins for the account or from the address (`throttled`)',
        'throttled',
        'too many failed sign-ins: try again in 900 seconds',
      ),
      headers: z.object({
        'Retry-After': z.string().openapi({ description: 'Seconds until attempts are taken again' }),
      }),
    },
  },
});

const signOutRoute = createRoute({
  tags,
  method: 'post',
  path: '/sign-out',
  summary: 'Ends the session and clears its cookie',
  responses: { 204: { description: 'Signed out (also when there was no session)' }, 403: FOREIGN },
});

const resetRoute = createRoute({
  tags,
  method: 'post',
  path: '/password-reset',
  summary: 'Mails a one-hour reset link to the account with this e-mail, if there is one',
  description:
    'Always 202, so the answer does not tell whether the account exists; at most 3 links per account per 15 minutes are mailed, and an address asking more than 20 times in 15 minutes is refused (429). Needs SVC_SMTP_URL.',
  middleware: [readControlJson],
  request: { body: jsonBody(z.object({ email: z.string().trim().min(1).max(254) }), { email: 'ada@example.com' }) },
  responses: {
    202: jsonAnswer('Taken: a link is mailed if the account exists', z.object({ status: z.literal('accepted') })),
    400: BAD_REQUEST,
    403: FOREIGN,
    429: {
      ...refusal(
        'Too many resets asked from the address (`throttled`); past 3 in 15 minutes for one account, nothing more is mailed',
        'throttled',
        'too many password resets asked from this address: try again in 15 minutes',
      ),
      headers: z.object({
        'Retry-After': z.string().openapi({ description: 'Seconds until requests are taken again' }),
      }),
    },
  },
});

const completeResetRoute = createRoute({
  tags,
  method: 'post',
  path: '/password-reset/complete',
  summary: "Sets a new password with a reset link's token; ends the person's other sessions",
  middleware: [readControlJson],
  request: {
    body: jsonBody(z.object({ token: Token, password: NewPassword }), {
      token: 'from <public URL>/reset#token=…',
      password: 'correct horse battery',
    }),
  },
  responses: {
    200: SIGNED_IN,
    400: refusal(
      'Invalid field, or the link has been used or has expired (`invalid_token`); nothing changed',
      'invalid_token',
      'this link has been used or has expired: ask for a new one',
    ),
    403: FOREIGN,
  },
});

export interface AuthOptions {
  /** The single sign-on provider's name, when one is configured (its routes are the OIDC module's). */
  sso?: { name: string };
}

/** The /auth routes; mount at '/auth'. */
export function authRoutes(services: Services, options: AuthOptions = {}) {
  const { db, clock } = services;
  const router = createRouter();
  router.use('*', async (c, next) => {
    if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method)) requireOwnOrigin(services, c);
    await next();
  });
  return router
    .openapi(optionsRoute, async (c) =>
      c.json({ password: true, sso: options.sso ?? null, setup_required: !(await anyUser(db)) }, 200),
    )
    .openapi(sessionRoute, async (c) => {
      const token = getCookie(c, SESSION_COOKIE);
      const body = token ? await sessionBody(services, token) : undefined;
      if (!body) throw new ApiError(401, 'unauthorized', 'not signed in, or the session has ended');
      return c.json(body, 200);
    })
    .openapi(setupRoute, async (c) => {
      const member = await setUpOwner(db, clock, { ...c.req.valid('json'), address: clientAddress(c) });
      return c.json(await startSession(services, c, { ...member, method: 'setup' }), 201);
    })
    .openapi(signInRoute, async (c) => {
      const member = await signIn(db, clock, { ...c.req.valid('json'), address: clientAddress(c) });
      if (!member) throw new ApiError(401, 'invalid_credentials', 'wrong e-mail or password');
      return c.json(await startSession(services, c, { ...member, method: 'password' }), 200);
    })
    .openapi(signOutRoute, async (c) => {
      const token = getCookie(c, SESSION_COOKIE);
      if (token) await revokeSessionByToken(db, clock, token);
      clearSessionCookie(c, services.publicUrl);
      return c.body(null, 204);
    })
    .openapi(resetRoute, async (c) => {
      const { email } = c.req.valid('json');
      const { publicUrl, mailer, log } = services;
      if (!(await reserveResetRequest(db, clock, normalEmail(email), clientAddress(c)))) {
        log(`password reset for ${email} not mailed: ${RESET_ACCOUNT_LIMIT} links asked within 15 minutes already`);
        return c.json({ status: 'accepted' as const }, 202);
      }
      // Not awaited: the answer comes as fast for an unknown address as for a known one.
      requestReset(db, clock, { email, publicUrl, mailer, log }).catch((error: unknown) =>
        log(`password reset for ${email} failed: ${error instanceof Error ? error.message : String(error)}`),
      );
      return c.json({ status: 'accepted' as const }, 202);
    })
    .openapi(completeResetRoute, async (c) => {
      const member = await completeReset(db, clock, { ...c.req.valid('json'), address: clientAddress(c) });
      return c.json(await startSession(services, c, { ...member, method: 'reset' }), 200);
    });
}
