import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, TelemetryTable } from '../db/schema';
import { retryOnConflict } from '../db/transient';
import {
  factsBySession,
  SESSION_COUNTER,
  sessionDeltas,
  sessionFactsUpdate,
  sessionRow,
  type SessionSource,
} from './sessions';
import type { StoredRow, StoreResult, TelemetryWrite, TelemetryWriter } from './writer';

/** Rows per INSERT: keeps every statement under PostgreSQL's bound-parameter limit. */
const INSERT_BATCH = 400;

/**
 * PostgreSQL: one transaction per request. Concurrent requests already commit in parallel on the pool's connections,
 * and several server replicas may share the database, so there is nothing to group in-process. A transaction that a
 * deadlock or serialization failure rolled back is run again.
 */
export function postgresWriter(db: Kysely<Database>): TelemetryWriter {
  return {
    kind: 'postgres',
    write: (write) => retryOnConflict(() => db.transaction().execute((tx) => writeRows(tx, write))),
    // Each write is its own transaction, awaited by its request: nothing is queued here.
    close: async () => undefined,
  };
}

/**
 * Inserts the rows, skipping any already stored (a retried span, log record or replay chunk: the unique indexes say
 * which), and adds what was stored to the session summaries.
 */
async function writeRows(
  tx: Transaction<Database>,
  { projectId, table, rows, receivedMs, sessions }: TelemetryWrite,
): Promise<StoreResult> {
  const stored: SessionSource[] = [];
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const slice = rows.slice(i, i + INSERT_BATCH);
    const inserted = await tx
      .insertInto(table)
      .values(slice as never)
      .onConflict((oc) => oc.doNothing())
      .returning(returnedColumns(table) as never)
      .execute();
    stored.push(
      ...(table === 'logs'
        ? insertedLogs(slice, inserted as unknown as LogUid[])
        : (inserted as unknown as SessionSource[])),
    );
  }
  await touchSessions(tx, { projectId, table, receivedMs, sessions }, stored);
  return { stored: stored.length, duplicates: rows.length - stored.length };
}

/** What the session summaries need of each inserted row; for log records, which were inserted (see insertedLogs). */
function returnedColumns(table: TelemetryTable): string[] {
  if (table === 'logs') return ['record_uid'];
  const columns = ['session_id', 'app_id', 'time_ms'];
  return table === 'replay_chunks' ? [...columns, 'end_ms'] : columns;
}

type LogUid = { record_uid: string | null };

/**
 * The log rows of `slice` that the INSERT stored, whole, so that their error count is taken from their severity and
 * attributes (see isErrorLog) without sending every record's attributes back. Only `log.record.uid` can make a record a
 * duplicate, so a record without one was stored; of the others, those whose uid came back, each uid once (a uid twice in
 * one statement is stored once).
 */
function insertedLogs(slice: StoredRow[], returned: LogUid[]): StoredRow[] {
  const uids = new Set(returned.map((r) => r.record_uid));
  return slice.filter(
    (row) => row.record_uid === null || row.record_uid === undefined || uids.delete(row.record_uid as string),
  );
}

/** The fact columns' ON CONFLICT values, PostgreSQL's JSON functions for the pages, as Kysely update values. */
const FACTS_UPDATE = Object.fromEntries(
  Object.entries(sessionFactsUpdate('postgres')).map(([column, value]) => [column, sql.raw(value)]),
);

async function touchSessions(tx: Transaction<Database>, write: Omit<TelemetryWrite, 'rows'>, stored: SessionSource[]) {
  const { table, projectId, receivedMs } = write;
  const counter = SESSION_COUNTER[table];
  const facts = factsBySession(write.sessions);
  for (const d of sessionDeltas(table, stored)) {
    const sessionFacts = facts.get(d.sessionId);
    await tx
      .insertInto('sessions')
      .values(sessionRow(table, projectId, receivedMs, d, sessionFacts))
      .onConflict((oc) =>
        oc.columns(['project_id', 'session_id']).doUpdateSet({
          [counter]: sql`sessions.${sql.ref(counter)} + excluded.${sql.ref(counter)}`,
          error_count: sql`sessions.error_count + excluded.error_count`,
          first_ms: sql`least(sessions.first_ms, excluded.first_ms)`,
          last_ms: sql`greatest(sessions.last_ms, excluded.last_ms)`,
          duration_ms: sql`greatest(sessions.last_ms, excluded.last_ms) - least(sessions.first_ms, excluded.first_ms)`,
          last_received_ms: sql`excluded.last_received_ms`,
          ...(sessionFacts && FACTS_UPDATE),
        }),
      )
      .execute();
  }
}
