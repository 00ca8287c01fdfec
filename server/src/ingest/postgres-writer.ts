import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, TelemetryTable } from '../db/schema';
import { retryOnConflict } from '../db/transient';
import type { SessionFacts } from '../otlp/session-facts';
import {
  batchPaths,
  factsBySession,
  pagesWithinCap,
  SESSION_COUNTER,
  SESSION_PAGES_MAX,
  sessionDeltas,
  sessionFactsUpdate,
  sessionPages,
  sessionRow,
  type PagesKept,
  type SessionDelta,
  type SessionPage,
  type SessionSource,
} from './sessions';
import { SUMMARY_KEY, SUMMARY_TABLE, summaryDeltas, summaryUpdate } from '../traces/summary';
import { withoutStoredUntimedLogs } from './untimed-logs';
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
  const fresh = table === 'logs' ? await withoutStoredUntimedLogs(tx, projectId, rows) : rows;
  for (let i = 0; i < fresh.length; i += INSERT_BATCH) {
    const slice = fresh.slice(i, i + INSERT_BATCH);
    const inserted = await tx
      .insertInto(table)
      .values(slice as never)
      .onConflict((oc) => oc.doNothing())
      .returning(returnedColumns(table) as never)
      .execute();
    stored.push(...storedOf(table, slice, inserted as unknown as Returned[]));
  }
  await touchTraces(tx, table, projectId, stored as StoredRow[]);
  await touchSessions(tx, { projectId, table, receivedMs, sessions }, stored);
  return { stored: stored.length, duplicates: rows.length - stored.length };
}

/**
 * What the summaries need back of each inserted row: for spans and log records, which were inserted (see storedOf);
 * for the other tables, the session summary's columns.
 */
function returnedColumns(table: TelemetryTable): string[] {
  if (table === 'logs') return ['record_uid'];
  if (table === 'spans') return ['trace_id', 'span_id'];
  const columns = ['session_id', 'app_id', 'time_ms'];
  return table === 'replay_chunks' ? [...columns, 'end_ms'] : columns;
}

type Returned = Record<string, string | null>;

/**
 * The rows of `slice` that the INSERT stored. Spans and log records whole, so that their trace and session summaries
 * are taken from all their columns without sending them back: a span is a duplicate by its trace and span id, a log
 * record only by its `log.record.uid` (a record without one was stored); of the others, those whose key came back, each
 * key once (a key twice in one statement is stored once). Other tables' returned columns are what their summary needs.
 */
function storedOf(table: TelemetryTable, slice: StoredRow[], returned: Returned[]): SessionSource[] {
  if (table !== 'logs' && table !== 'spans') return returned as unknown as SessionSource[];
  const keyOf =
    table === 'logs'
      ? (r: Record<string, unknown>) => r.record_uid as string | null | undefined
      : (r: Record<string, unknown>) => `${r.trace_id as string}/${r.span_id as string}`;
  const keys = new Set(returned.map(keyOf));
  return slice.filter((row) => {
    const key = keyOf(row);
    return key === null || key === undefined || keys.delete(key);
  });
}

/** The summary columns' ON CONFLICT values as Kysely update values. */
const SUMMARY_UPDATE = Object.fromEntries(
  Object.entries(summaryUpdate('postgres')).map(([column, value]) => [column, sql.raw(value)]),
);

/** Upserts the trace summaries of the stored rows, one multi-row statement per batch, in lock order (summaryDeltas). */
async function touchTraces(tx: Transaction<Database>, table: TelemetryTable, projectId: string, stored: StoredRow[]) {
  const deltas = summaryDeltas(table, projectId, stored);
  for (let i = 0; i < deltas.length; i += INSERT_BATCH)
    await tx
      .insertInto(SUMMARY_TABLE)
      .values(deltas.slice(i, i + INSERT_BATCH))
      .onConflict((oc) => oc.columns([...SUMMARY_KEY]).doUpdateSet(SUMMARY_UPDATE))
      .execute();
}

/** The fact columns' ON CONFLICT values, PostgreSQL's JSON functions for the pages, as Kysely update values. */
const FACTS_UPDATE = Object.fromEntries(
  Object.entries(sessionFactsUpdate('postgres')).map(([column, value]) => [column, sql.raw(value)]),
);

async function touchSessions(tx: Transaction<Database>, write: Omit<TelemetryWrite, 'rows'>, stored: SessionSource[]) {
  const { table, projectId, receivedMs } = write;
  const counter = SESSION_COUNTER[table];
  const facts = factsBySession(write.sessions);
  const deltas = sessionDeltas(table, stored);
  for (const d of deltas) {
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
  await storePages(
    tx,
    sessionPages(projectId, receivedMs, deltas, facts, await pagesKept(tx, projectId, deltas, facts)),
  );
}

/**
 * The bound on each session's stored paths (pagesWithinCap), read after the sessions' upserts, which hold their rows
 * until commit: one count for the batch's sessions with paths, and the stored ones among a batch's paths only for a
 * session whose count leaves no room for them all.
 */
async function pagesKept(
  tx: Transaction<Database>,
  projectId: string,
  deltas: readonly SessionDelta[],
  facts: ReadonlyMap<string, SessionFacts>,
): Promise<PagesKept> {
  const named = deltas.map((d) => d.sessionId).filter((id) => batchPaths(facts, id).length > 0);
  if (named.length === 0) return (_, paths) => paths;
  const counts = await tx
    .selectFrom('session_pages')
    .select(['session_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('project_id', '=', projectId)
    .where('session_id', 'in', named)
    .groupBy('session_id')
    .execute();
  const stored = new Map(counts.map((c) => [c.session_id, Number(c.n)]));
  const present = new Map<string, Set<string>>();
  for (const id of named) {
    const paths = batchPaths(facts, id);
    const n = stored.get(id) ?? 0;
    if (n + paths.length <= SESSION_PAGES_MAX) continue;
    const rows = await tx
      .selectFrom('session_pages')
      .select('path')
      .where('project_id', '=', projectId)
      .where('session_id', '=', id)
      .where('path', 'in', paths)
      .execute();
    present.set(id, new Set(rows.map((r) => r.path)));
  }
  return (id, paths) => pagesWithinCap(paths, stored.get(id) ?? 0, (path) => present.get(id)?.has(path) ?? false);
}

/** The pages the sessions showed: each path of the project once, each (path, session) once with its latest receipt. */
async function storePages(tx: Transaction<Database>, pages: SessionPage[]) {
  for (let i = 0; i < pages.length; i += INSERT_BATCH) {
    const slice = pages.slice(i, i + INSERT_BATCH);
    const paths = [...new Set(slice.map((p) => p.path))].map((path) => ({ project_id: slice[0]!.project_id, path }));
    await tx
      .insertInto('page_paths')
      .values(paths)
      .onConflict((oc) => oc.doNothing())
      .execute();
    await tx
      .insertInto('session_pages')
      .values(slice)
      .onConflict((oc) =>
        oc.columns(['project_id', 'path', 'session_id']).doUpdateSet({ received_ms: sql`excluded.received_ms` }),
      )
      .execute();
  }
}
