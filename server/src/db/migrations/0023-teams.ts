import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Teams (issue 31, docs/teams.md): people, their role in an organisation (a tenant), console sessions, one-time tokens
 * (first owner, invitations, password resets, pending single sign-ons), failed sign-ins counted per account and per
 * address, and the audit log. Keys remember who made them and when they were last used.
 */
export function teamsMigration(dialect: DialectName): Migration {
  const bigint = 'bigint' as const;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('oidc_subject', 'text', (c) => c.unique())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('memberships')
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('projects', 'text')
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('memberships_pk', ['tenant_id', 'user_id'])
        .execute();
      await db.schema
        .createTable('console_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addColumn('last_seen_ms', bigint, (c) => c.notNull())
        .addColumn('expires_ms', bigint, (c) => c.notNull())
        .addColumn('revoked_ms', bigint)
        .addColumn('address', 'text')
        .addColumn('user_agent', 'text')
        .execute();
      await db.schema.createIndex('console_sessions_user').on('console_sessions').columns(['user_id']).execute();
      await db.schema
        .createTable('auth_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('tenant_id', 'text')
        .addColumn('email', 'text')
        .addColumn('role', 'text')
        .addColumn('projects', 'text')
        .addColumn('payload', 'text')
        .addColumn('created_by', 'text')
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addColumn('expires_ms', bigint, (c) => c.notNull())
        .addColumn('used_ms', bigint)
        .execute();
      await db.schema
        .createTable('sign_in_failures')
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('window_ms', bigint, (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('sign_in_failures_pk', ['subject', 'window_ms'])
        .execute();
      await createAuditLog(db, dialect);
      await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
      await db.schema.alterTable('api_keys').addColumn('last_used_ms', bigint).execute();
    },
  };
}

async function createAuditLog(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const bigint = 'bigint' as const;
  await db.schema
    .createTable('audit_log')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text')
    .addColumn('at_ms', bigint, (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('actor_label', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_time').on('audit_log').columns(['tenant_id', 'at_ms']).execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['tenant_id', 'actor_id', 'at_ms']).execute();
}
