import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** The log record's fields an error is read from (incidents/detect/error-records.ts errorOfLog); undefined when none. */
export function errorLogRow(db: Kysely<Database>, projectId: string, id: number) {
  return db
    .selectFrom('logs')
    .select([
      'project_id',
      'app_id',
      'time_ms',
      'received_ms',
      'session_id',
      'trace_id',
      'body',
      'attributes',
      'resource',
      'severity_number',
    ])
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}
