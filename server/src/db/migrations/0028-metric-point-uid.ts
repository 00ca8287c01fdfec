import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Idempotent metric points: a point that carries an identity (the SDK's `svc.point.uid` attribute, wire/self-telemetry.ts)
 * is stored once per project, as spans and log records are since 0005, so a request the SDK sends again (a page-leave
 * request kept for the next load, a retry after a lost answer) adds nothing. Points without one are stored as they come.
 */
export function metricPointUidMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('metric_points').addColumn('point_uid', 'text').execute();
      await db.schema
        .createIndex('metric_points_point_uid')
        .on('metric_points')
        .columns(['project_id', 'point_uid'])
        .unique()
        .where(sql.ref('point_uid'), 'is not', null)
        .execute();
    },
  };
}
