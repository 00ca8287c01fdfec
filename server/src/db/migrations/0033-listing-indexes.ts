import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../connect';
import { TELEMETRY_TABLES } from '../schema';

/**
 * A session's records (the session page's spans, logs, metrics, replay and recipes) and a trace's records are listed
 * in time order. With an index on the session (or trace key) alone, SQLite's planner, which has no statistics (the
 * server never runs ANALYZE), prefers the project-time index because it yields the order, and walks every record of
 * the project to find the session's: 100 ms at 100,000 spans, linear in the project's size (bench:scale). Indexes that
 * end in the order the listings read (time_ms, id) give both the rows and the order.
 *
 * The session indexes replace the old ones (same columns first, so nothing that used them loses). The spans' trace
 * index is SQLite only: there the trace detail would otherwise walk the project-time index, while PostgreSQL's planner
 * reads the identity index (trace_key first) and sorts the trace's few spans, and an index on spans costs every insert.
 */
export function listingIndexesMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of TELEMETRY_TABLES) {
        await db.schema.dropIndex(`${table}_session`).ifExists().execute();
        await db.schema
          .createIndex(`${table}_session_time`)
          .on(table)
          .columns(['project_id', 'session_id', 'time_ms', 'id'])
          .execute();
      }
      for (const table of ['logs', 'recipes']) {
        await db.schema.dropIndex(`${table}_trace`).ifExists().execute();
        await db.schema.createIndex(`${table}_trace_time`).on(table).columns(['trace_key', 'time_ms', 'id']).execute();
      }
      if (dialect === 'sqlite')
        await db.schema.createIndex('spans_trace_time').on('spans').columns(['trace_key', 'time_ms', 'id']).execute();
    },
  };
}
