import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { SESSION_COUNTER, sessionDeltas, sessionRow } from './sessions';
import type { TelemetryWriter } from './writer';

/** Rows per INSERT: keeps every statement under PostgreSQL's bound-parameter limit. */
const INSERT_BATCH = 400;

/**
 * PostgreSQL: one transaction per request. Concurrent requests already commit in parallel on the pool's connections,
 * and several server replicas may share the database, so there is nothing to group in-process.
 */
export function postgresWriter(db: Kysely<Database>): TelemetryWriter {
  return {
    kind: 'postgres',
    write: ({ projectId, table, rows, receivedMs }) =>
      db.transaction().execute(async (tx) => {
        if (table === 'replay_chunks') {
          // One chunk per request; a retried chunk is a no-op so counts and data stay exact.
          const res = await tx
            .insertInto('replay_chunks')
            .values(rows as never)
            .onConflict((oc) => oc.columns(['project_id', 'session_id', 'replay_id', 'seq']).doNothing())
            .executeTakeFirst();
          if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) return { stored: 0, duplicates: rows.length };
        } else {
          for (let i = 0; i < rows.length; i += INSERT_BATCH) {
            await tx
              .insertInto(table)
              .values(rows.slice(i, i + INSERT_BATCH) as never)
              .execute();
          }
        }
        const counter = SESSION_COUNTER[table];
        for (const d of sessionDeltas(rows)) {
          await tx
            .insertInto('sessions')
            .values(sessionRow(table, projectId, receivedMs, d))
            .onConflict((oc) =>
              oc.columns(['project_id', 'session_id']).doUpdateSet({
                [counter]: sql`sessions.${sql.ref(counter)} + excluded.${sql.ref(counter)}`,
                first_ms: sql`least(sessions.first_ms, excluded.first_ms)`,
                last_ms: sql`greatest(sessions.last_ms, excluded.last_ms)`,
                last_received_ms: sql`excluded.last_received_ms`,
              }),
            )
            .execute();
        }
        return { stored: rows.length, duplicates: 0 };
      }),
    // Each write is its own transaction, awaited by its request: nothing is queued here.
    close: async () => undefined,
  };
}
