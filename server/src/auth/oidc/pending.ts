import type { Kysely } from 'kysely';
import type { Clock } from '../../clock';
import type { Database } from '../../db/schema';
import { consumeToken, createToken } from '../tokens-store';
import { OidcError } from './errors';
import type { PendingSignIn } from './flow';

/** How long a person has at the provider's sign-in page before the sign-in must start again. */
export const PENDING_TTL_MS = 10 * 60_000;

/**
 * Keeps a started sign-in server-side (auth_tokens, kind `oidc`) and returns the random id the browser carries back in
 * its `svc_oidc` cookie. Server-side rather than a sealed cookie: the one conditional update of `takePending` makes
 * each sign-in single-use whatever the browser replays, and the PKCE verifier never leaves the server.
 */
export async function savePending(db: Kysely<Database>, clock: Clock, pending: PendingSignIn): Promise<string> {
  // Sign-ins started and abandoned: gone once expired, so the table holds at most ten minutes of them.
  await db.deleteFrom('auth_tokens').where('kind', '=', 'oidc').where('expires_ms', '<=', clock.now()).execute();
  const { token } = await createToken(db, clock, { kind: 'oidc', payload: pending, ttlMs: PENDING_TTL_MS });
  return token;
}

/** Uses up the sign-in `id` names; refuses one that is unknown, used already or expired. */
export async function takePending(db: Kysely<Database>, clock: Clock, id: string | undefined): Promise<PendingSignIn> {
  const row = id ? await consumeToken(db, clock, 'oidc', id) : undefined;
  if (!row?.payload) {
    throw new OidcError(
      'oidc_expired',
      'This sign-in has expired or was completed already (or this browser did not start it). Start the sign-in again.',
    );
  }
  return JSON.parse(row.payload) as PendingSignIn;
}
