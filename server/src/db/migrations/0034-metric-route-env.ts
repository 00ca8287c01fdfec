import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';
import { DEFAULT_ENV, TEST_ENV } from '../../otlp/environment';
import { VITAL_OF_METRIC } from '../../vitals/summary';

/**
 * Metric points get their page (`url.path`) and environment as columns. The Web Vitals summary read them out of each
 * point's JSON: 2.6 s for 200,000 points on PostgreSQL, most of it parsing the resource (bench:scale). Points already
 * stored are filled in for the vitals, the only points read so; other points get them from now on.
 */
export function metricRouteEnvMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('metric_points').addColumn('route', 'text').execute();
      await db.schema.alterTable('metric_points').addColumn('env', 'text').execute();
      const attribute = (column: string, name: string) =>
        dialect === 'postgres'
          ? sql`nullif(${sql.ref(column)}::jsonb ${sql.raw(column === 'resource' ? "-> 'attributes' ->>" : '->>')} ${name}, '')`
          : sql`nullif(json_extract(${sql.ref(column)}, ${column === 'resource' ? `$.attributes."${name}"` : `$."${name}"`}), '')`;
      await sql`update metric_points set
          route = ${attribute('attributes', 'url.path')},
          env = case when ${attribute('resource', 'test.run.id')} is not null then ${TEST_ENV}
            else coalesce(${attribute('resource', 'deployment.environment.name')}, ${attribute('resource', 'deployment.environment')}, ${DEFAULT_ENV}) end
        where name in (${sql.join([...VITAL_OF_METRIC.keys()])})`.execute(db);
    },
  };
}
