import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Incidents, notification channels and rules, project integrations, and the delivery outbox: durable work lives in
 * rows with a due time (DESIGN.md), so a killed process loses nothing and several processes can share it.
 */
export function incidentsMigration(_dialect: DialectName): Migration {
  const bigint = 'bigint';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('incidents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('services', 'text', (c) => c.notNull())
        .addColumn('root_cause_summary', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text')
        // `project:fingerprint` while the incident is open, null once resolved: one open incident per detector key,
        // enforced by the database across processes.
        .addColumn('open_key', 'text', (c) => c.unique())
        .addColumn('evidence', 'text')
        .addColumn('cost_impact', 'text')
        .addColumn('detected_ms', bigint, (c) => c.notNull())
        .addColumn('escalated_ms', bigint)
        .addColumn('acknowledged_ms', bigint)
        .addColumn('acknowledged_by', 'text')
        .addColumn('resolved_ms', bigint)
        .addColumn('resolved_by', 'text')
        .addColumn('updated_ms', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('incidents_project_detected')
        .on('incidents')
        .columns(['project_id', 'detected_ms', 'id'])
        .execute();

      await db.schema
        .createTable('notification_channels')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('secrets', 'text', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('notification_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('position', bigint, (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('conditions', 'text', (c) => c.notNull())
        .addColumn('channels', 'text', (c) => c.notNull())
        .addColumn('delay_seconds', 'integer', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('integrations')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('secrets', 'text', (c) => c.notNull())
        .addColumn('updated_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('integrations_pk', ['project_id', 'kind'])
        .execute();
      await db.schema
        .createTable('notification_threads')
        .addColumn('channel_id', 'text', (c) => c.notNull().references('notification_channels.id').onDelete('cascade'))
        .addColumn('incident_id', 'text', (c) => c.notNull().references('incidents.id').onDelete('cascade'))
        .addColumn('ref', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_threads_pk', ['channel_id', 'incident_id'])
        .execute();

      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('channel_id', 'text', (c) => c.notNull().references('notification_channels.id').onDelete('cascade'))
        .addColumn('channel_type', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text')
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('rule_id', 'text')
        // One delivery per (incident, event, channel): a channel two rules reach is notified once.
        .addColumn('dedupe_key', 'text', (c) => c.notNull().unique())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_ms', bigint)
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until_ms', bigint)
        .addColumn('notice', 'text')
        .addColumn('last_status', 'integer')
        .addColumn('last_response', 'text')
        .addColumn('error_class', 'text')
        .addColumn('error_message', 'text')
        .addColumn('latency_ms', 'double precision')
        .addColumn('provider_ref', 'text')
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addColumn('updated_ms', bigint, (c) => c.notNull())
        .addColumn('completed_ms', bigint)
        .execute();
      // The worker's queue: due work by time. The log: newest first per project (and channel).
      await db.schema.createIndex('deliveries_due').on('deliveries').columns(['next_attempt_ms']).execute();
      await db.schema
        .createIndex('deliveries_log')
        .on('deliveries')
        .columns(['project_id', 'created_ms', 'id'])
        .execute();
      await db.schema
        .createIndex('deliveries_channel_log')
        .on('deliveries')
        .columns(['channel_id', 'created_ms', 'id'])
        .execute();
      await db.schema.createIndex('deliveries_incident').on('deliveries').columns(['incident_id']).execute();

      await db.schema
        .createTable('delivery_attempts')
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('started_ms', bigint, (c) => c.notNull())
        .addColumn('latency_ms', 'double precision', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('response', 'text')
        .addColumn('error_class', 'text')
        .addColumn('error_message', 'text')
        .addPrimaryKeyConstraint('delivery_attempts_pk', ['delivery_id', 'attempt'])
        .execute();
    },
  };
}
