import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import { afterPosition } from '../shared/keyset';
import { likeContains } from '../shared/like';
import type { TraceSearch } from './store';
import type { TraceSort } from './schemas';
import { STATUS_ERROR } from './summary';

/**
 * The trace search's SQL over the trace summaries (`t`, traces/tables.ts): each sort is a column with its own index by
 * project, so a page is an index walk in the sort's order, and the filters are conditions on the row it reads.
 */

/** Some value of the summary's JSON array `column` satisfies `condition` (on `v`). */
function anyOf(dialect: DialectName, column: string, condition: RawBuilder<unknown>): RawBuilder<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`exists (select 1 from jsonb_array_elements_text(${sql.ref(column)}::jsonb) as e(v) where ${condition})`
    : sql<SqlBool>`exists (select 1 from (select value as v from json_each(${sql.ref(column)})) where ${condition})`;
}

/** The summary column each order sorts a trace by; all are integers (a duration in nanoseconds may pass 2^53). */
/** The summary column each order sorts by. */
const SORT_COLUMNS = {
  start: 'start_ms',
  duration: 'duration_ns',
  spans: 'span_count',
  errors: 'error_count',
} as const satisfies Record<TraceSort, string>;
export const sortName = (sort: TraceSort) => SORT_COLUMNS[sort];
export const sortColumn = (sort: TraceSort) => sql.ref(`t.${SORT_COLUMNS[sort]}`);

/** The search's conditions on a trace's summary: the filters, then the position after the cursor. */
export function traceConditions(dialect: DialectName, p: TraceSearch): Array<Expression<SqlBool>> {
  const where: Array<Expression<SqlBool>> = [];
  const { appId, after } = p;
  if (appId !== undefined) where.push(anyOf(dialect, 't.app_ids', sql`v = ${appId}`));
  if (p.service !== undefined) where.push(anyOf(dialect, 't.services', sql`v = ${p.service}`));
  if (p.name !== undefined) {
    const like = sql.raw(dialect === 'postgres' ? 'ilike' : 'like');
    where.push(anyOf(dialect, 't.names', sql`v ${like} ${likeContains(p.name)} escape '\\'`));
  }
  if (p.status !== undefined)
    where.push(sql<SqlBool>`t.status_code = ${{ error: STATUS_ERROR, ok: 1, unset: 0 }[p.status]}`);
  if (p.min_duration_ms !== undefined) where.push(sql<SqlBool>`t.duration_ns >= ${Math.ceil(p.min_duration_ms * 1e6)}`);
  if (p.max_duration_ms !== undefined)
    where.push(sql<SqlBool>`t.duration_ns <= ${Math.floor(p.max_duration_ms * 1e6)}`);
  if (after) where.push(afterPosition(p, sortColumn(p.sort), sql.ref('t.trace_id'), after));
  return where;
}
