import type { Kysely, Migration } from 'kysely';

/**
 * Deletion on request (docs/governance.md, "Deletion on request"): the jobs that erase one person's data. A job is
 * claimed with a lease like an outbox delivery, so replicas sharing the database never run it twice and a job cut
 * short by a crash is taken over; the claim looks for queued or lapsed jobs, hence the index by status.
 */
export function erasuresMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('erasures')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('target_kind', 'text', (c) => c.notNull())
        .addColumn('target_key', 'text')
        .addColumn('target_digest', 'text', (c) => c.notNull())
        .addColumn('target_value', 'text')
        .addColumn('subjects', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('counts', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('requested_by', 'text', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until_ms', 'bigint')
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('started_ms', 'bigint')
        .addColumn('finished_ms', 'bigint')
        .execute();
      await db.schema
        .createIndex('erasures_project_created')
        .on('erasures')
        .columns(['project_id', 'created_ms'])
        .execute();
      await db.schema.createIndex('erasures_status').on('erasures').columns(['status', 'created_ms']).execute();
    },
  };
}
