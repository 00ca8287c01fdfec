import type { Kysely, Migration } from 'kysely';

/**
 * Organisations (issue 31, docs/teams.md "Organisation"): an organisation may keep its own single sign-on policy
 * (allowed e-mail domains, group → role map, default role) as JSON, which replaces the SVC_OIDC_* policy settings
 * when set. Null: the server's settings apply.
 */
export function organisationSsoMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('tenants').addColumn('sso_policy', 'text').execute();
    },
  };
}
