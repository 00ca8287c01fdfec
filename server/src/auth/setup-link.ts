import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { createToken, revokeTokens } from './tokens-store';
import { anyUser } from './users-store';

/** A set-up link works for a week, long enough to read the start banner another day; one use. */
export const SETUP_LINK_TTL_MS = 7 * 24 * 3600_000;

/**
 * On a server nobody has an account on yet, a one-time link creating the first owner of the oldest organisation:
 * `<publicUrl>/welcome#token=…` (in the fragment, so it reaches no server log or proxy). Each start makes a new one
 * and ends the previous ones; null once someone has an account.
 */
export async function setupLinkIfNoOwner(
  db: Kysely<Database>,
  clock: Clock,
  publicUrl: string,
): Promise<string | null> {
  if (await anyUser(db)) return null;
  const tenant = await db.selectFrom('tenants').select('id').orderBy('created_ms').limit(1).executeTakeFirst();
  if (!tenant) return null;
  const { token } = await db.transaction().execute(async (tx) => {
    await revokeTokens(tx, clock, 'setup');
    return createToken(tx, clock, { kind: 'setup', tenantId: tenant.id, ttlMs: SETUP_LINK_TTL_MS });
  });
  return `${publicUrl}/welcome#token=${token}`;
}
