import type { Kysely, Migration } from 'kysely';

/**
 * The Web Vitals summary (GET /control-plane/vitals) reads five metric names of a project over a time window; metric
 * points of other names (an app's own metrics, server exporters) can outnumber vitals by far, and the project-time index
 * would make it read all of them. This index reads the vitals only, and serves the metric listing's `name` filter too.
 */
export function vitalsIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('metric_points_project_name_time')
        .on('metric_points')
        .columns(['project_id', 'name', 'time_ms', 'id'])
        .execute();
    },
  };
}
