import type * as oidc from 'openid-client';
import { OidcError } from './errors';
import { identityFrom, type OidcIdentity } from './identity';
import type { OidcSettings } from './settings';

/**
 * What the browser's sign-in must carry from `beginSignIn` to `finishSignIn` and nowhere else (an HttpOnly cookie
 * scoped to the callback): a leaked value lets someone else finish this sign-in.
 */
export interface PendingSignIn {
  state: string;
  nonce: string;
  /** PKCE: only its S256 hash went to the provider. */
  codeVerifier: string;
  /** The callback URL sent with the authorization request; the code exchange must repeat it exactly. */
  redirectUri: string;
}

/** The provider's sign-in page to send the browser to, and what to keep until it comes back to `redirectUri`. */
export async function beginSignIn(
  client: oidc.Configuration,
  settings: OidcSettings,
  redirectUri: string,
): Promise<{ url: URL; pending: PendingSignIn }> {
  const openid = await import('openid-client');
  const codeVerifier = openid.randomPKCECodeVerifier();
  const pending = { state: openid.randomState(), nonce: openid.randomNonce(), codeVerifier, redirectUri };
  const url = openid.buildAuthorizationUrl(client, {
    redirect_uri: redirectUri,
    scope: settings.scopes,
    code_challenge: await openid.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  });
  return { url, pending };
}

/** openid-client's codes for an ID token (or token response) that failed validation. */
const TOKEN_INVALID = new Set([
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
]);

function exchangeError(openid: typeof oidc, error: unknown): OidcError {
  if (error instanceof openid.AuthorizationResponseError) {
    const reason = error.error_description ? `${error.error}: ${error.error_description}` : error.error;
    return new OidcError(
      'oidc_denied',
      `The identity provider did not sign you in (${reason}). Try again, or ask your administrator for access.`,
      { cause: error },
    );
  }
  if (error instanceof openid.ResponseBodyError) {
    return new OidcError(
      'oidc_exchange_failed',
      `The identity provider refused the sign-in code (${error.error}): it was used already or has expired. ` +
        `Start the sign-in again.`,
      { cause: error },
    );
  }
  if (error instanceof openid.ClientError && error.code !== undefined && TOKEN_INVALID.has(error.code)) {
    const detail = error.cause instanceof Error ? error.cause.message : error.message;
    return new OidcError(
      'oidc_token_invalid',
      `The identity provider's ID token failed validation (${detail}). Start the sign-in again; if this repeats, ` +
        `check that this server's clock is right and that SVC_OIDC_ISSUER and SVC_OIDC_CLIENT_ID match the provider.`,
      { cause: error },
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new OidcError(
    'oidc_exchange_failed',
    `The sign-in could not be completed with the identity provider (${reason}). Start the sign-in again.`,
    { cause: error },
  );
}

type Claims = Record<string, unknown> & { sub: string };

/** Providers that follow the spec closely put profile claims in userinfo only, not in the ID token of a code flow. */
async function completeClaims(
  client: oidc.Configuration,
  settings: OidcSettings,
  tokens: oidc.TokenEndpointResponse,
  claims: Claims,
): Promise<Claims> {
  const complete = settings.emailClaim in claims && settings.groupsClaim in claims;
  if (complete || !client.serverMetadata().userinfo_endpoint) return claims;
  const openid = await import('openid-client');
  const userinfo = await openid.fetchUserInfo(client, tokens.access_token, claims.sub);
  // The signed ID token wins where both say something.
  return { ...userinfo, ...claims };
}

/**
 * Completes the sign-in the provider redirected back with (`currentUrl`: the callback URL with its query): checks
 * `state`, exchanges the code with the PKCE verifier, validates the ID token (signature, issuer, audience, expiry,
 * nonce) and returns who signed in. Throws OidcError for anything else.
 */
export async function finishSignIn(
  client: oidc.Configuration,
  settings: OidcSettings,
  currentUrl: URL,
  pending: PendingSignIn,
): Promise<OidcIdentity> {
  if (currentUrl.searchParams.get('state') !== pending.state) {
    throw new OidcError(
      'oidc_state_mismatch',
      'This sign-in does not match the one this browser started (it may be from another tab or an old link). ' +
        'Start the sign-in again.',
    );
  }
  // The exchange repeats the redirect URI of the request, whatever host or proxy the callback came through.
  const callback = new URL(pending.redirectUri);
  callback.search = currentUrl.search;
  const openid = await import('openid-client');
  let claims: Claims;
  try {
    const tokens = await openid.authorizationCodeGrant(client, callback, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new openid.ClientError('the token response has no ID token');
    claims = await completeClaims(client, settings, tokens, idClaims);
  } catch (error) {
    throw exchangeError(openid, error);
  }
  return identityFrom(settings, claims);
}
