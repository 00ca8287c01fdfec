import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { iso } from '../shared/time';

/** The project's first data: its first session if any, else the receipt time of any record (agents send none). */
export async function firstData(db: Kysely<Database>, projectId: string) {
  const session = await db
    .selectFrom('sessions as s')
    .innerJoin('apps as a', 'a.id', 's.app_id')
    .select(['s.session_id', 'a.name as app', 's.last_received_ms'])
    .where('s.project_id', '=', projectId)
    .orderBy('s.first_ms')
    .orderBy('s.session_id')
    .limit(1)
    .executeTakeFirst();
  if (session)
    return {
      received_at: iso(Number(session.last_received_ms)),
      session: { session_id: session.session_id, app: session.app },
    };
  for (const table of ['spans', 'logs', 'metric_points'] as const) {
    const row = await db
      .selectFrom(table)
      .select('received_ms')
      .where('project_id', '=', projectId)
      .limit(1)
      .executeTakeFirst();
    if (row) return { received_at: iso(Number(row.received_ms)), session: null };
  }
  return null;
}
