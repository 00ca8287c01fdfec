import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { clientAddress } from '../../http/client-address';
import type { Services } from '../../http/env';
import { createRouter } from '../../http/openapi';
import { openSession } from '../console-sessions';
import { overTls, setSessionCookie } from '../session-cookie';
import { admit } from './accounts';
import { oidcClient } from './client';
import { OidcError } from './errors';
import { beginSignIn, finishSignIn } from './flow';
import { PENDING_TTL_MS, savePending, takePending } from './pending';
import { signInSettings } from './policy';
import type { OidcSettings } from './settings';

/** The cookie carrying a started sign-in's id to the callback, and only there. */
export const PENDING_COOKIE = 'svc_oidc';
const COOKIE_PATH = '/auth/oidc';

const redirects = { 302: { description: 'To the identity provider, or back to the console' } };

const startRoute = createRoute({
  method: 'get',
  path: '/start',
  tags: ['auth'],
  summary: 'Single sign-on: sends the browser to the identity provider',
  description:
    'Starts an authorization code sign-in with PKCE, state and nonce, kept server-side for 10 minutes under the ' +
    'HttpOnly `svc_oidc` cookie. On failure it redirects to `/sign-in?error=<code>`.',
  responses: redirects,
});

const callbackRoute = createRoute({
  method: 'get',
  path: '/callback',
  tags: ['auth'],
  summary: 'Single sign-on: where the identity provider sends the browser back',
  description:
    'Completes the sign-in the `svc_oidc` cookie names (once), opens a console session and redirects to `/`; ' +
    'otherwise redirects to `/sign-in?error=<code>` (oidc_state_mismatch, oidc_expired, oidc_email_domain, ' +
    'oidc_not_member, …; docs/teams.md, "Single sign-on").',
  request: { query: z.object({}).passthrough() },
  responses: redirects,
});

/** Any failure a person can act on goes back to the sign-in page, which words it by its code; the log keeps why. */
function refused(c: Context, services: Services, error: unknown): Response {
  if (!(error instanceof OidcError)) throw error;
  services.log(`single sign-on refused (${error.code}): ${error.message}`);
  return c.redirect(`/sign-in?error=${encodeURIComponent(error.code)}`, 302);
}

/**
 * `GET /auth/oidc/start` and `/auth/oidc/callback`: OpenID Connect sign-in to the console (docs/teams.md, "Single
 * sign-on"). The redirect URI to register at the provider is `<public URL>/auth/oidc/callback`.
 */
export function oidcRoutes(services: Services, settings: OidcSettings) {
  const { db, clock } = services;
  return createRouter()
    .openapi(startRoute, async (c) => {
      try {
        const redirectUri = `${services.publicUrl}${COOKIE_PATH}/callback`;
        const { url, pending } = await beginSignIn(await oidcClient(settings), settings, redirectUri);
        setCookie(c, PENDING_COOKIE, await savePending(db, clock, pending), {
          httpOnly: true,
          // Lax: the provider's redirect back is a top-level GET navigation, which carries it.
          sameSite: 'Lax',
          secure: overTls(c, services.publicUrl),
          path: COOKIE_PATH,
          maxAge: PENDING_TTL_MS / 1000,
        });
        return c.redirect(url.href, 302);
      } catch (error) {
        return refused(c, services, error);
      }
    })
    .openapi(callbackRoute, async (c) => {
      const id = getCookie(c, PENDING_COOKIE);
      deleteCookie(c, PENDING_COOKIE, { path: COOKIE_PATH, secure: overTls(c, services.publicUrl) });
      try {
        const pending = await takePending(db, clock, id);
        // The organisation's own policy, when it keeps one, decides who gets in and with which role.
        const policed = await signInSettings(db, settings);
        const identity = await finishSignIn(await oidcClient(settings), policed, new URL(c.req.url), pending);
        const address = clientAddress(c);
        const member = await admit(db, clock, policed, identity, { address, log: services.log });
        const userAgent = c.req.header('user-agent') ?? null;
        const opened = await openSession(db, clock, { ...member, method: 'oidc', address, userAgent });
        setSessionCookie(c, services.publicUrl, opened);
        services.log(`single sign-on: ${identity.email} signed in`);
        return c.redirect('/', 302);
      } catch (error) {
        return refused(c, services, error);
      }
    });
}
