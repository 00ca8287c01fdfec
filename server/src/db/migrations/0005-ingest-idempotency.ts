import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Idempotent ingest: a span is stored once per (project, trace id, span id), and a log record once per (project,
 * `log.record.uid`) when it carries one, so an exporter's retry after a timeout stores nothing twice.
 *
 * The span identity index replaces `spans_trace`: it leads with the same 6-byte trace key, so trace lookups use it as
 * before and a span costs no extra index entry. Copies stored before this migration are removed, keeping the first.
 */
export function ingestIdempotencyMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`delete from spans where id not in (select min(id) from spans group by project_id, trace_id, span_id)`.execute(
        db,
      );
      await db.schema.dropIndex('spans_trace').execute();
      await db.schema
        .createIndex('spans_identity')
        .on('spans')
        .columns(['trace_key', 'span_id', 'trace_id', 'project_id'])
        .unique()
        .execute();
      await db.schema.alterTable('logs').addColumn('record_uid', 'text').execute();
      await db.schema
        .createIndex('logs_record_uid')
        .on('logs')
        .columns(['project_id', 'record_uid'])
        .unique()
        .where(sql.ref('record_uid'), 'is not', null)
        .execute();
    },
  };
}
