import type * as oidc from 'openid-client';
import { OidcError } from './errors';
import { isLoopbackHttp, type OidcSettings } from './settings';

const discovered = new Map<string, Promise<oidc.Configuration>>();

async function discover(settings: OidcSettings): Promise<oidc.Configuration> {
  const { issuer, clientId, clientSecret } = settings;
  // A secret means a confidential client (client_secret_basic, the registration default); without one the client is
  // public and PKCE alone binds the code to this browser.
  // Loaded on first sign-in: most servers never use single sign-on, and the client costs every start-up its load time.
  const openid = await import('openid-client');
  const auth = clientSecret === undefined ? openid.None() : openid.ClientSecretBasic(clientSecret);
  // openid-client skips the signature of an ID token that came straight from the token endpoint over TLS (OpenID
  // Connect Core 3.1.3.7 allows it); we check it anyway, so a token the issuer's keys did not sign is never believed.
  const execute = [
    openid.enableNonRepudiationChecks,
    ...(isLoopbackHttp(issuer) ? [openid.allowInsecureRequests] : []),
  ];
  try {
    return await openid.discovery(issuer, clientId, undefined, auth, { execute });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new OidcError(
      'oidc_discovery_failed',
      `Single sign-on is unavailable: the OpenID configuration of SVC_OIDC_ISSUER (${issuer.href}) could not be read ` +
        `(${reason}). Check that SVC_OIDC_ISSUER is the provider's issuer URL and that the provider is reachable.`,
      { cause: error },
    );
  }
}

/**
 * The provider's client configuration, discovered once per process and issuer; a failed discovery is forgotten, so the
 * next sign-in tries again (a provider that was down at start-up does not need a restart).
 */
export function oidcClient(settings: OidcSettings): Promise<oidc.Configuration> {
  const key = `${settings.issuer.href}\n${settings.clientId}`;
  let pending = discovered.get(key);
  if (!pending) {
    pending = discover(settings);
    discovered.set(key, pending);
    pending.catch(() => discovered.delete(key));
  }
  return pending;
}
