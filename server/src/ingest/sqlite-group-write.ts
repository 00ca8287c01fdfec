import type SQLite from 'better-sqlite3';
import type { TelemetryTable } from '../db/schema';
import type { Outcome } from './group-commit';
import {
  factsBySession,
  pagesWithinCap,
  SESSION_COUNTER,
  sessionDeltas,
  sessionFactsUpdate,
  sessionPages,
  sessionRow,
  type PagesKept,
} from './sessions';
import { SUMMARY_COLUMNS, SUMMARY_KEY, SUMMARY_TABLE, summaryDeltas, summaryUpdate } from '../traces/summary';
import type { StoredRow, StoreResult, TelemetryWrite } from './writer';

/**
 * A retried span (same project, trace and span id), log record (same project and `log.record.uid`), metric point
 * (same project and `svc.point.uid`) or replay chunk (same project, session, replay and seq) is ignored and reported as
 * a duplicate.
 */
const ON_CONFLICT: Partial<Record<TelemetryTable, string>> = {
  spans: 'on conflict do nothing',
  logs: 'on conflict do nothing',
  metric_points: 'on conflict do nothing',
  replay_chunks: 'on conflict (project_id, session_id, replay_id, seq) do nothing',
};

/** The fact columns' ON CONFLICT values, SQLite's JSON functions for the pages. */
const FACTS_UPDATE = sessionFactsUpdate('sqlite');

/** Every column of a sessions row, in the order the upsert names them. */
const SESSION_COLUMNS = [
  'project_id',
  'session_id',
  'app_id',
  'first_ms',
  'last_ms',
  'duration_ms',
  'span_count',
  'log_count',
  'metric_count',
  'replay_chunk_count',
  'recipe_count',
  'error_count',
  'last_received_ms',
  ...Object.keys(FACTS_UPDATE),
];

/** The bound on each session's stored paths (pagesWithinCap), counted in the write's transaction. */
function pagesKept(statement: (text: string) => SQLite.Statement, projectId: string): PagesKept {
  return (sessionId, paths) => {
    const key = { project_id: projectId, session_id: sessionId };
    const { n } = statement(
      'select count(*) as n from session_pages where project_id = @project_id and session_id = @session_id',
    ).get(key) as { n: number };
    const has = statement(
      'select 1 from session_pages where project_id = @project_id and path = @path and session_id = @session_id',
    );
    return pagesWithinCap(paths, n, (path) => has.get({ ...key, path }) !== undefined);
  };
}

/**
 * Writes a group of requests in one SQLite transaction, synchronously, on the connection given: the heart of both the
 * in-thread writer and the writer thread. Rows go through cached single-row prepared statements rather than a
 * 2,000-parameter INSERT compiled and prepared for every request.
 *
 * Each write runs in its own savepoint inside the group's transaction, so a write that fails (a constraint, a
 * trigger) is rolled back alone and only its request gets the error. If the transaction itself fails (COMMIT, I/O, a
 * rollback of the whole transaction), the function throws and none of the group is stored.
 */
export function sqliteGroupWrite(sqlite: SQLite.Database): (group: TelemetryWrite[]) => Outcome<StoreResult>[] {
  const statements = new Map<string, SQLite.Statement>();
  const statement = (text: string) => {
    let s = statements.get(text);
    if (!s) statements.set(text, (s = sqlite.prepare(text)));
    return s;
  };

  const insert = (table: TelemetryTable, row: StoredRow): boolean => {
    // Column names come from the normalizers' row objects, never from the payload.
    const columns = Object.keys(row);
    const text = `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')}) ${ON_CONFLICT[table] ?? ''}`;
    return statement(text).run(Object.values(row).map((v: unknown) => v ?? null)).changes > 0;
  };

  const touchSessions = ({ projectId, table, receivedMs, sessions }: TelemetryWrite, stored: StoredRow[]) => {
    const counter = SESSION_COUNTER[table];
    const facts = factsBySession(sessions);
    const columns = SESSION_COLUMNS.map((column) => `@${column}`).join(', ');
    // Facts only ride along when the batch has some: the common statement stays as small as before.
    const factsUpdate =
      facts.size > 0
        ? Object.entries(FACTS_UPDATE)
            .map(([column, value]) => `, ${column} = ${value}`)
            .join('')
        : '';
    const upsert = statement(
      `insert into sessions (${SESSION_COLUMNS.join(', ')}) values (${columns})
       on conflict (project_id, session_id) do update set
         ${counter} = sessions.${counter} + excluded.${counter},
         error_count = sessions.error_count + excluded.error_count,
         first_ms = min(sessions.first_ms, excluded.first_ms),
         last_ms = max(sessions.last_ms, excluded.last_ms),
         duration_ms = max(sessions.last_ms, excluded.last_ms) - min(sessions.first_ms, excluded.first_ms),
         last_received_ms = excluded.last_received_ms${factsUpdate}`,
    );
    const deltas = sessionDeltas(table, stored);
    for (const d of deltas) upsert.run(sessionRow(table, projectId, receivedMs, d, facts.get(d.sessionId)));
    for (const page of sessionPages(projectId, receivedMs, deltas, facts, pagesKept(statement, projectId))) {
      statement(`insert into page_paths (project_id, path) values (@project_id, @path) on conflict do nothing`).run({
        project_id: page.project_id,
        path: page.path,
      });
      statement(
        `insert into session_pages (project_id, path, session_id, received_ms)
         values (@project_id, @path, @session_id, @received_ms)
         on conflict (project_id, path, session_id) do update set received_ms = excluded.received_ms`,
      ).run(page);
    }
  };

  const summaryUpsert = `insert into ${SUMMARY_TABLE} (${SUMMARY_COLUMNS.join(', ')})
    values (${SUMMARY_COLUMNS.map((column) => `@${column}`).join(', ')})
    on conflict (${SUMMARY_KEY.join(', ')}) do update set
    ${Object.entries(summaryUpdate('sqlite'))
      .map(([column, value]) => `${column} = ${value}`)
      .join(',\n')}`;
  const touchTraces = ({ projectId, table }: TelemetryWrite, stored: StoredRow[]) => {
    for (const row of summaryDeltas(table, projectId, stored)) statement(summaryUpsert).run(row);
  };

  // Nested in the group's transaction, better-sqlite3 runs this in a savepoint.
  const writeOne = sqlite.transaction((write: TelemetryWrite): StoreResult => {
    const stored = write.rows.filter((row) => insert(write.table, row));
    touchTraces(write, stored);
    touchSessions(write, stored);
    return { stored: stored.length, duplicates: write.rows.length - stored.length };
  });

  const writeGroup = sqlite.transaction((group: TelemetryWrite[]): Outcome<StoreResult>[] =>
    group.map((write) => {
      try {
        return { ok: true, result: writeOne(write) };
      } catch (error) {
        // Some errors end the whole transaction, not just the savepoint: then nothing in the group can commit.
        if (!sqlite.inTransaction) throw error;
        return { ok: false, error };
      }
    }),
  );
  // BEGIN IMMEDIATE: the write lock is taken before any write, so a busy database fails the whole group at its start
  // (and is waited for: the writer thread's busy_timeout, the main thread's timers) rather than one write in it.
  return (group) => writeGroup.immediate(group);
}
