import { DomainError, type DomainErrorKind } from '../../shared/domain-errors';

/** Why a single sign-on failed; each comes with a sentence the person (or the operator) can act on. */
export type OidcErrorCode =
  /** The provider could not be reached or its discovery document is wrong (names SVC_OIDC_ISSUER). */
  | 'oidc_discovery_failed'
  /** The callback's `state` is not the one this browser started with: a stale tab, or a forged callback. */
  | 'oidc_state_mismatch'
  /** The provider answered the callback with an error (the person cancelled, or consent was refused). */
  | 'oidc_denied'
  /** The token endpoint refused the code (used already, expired, or not ours) or could not be reached. */
  | 'oidc_exchange_failed'
  /** The ID token failed validation: signature, issuer, audience, expiry or nonce. */
  | 'oidc_token_invalid'
  /** The provider sent no e-mail address in the configured claim. */
  | 'oidc_no_email'
  /** The e-mail address is outside the allowed domains (the organisation's policy, else SVC_OIDC_ALLOWED_DOMAINS). */
  | 'oidc_email_domain'
  /** No sign-in is pending for this browser: it expired (10 minutes), was completed already, or never started here. */
  | 'oidc_expired'
  /** An account has this e-mail address, but the provider does not vouch for the address (`email_verified`). */
  | 'oidc_email_unverified'
  /** The account with this e-mail address is linked to another identity of the provider. */
  | 'oidc_account_conflict'
  /** The person is no member, and no mapped group (nor the default role) grants a membership. */
  | 'oidc_not_member';

const KINDS: Record<OidcErrorCode, DomainErrorKind> = {
  oidc_discovery_failed: 'upstream',
  oidc_state_mismatch: 'invalid',
  oidc_denied: 'forbidden',
  oidc_exchange_failed: 'upstream',
  oidc_token_invalid: 'forbidden',
  oidc_no_email: 'forbidden',
  oidc_email_domain: 'forbidden',
  oidc_expired: 'invalid',
  oidc_email_unverified: 'forbidden',
  oidc_account_conflict: 'conflict',
  oidc_not_member: 'forbidden',
};

export class OidcError extends DomainError {
  declare readonly code: OidcErrorCode;

  constructor(code: OidcErrorCode, message: string, options?: { cause?: unknown }) {
    super(KINDS[code], code, message);
    this.name = 'OidcError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
