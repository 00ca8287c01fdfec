import type { Kysely, Migration } from 'kysely';

/**
 * Web Vitals rollups (vitals/rollup/): a histogram and the rating counts per hour and per day, so the summary over a
 * week or a month reads a few thousand rows instead of every point. The job fills them from the points already stored
 * over its first runs, a bounded number of hours each (nothing is computed here).
 */
export function vitalRollupsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('vital_rollups')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('start_ms', 'bigint', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('vital', 'text', (c) => c.notNull())
        .addColumn('samples', 'integer', (c) => c.notNull())
        .addColumn('good', 'integer', (c) => c.notNull())
        .addColumn('needs_improvement', 'integer', (c) => c.notNull())
        .addColumn('poor', 'integer', (c) => c.notNull())
        .addColumn('histogram', 'text', (c) => c.notNull())
        // Led by what the summary and retention look up: a project's periods of one length in a time range.
        .addPrimaryKeyConstraint('vital_rollups_pk', [
          'project_id',
          'period',
          'start_ms',
          'app_id',
          'env',
          'route',
          'vital',
        ])
        .execute();
      await db.schema
        .createTable('vital_rollup_marks')
        .addColumn('project_id', 'text', (c) => c.primaryKey())
        .addColumn('hours_ms', 'bigint', (c) => c.notNull())
        .addColumn('days_ms', 'bigint', (c) => c.notNull())
        .addColumn('checked_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('vital_rollup_stale')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('start_ms', 'bigint', (c) => c.notNull())
        .addColumn('marked_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('vital_rollup_stale_pk', ['project_id', 'period', 'start_ms'])
        .execute();
    },
  };
}
