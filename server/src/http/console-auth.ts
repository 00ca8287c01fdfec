import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { csrfTokenOf, resolveSession, type SessionPerson } from '../auth/console-sessions';
import { timingSafeEqual } from 'node:crypto';
import type { AppEnv, Services } from './env';
import { ApiError } from './errors';

/** The console session's cookie (`HttpOnly`, `SameSite=Lax`, `Secure` over TLS: auth/session-cookie.ts sets it). */
export const SESSION_COOKIE = 'svc_session';
/** The header a state-changing request from a console session echoes its CSRF token in. */
export const CSRF_HEADER = 'x-svc-csrf';

const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/** The person a request's session cookie names; undefined without a cookie, 401 for a cookie that no longer works. */
export async function personOf(services: Services, c: Context<AppEnv>): Promise<SessionPerson | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return undefined;
  const person = await resolveSession(services.db, services.clock, token);
  if (!person) throw new ApiError(401, 'unauthorized', 'your session has ended: sign in again');
  if (!SAFE_METHODS.includes(c.req.method)) checkSameOrigin(services, c, token);
  return person;
}

/**
 * A state-changing request must come from this server's own pages: `Origin`, which browsers set on every cross-site
 * and every non-GET request, must be the server's (as requested, or its public URL). The public /auth routes check
 * only this (a sign-in has no session to derive a token from yet); cookie sessions add the CSRF token below.
 */
export function requireOwnOrigin(services: Services, c: Context<AppEnv>): void {
  const origin = c.req.header('origin');
  const own = [new URL(c.req.url).origin, services.publicUrl && new URL(services.publicUrl).origin];
  if (!origin || !own.includes(origin)) {
    throw new ApiError(403, 'forbidden', "cross-site request refused: the Origin header must be this server's", {
      field: 'Origin',
    });
  }
}

/**
 * Cross-site request forgery: a state-changing request from a cookie session must come from the console's own origin
 * (`Origin`, which browsers set on every such request) and echo the session's CSRF token, which another site's page
 * cannot read.
 */
function checkSameOrigin(services: Services, c: Context<AppEnv>, token: string): void {
  requireOwnOrigin(services, c);
  const sent = Buffer.from(c.req.header(CSRF_HEADER) ?? '');
  const expected = Buffer.from(csrfTokenOf(token));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new ApiError(403, 'forbidden', 'missing or wrong CSRF token: send X-Svc-Csrf as GET /auth/session gives it', {
      field: 'X-Svc-Csrf',
    });
  }
}
