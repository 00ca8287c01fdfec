import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Root-cause analyses of issues (ai/store.ts): one row per request, newest read. At most one analysis of an issue is
 * queued or running at a time (a unique partial index), so a repeated POST returns the one under way. Deleting a
 * project deletes its analyses. `seq` orders them: times tie, and a clock may go back.
 */
export function issueAnalysesMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('issue_analyses')
        .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('model', 'text')
        .addColumn('sent', 'text')
        .addColumn('result', 'text')
        .addColumn('usage', 'text')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('retry_after_s', 'integer')
        .addColumn('requested_by', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('finished_ms', 'bigint')
        .execute();
      await db.schema
        .createIndex('issue_analyses_latest')
        .on('issue_analyses')
        .columns(['project_id', 'fingerprint', 'seq'])
        .execute();
      await db.schema
        .createIndex('issue_analyses_one_running')
        .on('issue_analyses')
        .columns(['project_id', 'fingerprint'])
        .unique()
        .where(sql<boolean>`state in ('queued', 'running')`)
        .execute();
    },
  };
}
