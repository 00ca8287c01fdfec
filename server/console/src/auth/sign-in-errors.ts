import { ApiError } from '../api/client';

/** Why single sign-on sent the person back (`/sign-in?error=<code>`, server/src/auth/oidc/errors.ts), in words. */
const SSO_ERRORS: Record<string, string> = {
  oidc_discovery_failed: 'The identity provider could not be reached. Try again, or ask an admin to check its address.',
  oidc_state_mismatch: 'That sign-in link was stale or opened in another browser. Start again from this page.',
  oidc_denied: 'The identity provider did not let you in.',
  oidc_exchange_failed: 'The identity provider refused the sign-in (used already or expired). Start again.',
  oidc_token_invalid: 'The identity provider answered with a token this server cannot trust. Ask an admin.',
  oidc_no_email: 'The identity provider did not tell this server your e-mail address. Ask an admin.',
  oidc_email_domain: 'Your e-mail address is not in a domain allowed to sign in here. Ask an admin to invite you.',
};

/** The words for a single sign-on error code; an unknown code still says that sign-in failed. */
export const ssoErrorText = (code: string): string =>
  SSO_ERRORS[code] ?? `Single sign-on failed (${code}). Try again or sign in another way.`;

/** Why a password sign-in, set-up, reset or invitation was refused, in words a person can act on. */
export function authErrorText(e: unknown): string {
  if (!(e instanceof ApiError)) return `Could not reach the server: ${String(e)}`;
  if (e.code === 'invalid_credentials' || e.status === 401) return 'Wrong e-mail address or password.';
  if (e.status === 429) return 'Too many failed attempts. Wait a few minutes and try again.';
  if (e.status === 404 || e.status === 410) return 'This link was used already or has expired. Ask for a new one.';
  return e.message;
}
