import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../connect';

/** Tenancy, keys, telemetry and per-session summaries. */
export function initMigration(dialect: DialectName): Migration {
  const bigint = 'bigint';
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';

  const withRowId = <T extends Parameters<Kysely<unknown>['schema']['createTable']>[0]>(
    db: Kysely<unknown>,
    table: T,
  ) =>
    dialect === 'postgres'
      ? db.schema.createTable(table).addColumn('id', 'bigserial', (c) => c.primaryKey())
      : db.schema.createTable(table).addColumn('id', 'integer', (c) => c.primaryKey());

  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('apps')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addUniqueConstraint('apps_project_name', ['project_id', 'name'])
        .execute();
      await db.schema
        .createTable('app_aliases')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
        .addColumn('alias', 'text', (c) => c.notNull())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('app_aliases_pk', ['project_id', 'alias'])
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('display_prefix', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_ms', bigint, (c) => c.notNull())
        .addColumn('expires_ms', bigint)
        .addColumn('revoked_ms', bigint)
        .execute();

      const common = (t: ReturnType<typeof withRowId>) =>
        t
          .addColumn('project_id', 'text', (c) => c.notNull())
          .addColumn('app_id', 'text', (c) => c.notNull())
          .addColumn('time_ms', bigint, (c) => c.notNull())
          .addColumn('received_ms', bigint, (c) => c.notNull());

      await common(withRowId(db, 'spans'))
        .addColumn('trace_id', 'text', (c) => c.notNull())
        .addColumn('trace_key', bigint, (c) => c.notNull())
        .addColumn('span_id', 'text', (c) => c.notNull())
        .addColumn('parent_span_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('kind', 'integer', (c) => c.notNull())
        .addColumn('start_ns', 'text', (c) => c.notNull())
        .addColumn('end_ns', 'text', (c) => c.notNull())
        .addColumn('duration_ms', 'double precision', (c) => c.notNull())
        .addColumn('status_code', 'integer', (c) => c.notNull())
        .addColumn('status_message', 'text')
        .addColumn('session_id', 'text')
        .addColumn('attributes', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('links', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .execute();
      await common(withRowId(db, 'logs'))
        .addColumn('time_ns', 'text', (c) => c.notNull())
        .addColumn('observed_ns', 'text', (c) => c.notNull())
        .addColumn('severity_number', 'integer', (c) => c.notNull())
        .addColumn('severity_text', 'text')
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('event_name', 'text')
        .addColumn('trace_id', 'text')
        .addColumn('trace_key', bigint)
        .addColumn('span_id', 'text')
        .addColumn('session_id', 'text')
        .addColumn('attributes', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .execute();
      await common(withRowId(db, 'metric_points'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('unit', 'text')
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('time_ns', 'text', (c) => c.notNull())
        .addColumn('start_ns', 'text')
        .addColumn('value', 'double precision')
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text')
        .addColumn('attributes', 'text', (c) => c.notNull())
        .addColumn('resource', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .execute();
      await common(withRowId(db, 'replay_chunks'))
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('replay_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('end_ms', bigint, (c) => c.notNull())
        .addColumn('event_count', 'integer', (c) => c.notNull())
        .addColumn('encoding', 'text', (c) => c.notNull())
        .addColumn('data', blob, (c) => c.notNull())
        .addUniqueConstraint('replay_chunks_seq', ['project_id', 'session_id', 'replay_id', 'seq'])
        .execute();
      await common(withRowId(db, 'recipes'))
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('replay_id', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('duration_ms', 'double precision', (c) => c.notNull())
        .addColumn('trace_id', 'text')
        .addColumn('trace_key', bigint)
        .addColumn('step', 'text', (c) => c.notNull())
        .execute();

      for (const table of ['spans', 'logs', 'metric_points', 'replay_chunks', 'recipes']) {
        // Newest-first listing per project and the retention sweep.
        await db.schema
          .createIndex(`${table}_project_time`)
          .on(table)
          .columns(['project_id', 'time_ms', 'id'])
          .execute();
        await db.schema.createIndex(`${table}_received`).on(table).column('received_ms').execute();
        await db.schema.createIndex(`${table}_session`).on(table).columns(['project_id', 'session_id']).execute();
      }
      for (const table of ['spans', 'logs', 'recipes']) {
        // db/trace-key.ts: a small integer key instead of (project_id, trace_id) text keeps this random-order index cheap.
        await db.schema.createIndex(`${table}_trace`).on(table).column('trace_key').execute();
      }

      await db.schema
        .createTable('sessions')
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('first_ms', bigint, (c) => c.notNull())
        .addColumn('last_ms', bigint, (c) => c.notNull())
        .addColumn('span_count', 'integer', (c) => c.notNull())
        .addColumn('log_count', 'integer', (c) => c.notNull())
        .addColumn('metric_count', 'integer', (c) => c.notNull())
        .addColumn('replay_chunk_count', 'integer', (c) => c.notNull())
        .addColumn('recipe_count', 'integer', (c) => c.notNull())
        .addColumn('last_received_ms', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('sessions_pk', ['project_id', 'session_id'])
        .execute();
      await db.schema.createIndex('sessions_project_last').on('sessions').columns(['project_id', 'last_ms']).execute();
    },
  };
}
