import type { Generated } from 'kysely';
import type { Role } from './roles';

/** People, their memberships, console sessions, one-time tokens and the audit log (migration 0023, docs/teams.md). */
export interface TeamTables {
  users: {
    id: string;
    /** Lower-cased; one person per address across the server. */
    email: string;
    name: string;
    /** argon2id PHC string; null for people who only sign in through single sign-on (or have not set one yet). */
    password_hash: string | null;
    /** `issuer|sub` of the identity provider's subject, once they signed in through it. */
    oidc_subject: string | null;
    created_ms: number;
  };
  memberships: {
    tenant_id: string;
    user_id: string;
    role: Role;
    /** JSON array of the project ids the member is limited to; null for every project of the organisation. */
    projects: string | null;
    created_ms: number;
  };
  console_sessions: {
    id: string;
    /** SHA-256 of the cookie's token, hex: the token itself is never stored. */
    token_hash: string;
    user_id: string;
    tenant_id: string;
    method: 'password' | 'oidc' | 'setup' | 'invite' | 'reset';
    created_ms: number;
    last_seen_ms: number;
    /** Absolute expiry: the session ends then however active it is. */
    expires_ms: number;
    revoked_ms: number | null;
    address: string | null;
    user_agent: string | null;
  };
  auth_tokens: {
    /** SHA-256 of the token, hex. */
    token_hash: string;
    kind: 'setup' | 'invite' | 'reset' | 'oidc';
    tenant_id: string | null;
    email: string | null;
    role: Role | null;
    projects: string | null;
    /** Kind-specific JSON: an OIDC sign-in's state, nonce and code verifier. */
    payload: string | null;
    created_by: string | null;
    created_ms: number;
    expires_ms: number;
    used_ms: number | null;
  };
  sign_in_failures: { subject: string; window_ms: number; count: number };
  audit_log: {
    id: Generated<number>;
    tenant_id: string;
    project_id: string | null;
    at_ms: number;
    actor_kind: 'person' | 'key' | 'system' | 'link' | 'chat';
    actor_id: string;
    /** The person's e-mail or the key's name, as they were at the time. */
    actor_label: string;
    /** The operation as the API names it: `PATCH /control-plane/issues/{id}`. */
    operation: string;
    target_type: string | null;
    target_id: string | null;
    /** JSON `{ before?, after? }` of the changed fields, secrets replaced by `[REDACTED]`. */
    changes: string;
    address: string | null;
    status: number;
  };
}
