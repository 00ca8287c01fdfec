import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Cost tracking: billing connections, their durable daily sync jobs, billed resources with their attribution, daily
 * cost, and the mapping rules. See cost/tables.ts for what each column holds.
 */
export function costMigration(_dialect: DialectName): Migration {
  const bigint = 'bigint';
  const money = 'double precision';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('cost_providers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('secrets', 'text', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('cost_syncs')
        .addColumn('provider_id', 'text', (c) => c.primaryKey().references('cost_providers.id').onDelete('cascade'))
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('next_run_ms', bigint, (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until_ms', bigint)
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('last_started_ms', bigint)
        .addColumn('last_finished_ms', bigint)
        .addColumn('last_status', 'text')
        .addColumn('last_rows', bigint)
        .addColumn('last_periods', 'text')
        .addColumn('last_error', 'text')
        .addColumn('last_success_ms', bigint)
        .execute();
      await db.schema.createIndex('cost_syncs_due').on('cost_syncs').column('next_run_ms').execute();
      await db.schema
        .createTable('cost_resources')
        .addColumn('provider_id', 'text', (c) => c.notNull().references('cost_providers.id').onDelete('cascade'))
        .addColumn('resource_key', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('resource_id', 'text')
        .addColumn('resource_name', 'text')
        .addColumn('service_name', 'text', (c) => c.notNull())
        .addColumn('service_category', 'text')
        .addColumn('region', 'text')
        .addColumn('account_id', 'text')
        .addColumn('tags', 'text', (c) => c.notNull())
        .addColumn('service', 'text')
        .addColumn('env', 'text')
        .addColumn('updated_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('cost_resources_pk', ['provider_id', 'resource_key'])
        .execute();
      await db.schema.createIndex('cost_resources_project').on('cost_resources').column('project_id').execute();
      await db.schema
        .createTable('cost_daily')
        .addColumn('provider_id', 'text', (c) => c.notNull().references('cost_providers.id').onDelete('cascade'))
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('billing_period', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('resource_key', 'text', (c) => c.notNull())
        .addColumn('charge_category', 'text', (c) => c.notNull())
        .addColumn('pricing_category', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('billed_cost', money, (c) => c.notNull())
        .addColumn('effective_cost', money, (c) => c.notNull())
        .addColumn('line_items', bigint, (c) => c.notNull())
        .execute();
      // A sync replaces (provider, billing period); reports read a project's days.
      await db.schema
        .createIndex('cost_daily_period')
        .on('cost_daily')
        .columns(['provider_id', 'billing_period'])
        .execute();
      await db.schema.createIndex('cost_daily_project_day').on('cost_daily').columns(['project_id', 'day']).execute();
      await db.schema
        .createTable('cost_mappings')
        .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
        .addColumn('rules', 'text', (c) => c.notNull())
        .addColumn('updated_ms', bigint, (c) => c.notNull())
        .execute();
    },
  };
}
