import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { firstOrganisation } from '../../organisation/store';
import type { OidcSettings } from './settings';

/**
 * What a sign-in goes by: the server's settings, with the policy (allowed domains, group → role map, default role) of
 * the organisation it admits people into when that organisation stored one (docs/teams.md, "Organisation").
 */
export async function signInSettings(db: Kysely<Database>, settings: OidcSettings): Promise<OidcSettings> {
  const policy = (await firstOrganisation(db))?.ssoPolicy;
  return policy ? { ...settings, ...policy } : settings;
}
