import type { Kysely, Selectable } from 'kysely';
import type { SsoPolicy } from '../auth/oidc/settings';
import type { Database } from '../db/schema';
import { nextPolicy, policyJson, policyOf, type PolicyChange } from './policy';
import { SsoPolicySchema } from './schemas';

/** An organisation (a tenant) and the single sign-on policy it keeps, if any. */
export interface Organisation {
  id: string;
  name: string;
  createdMs: number;
  /** Null: the SVC_OIDC_* settings' policy applies. */
  ssoPolicy: SsoPolicy | null;
}

export interface OrganisationChange {
  name?: string;
  /** Null removes the organisation's policy. */
  ssoPolicy?: PolicyChange | null;
}

type Row = Selectable<Database['tenants']>;

const toOrganisation = (row: Row): Organisation => ({
  id: row.id,
  name: row.name,
  createdMs: row.created_ms,
  // Parsed, not trusted: a policy that does not read as one refuses sign-ins rather than widening them.
  ssoPolicy: row.sso_policy === null ? null : policyOf(SsoPolicySchema.parse(JSON.parse(row.sso_policy))),
});

/** The caller's organisation (it exists: the caller's key or session was found in it). */
export async function findOrganisation(db: Kysely<Database>, id: string): Promise<Organisation> {
  return toOrganisation(await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
}

/** The organisation single sign-on admits people into: the oldest, made on the server's first start. */
export async function firstOrganisation(db: Kysely<Database>): Promise<Organisation | undefined> {
  const row = await db
    .selectFrom('tenants')
    .selectAll()
    .orderBy('created_ms')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row && toOrganisation(row);
}

/**
 * Renames the organisation or changes its policy; a first policy change starts from `inForce` (the environment's).
 * The row is written before it is read, so two changes at once apply one after the other, neither lost.
 */
export function changeOrganisation(
  db: Kysely<Database>,
  id: string,
  change: OrganisationChange,
  inForce: SsoPolicy,
): Promise<{ before: Organisation; after: Organisation }> {
  return db.transaction().execute(async (tx) => {
    await tx
      .updateTable('tenants')
      .set((eb) => ({ name: eb.ref('name') }))
      .where('id', '=', id)
      .execute();
    const before = await findOrganisation(tx, id);
    const policy = nextPolicy(before.ssoPolicy, change.ssoPolicy, inForce);
    const after: Organisation = { ...before, name: change.name ?? before.name, ssoPolicy: policy };
    await tx
      .updateTable('tenants')
      .set({ name: after.name, sso_policy: policy === null ? null : JSON.stringify(policyJson(policy)) })
      .where('id', '=', id)
      .execute();
    return { before, after };
  });
}
