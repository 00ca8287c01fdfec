import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { SESSION_COOKIE } from '../http/console-auth';
import type { OpenedSession } from './console-sessions';

/** Cookies are `Secure` when the console is served over TLS (directly or, by its public URL, behind a proxy). */
export const overTls = (c: Context, publicUrl: string) =>
  new URL(c.req.url).protocol === 'https:' || publicUrl.startsWith('https:');

/**
 * Hands a person their session: `HttpOnly` (no script reads it), `SameSite=Lax` (other sites' requests carry it only
 * for top-level navigations, which change nothing), `Secure` over TLS, and gone at the session's absolute expiry.
 */
export function setSessionCookie(c: Context, publicUrl: string, session: OpenedSession): void {
  setCookie(c, SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: overTls(c, publicUrl),
    path: '/',
    expires: new Date(session.expiresMs),
  });
}

export function clearSessionCookie(c: Context, publicUrl: string): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: overTls(c, publicUrl) });
}
