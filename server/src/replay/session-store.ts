import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { ApiError } from '../http/errors';
import type { Cursor } from '../shared/keyset';
import type { ChunkEntry } from './chunk-order';
import { storedEvents, type StoredEvents } from './stored-events';

type Db = Kysely<Database>;

/** The session's summary row with its app name; a 404 when the key's project has no such session. */
export async function findSession(db: Db, projectId: string, sessionId: string) {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('apps', 'apps.id', 's.app_id')
    .selectAll('s')
    .select('apps.name as app')
    .where('s.project_id', '=', projectId)
    .where('s.session_id', '=', sessionId)
    .executeTakeFirst();
  if (!row) throw new ApiError(404, 'not_found', `no session "${sessionId}" in this project`);
  return row;
}

/** Every replay chunk of the session, without payloads (served by the replay_chunks_seq unique index). */
export function chunkIndex(db: Db, projectId: string, sessionId: string): Promise<ChunkEntry[]> {
  return db
    .selectFrom('replay_chunks')
    .select([
      'id',
      'replay_id',
      'seq',
      'time_ms',
      'end_ms',
      'event_count',
      sql<number>`length(data)`.as('stored_bytes'),
    ])
    .where('project_id', '=', projectId)
    .where('session_id', '=', sessionId)
    .execute();
}

/** The decoded events of the chunks with these ids, by id (a chunk that cannot be served says so: storedEvents). */
export async function chunkEvents(
  db: Db,
  projectId: string,
  ids: readonly number[],
): Promise<Map<number, StoredEvents>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('replay_chunks')
    .select(['id', 'encoding', 'data'])
    .where('project_id', '=', projectId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, storedEvents(r.encoding, r.data)]));
}

/** The session's recipe steps, oldest first, after `cursor` (time, id) when given; all of them without a limit. */
export function sessionRecipes(db: Db, projectId: string, sessionId: string, limit?: number, cursor?: Cursor) {
  let q = db
    .selectFrom('recipes as r')
    .innerJoin('apps', 'apps.id', 'r.app_id')
    .selectAll('r')
    .select('apps.name as app')
    .where('r.project_id', '=', projectId)
    .where('r.session_id', '=', sessionId);
  if (cursor) {
    q = q.where((eb) =>
      eb.or([
        eb('r.time_ms', '>', cursor.t),
        eb.and([eb('r.time_ms', '=', cursor.t), eb('r.id', '>', Number(cursor.k))]),
      ]),
    );
  }
  q = q.orderBy('r.time_ms', 'asc').orderBy('r.id', 'asc');
  return (limit === undefined ? q : q.limit(limit)).execute();
}
