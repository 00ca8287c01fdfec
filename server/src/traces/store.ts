import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { unindexed } from '../db/unindexed';
import { traceKey } from '../db/trace-key';
import type { Row } from '../records/json';
import type { KeysetSort, Position } from '../shared/keyset';
import type { TracesQuery } from './schemas';
import { sortColumn, sortName, traceConditions } from './search-sql';
import { EXCEPTION_LOG } from './summary';

/** Every read of traces: the search over the trace summaries, one trace's spans. */

type Db = Kysely<Database>;

/** Most spans the trace detail returns. */
export const MAX_TRACE_SPANS = 2000;

/** One search: the query's filters, resolved (app id, window) and positioned (after the cursor, in its sort). */
export type TraceSearch = Omit<TracesQuery, 'app' | 'from' | 'to' | 'cursor'> &
  Window &
  Pick<KeysetSort, 'order'> & { value: 'integer'; appId?: string; after?: Position };

export interface Window {
  projectId: string;
  from: number | undefined;
  to: number | undefined;
}

/**
 * `limit + 1` trace summaries in the search's order, after its cursor: a walk of the sort's index by project. A trace is
 * in the window when its first span is; its figures are the whole trace's.
 */
export async function searchTraces(db: Db, dialect: DialectName, p: TraceSearch) {
  const sort = sortColumn(p.sort);
  let q = db
    .selectFrom('trace_summaries as t')
    .select([
      't.trace_id',
      't.start_ms',
      't.duration_ns',
      't.span_count',
      't.error_count',
      't.session_id',
      't.root_span_id',
      't.root_name',
      't.root_service',
      't.root_attributes',
      't.services',
      // Exact as text: the drivers read a 64-bit integer into a double.
      sql<string>`cast(${sort} as text)`.as('sort_value'),
    ])
    .where('t.project_id', '=', p.projectId)
    // Exception log records of a trace none of whose spans came yet make a row that is not a trace to show.
    .where(unindexed(dialect, 't.span_count'), '>', 0);
  // The window is a range of the start order's index; under another order, a condition on the rows its index walks.
  const start = p.sort === 'start' ? sql.ref('t.start_ms') : unindexed(dialect, 't.start_ms');
  if (p.from !== undefined) q = q.where(start, '>=', p.from);
  if (p.to !== undefined) q = q.where(start, '<', p.to);
  if (p.trace_id !== undefined)
    q = q.where('t.trace_key', '=', traceKey(p.trace_id)).where('t.trace_id', '=', p.trace_id);
  if (p.session_id !== undefined) {
    // Any trace one of whose spans is the session's, not only those it is the smallest session of (the spans' index).
    const ofSession = db
      .selectFrom('spans')
      .select(['trace_key', 'trace_id'])
      .where('project_id', '=', p.projectId)
      .where('session_id', '=', p.session_id)
      .$asTuple('trace_key', 'trace_id');
    q = q.where(({ eb, refTuple }) => eb(refTuple('t.trace_key', 't.trace_id'), 'in', ofSession));
  }
  const where = traceConditions(dialect, p);
  if (where.length > 0) q = q.where(({ and }) => and(where));
  // A session's few traces are found by key and sorted; walking the sort's index would read every trace of the project
  // to find them (SQLite's choice, without statistics: 0.9 s at 100,000 sessions, bench:scale).
  const order = p.session_id === undefined ? sort : unindexed(dialect, `t.${sortName(p.sort)}`);
  return q
    .orderBy(order, p.order)
    .orderBy('t.trace_id', p.order)
    .limit(p.limit + 1)
    .execute();
}

/** The trace's spans (at most {@link MAX_TRACE_SPANS} + 1, by time of receipt), each with its app's name. */
export async function traceSpans(db: Db, projectId: string, traceId: string): Promise<Array<Row<'spans'>>> {
  return db
    .selectFrom('spans as s')
    .innerJoin('apps', 'apps.id', 's.app_id')
    .selectAll('s')
    .select('apps.name as app')
    .where('s.project_id', '=', projectId)
    .where('s.trace_key', '=', traceKey(traceId))
    .where('s.trace_id', '=', traceId)
    .orderBy('s.time_ms')
    .orderBy('s.id')
    .limit(MAX_TRACE_SPANS + 1)
    .execute();
}

/** The exception log records written in the trace. */
export async function exceptionLogCount(db: Db, projectId: string, traceId: string): Promise<number> {
  const { n } = await db
    .selectFrom('logs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('project_id', '=', projectId)
    .where('trace_key', '=', traceKey(traceId))
    .where('trace_id', '=', traceId)
    .where('attributes', 'like', `%${EXCEPTION_LOG}%`)
    .executeTakeFirstOrThrow();
  return Number(n);
}
