import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { traceKey } from '../db/trace-key';
import type { Row } from '../records/json';
import type { KeysetSort, Position } from '../shared/keyset';
import { traceLabel } from './label';
import type { TracesQuery } from './schemas';
import { DURATION_NS, errorCount, EXCEPTION_LOG, serviceOf, sortValue, START_MS, traceConditions } from './search-sql';

/** Every read of traces: the search over span groups, the page's roots and services, one trace's spans. */

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

/** The spans a search reads: the project's, in the window. */
function spansIn(db: Db, w: Window) {
  let q = db.selectFrom('spans as s').where('s.project_id', '=', w.projectId);
  if (w.from !== undefined) q = q.where('s.time_ms', '>=', w.from);
  if (w.to !== undefined) q = q.where('s.time_ms', '<', w.to);
  return q;
}

/** `limit + 1` traces in the search's order, after its cursor: each trace's figures over its spans in the window. */
export async function searchTraces(db: Db, dialect: DialectName, p: TraceSearch) {
  let q = spansIn(db, p)
    .select([
      's.trace_id',
      START_MS.as('start_ms'),
      DURATION_NS.as('duration_ns'),
      sql<number>`count(*)`.as('span_count'),
      errorCount(p.projectId).as('error_count'),
      sql<string | null>`min(s.session_id)`.as('session_id'),
      // Exact as text: the drivers read a 64-bit integer into a double.
      sql<string>`cast(${sortValue(p.sort, p.projectId)} as text)`.as('sort_value'),
    ])
    .groupBy(['s.trace_key', 's.trace_id']);
  if (p.trace_id !== undefined)
    q = q.where('s.trace_key', '=', traceKey(p.trace_id)).where('s.trace_id', '=', p.trace_id);
  if (p.session_id !== undefined) {
    // Whole traces, not just the session's spans: the traces one of whose spans is the session's (its index finds them).
    const ofSession = db
      .selectFrom('spans')
      .select(['trace_key', 'trace_id'])
      .where('project_id', '=', p.projectId)
      .where('session_id', '=', p.session_id)
      .$asTuple('trace_key', 'trace_id');
    q = q.where(({ eb, refTuple }) => eb(refTuple('s.trace_key', 's.trace_id'), 'in', ofSession));
  }
  const having = traceConditions(dialect, p);
  if (having.length > 0) q = q.having(({ and }) => and(having));
  return q
    .orderBy(sortValue(p.sort, p.projectId), p.order)
    .orderBy('s.trace_id', p.order)
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
    .where('attributes', 'like', EXCEPTION_LOG)
    .executeTakeFirstOrThrow();
  return Number(n);
}

export interface TraceRef {
  trace_id: string;
}

/** Root span and services of the page's traces, read by their trace index in the same window as the search. */
export async function rootsAndServices(db: Db, dialect: DialectName, w: Window, traces: readonly TraceRef[]) {
  const ids = traces.map((t) => t.trace_id);
  if (ids.length === 0)
    return {
      roots: new Map<string, { name: string; label: string; service: string | null; span_id: string }>(),
      names: new Map<string, string[]>(),
    };
  const service = serviceOf(dialect);
  const ofPage = spansIn(db, w)
    .where('s.trace_key', 'in', [...new Set(ids.map(traceKey))])
    .where('s.trace_id', 'in', ids);
  // The root: the earliest span whose parent is not stored (none given, or never received), else the earliest.
  const orphan = sql<SqlBool>`s.parent_span_id is null or not exists (select 1 from spans p where p.trace_key = s.trace_key and p.span_id = s.parent_span_id and p.trace_id = s.trace_id and p.project_id = s.project_id)`;
  const ranked = ofPage.select([
    's.trace_id',
    's.span_id',
    's.name',
    's.attributes',
    service.as('service'),
    sql<number>`row_number() over (partition by s.trace_id order by case when ${orphan} then 0 else 1 end, s.time_ms, s.id)`.as(
      'rank',
    ),
  ]);
  const [rootRows, serviceRows] = await Promise.all([
    db.selectFrom(ranked.as('r')).selectAll('r').where('r.rank', '=', 1).execute(),
    ofPage
      .select(['s.trace_id', service.as('service')])
      .distinct()
      .execute(),
  ]);
  const roots = new Map(
    rootRows.map((r) => [
      r.trace_id,
      { name: r.name, label: traceLabel(r.name, JSON.parse(r.attributes)), service: r.service, span_id: r.span_id },
    ]),
  );
  const names = new Map<string, string[]>();
  for (const r of serviceRows) {
    if (r.service === null) continue;
    names.set(r.trace_id, [...(names.get(r.trace_id) ?? []), r.service]);
  }
  for (const list of names.values()) list.sort();
  return { roots, names };
}
