import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Ingest limits (docs/governance.md, "Limits"): a project's own rate, burst and daily quota per signal; the usage
 * counts the quotas and the usage page read; spikes being throttled; and the token buckets of rate-limiter-flexible's
 * PostgreSQL store (its own column layout, which it is told exists), so that replicas share them. SQLite gets the
 * same table for one schema, though a single process keeps its buckets in memory.
 */
export function ingestLimitsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('project_limits')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('signal', 'text', (c) => c.notNull())
        .addColumn('rate', 'bigint')
        .addColumn('burst', 'bigint')
        .addColumn('daily', 'bigint')
        .addColumn('updated_ms', 'bigint', (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('project_limits_pk', ['project_id', 'signal'])
        .execute();
      await db.schema
        .createTable('ingest_usage')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('signal', 'text', (c) => c.notNull())
        .addColumn('bucket_ms', 'bigint', (c) => c.notNull())
        .addColumn('accepted', 'bigint', (c) => c.notNull())
        .addColumn('throttled', 'bigint', (c) => c.notNull())
        .addColumn('refused', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('ingest_usage_pk', ['project_id', 'signal', 'bucket_ms'])
        .execute();
      await db.schema
        .createTable('ingest_spikes')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('signal', 'text', (c) => c.notNull())
        .addColumn('started_ms', 'bigint', (c) => c.notNull())
        .addColumn('until_ms', 'bigint', (c) => c.notNull())
        .addColumn('baseline_per_minute', 'double precision', (c) => c.notNull())
        .addColumn('observed_per_minute', 'double precision', (c) => c.notNull())
        .addPrimaryKeyConstraint('ingest_spikes_pk', ['project_id', 'signal'])
        .execute();
      await db.schema
        .createTable('ingest_rate_buckets')
        .addColumn('key', sql`varchar(255)`, (c) => c.primaryKey())
        .addColumn('points', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('expire', 'bigint')
        .execute();
    },
  };
}
