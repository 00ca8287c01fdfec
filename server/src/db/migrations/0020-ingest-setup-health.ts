import type { Kysely, Migration } from 'kysely';

/**
 * A new project's set-up and ingest health (issue 29): ingest keys keep their text, which the console shows beside the
 * snippet (they are public and ship in every page that sends telemetry; control, read and admin keys stay hash-only),
 * and the refusals of ingest requests are counted per project, hour and reason with the last example
 * (ingest/refusals/). `project_id` is '' for refusals whose key named no project (missing or unknown keys).
 */
export function ingestSetupHealthMigration(): Migration {
  const bigint = 'bigint' as const;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('api_keys').addColumn('key_text', 'text').execute();
      await db.schema
        .createTable('ingest_refusals')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('hour_ms', bigint, (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('count', bigint, (c) => c.notNull())
        .addColumn('last_ms', bigint, (c) => c.notNull())
        .addColumn('example', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('ingest_refusals_pk', ['project_id', 'hour_ms', 'reason'])
        .execute();
    },
  };
}
