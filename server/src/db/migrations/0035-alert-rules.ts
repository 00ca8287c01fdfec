import type { Kysely, Migration } from 'kysely';

/**
 * Alert rules (docs/alerts.md): a query over one signal, a window and a condition, with the evaluator's state kept on
 * the rule's row. The evaluator claims due rules with a lease like an outbox delivery (the lease columns), walking the
 * index by due time; the listing walks the project's rules by creation.
 */
export function alertRulesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('alert_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('signal', 'text', (c) => c.notNull())
        .addColumn('query', 'text', (c) => c.notNull())
        .addColumn('condition', 'text', (c) => c.notNull())
        .addColumn('recovery', 'text')
        .addColumn('window_seconds', 'integer', (c) => c.notNull())
        .addColumn('for_seconds', 'integer', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('no_data', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('updated_ms', 'bigint', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull().defaultTo('ok'))
        .addColumn('state_since_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('pending_since_ms', 'bigint')
        .addColumn('last_value', 'double precision')
        .addColumn('last_evaluated_ms', 'bigint')
        .addColumn('incident_id', 'text')
        .addColumn('next_eval_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until_ms', 'bigint')
        .execute();
      await db.schema.createIndex('alert_rules_due').on('alert_rules').column('next_eval_ms').execute();
      await db.schema
        .createIndex('alert_rules_project_created')
        .on('alert_rules')
        .columns(['project_id', 'created_ms', 'id'])
        .execute();
    },
  };
}
