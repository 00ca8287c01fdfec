import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import { afterPosition } from '../shared/keyset';
import type { TraceSearch } from './store';
import type { TraceSort } from './schemas';

/**
 * The trace search's SQL: a trace is the group of its spans (by trace key and id), so its figures are aggregates and
 * the search's filters are HAVING conditions on them.
 */

export const STATUS_ERROR = 2;

/** The resource's `service.name` of span `s`: each database reads into the JSON text its own way. */
export function serviceOf(dialect: DialectName): RawBuilder<string | null> {
  return dialect === 'postgres'
    ? sql`(s.resource::jsonb -> 'attributes' ->> 'service.name')`
    : sql`json_extract(s.resource, '$.attributes."service.name"')`;
}

/** `%`, `_` and the escape character itself match literally in a LIKE pattern after this. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Some span of the group satisfies `condition`. */
const anySpan = (condition: RawBuilder<unknown>) => sql<SqlBool>`max(case when ${condition} then 1 else 0 end) = 1`;

/** The nanosecond span of a trace; the *_ns columns hold decimal text, and both databases cast it to a 64-bit integer. */
export const DURATION_NS = sql<number>`max(cast(s.end_ns as bigint)) - min(cast(s.start_ns as bigint))`;
export const START_MS = sql<number>`min(s.time_ms)`;
/** Marks the JSON text of a span's events when one of them is an exception (OpenTelemetry's `recordException`). */
export const EXCEPTION_EVENT = '%"name":"exception"%';
/** Marks the JSON text of a log record's attributes when it records an exception. */
export const EXCEPTION_LOG = '%"exception.type"%';

/**
 * The errors of a trace: its spans that failed or recorded an exception, and the exception log records written in it
 * (a click whose handler threw: its span ends fine, the error log carries its trace). A span and a log of one failure
 * count once each.
 */
export const errorCount = (projectId: string) =>
  sql<number>`sum(case when s.status_code = ${STATUS_ERROR} or s.events like ${EXCEPTION_EVENT} then 1 else 0 end) + (select count(*) from logs l where l.trace_key = s.trace_key and l.trace_id = s.trace_id and l.project_id = ${projectId} and l.attributes like ${EXCEPTION_LOG})`;

/** The aggregate each order sorts a trace by; all are integers (a duration in nanoseconds may pass 2^53). */
export const sortValue = (sort: TraceSort, projectId: string): RawBuilder<number> =>
  ({ start: START_MS, duration: DURATION_NS, spans: sql<number>`count(*)`, errors: errorCount(projectId) })[sort];

/** The search's conditions on a trace's spans, for its HAVING clause: the filters, then the position after the cursor. */
export function traceConditions(dialect: DialectName, p: TraceSearch): Array<Expression<SqlBool>> {
  const having: Array<Expression<SqlBool>> = [];
  const { appId, after } = p;
  if (appId !== undefined) having.push(anySpan(sql`s.app_id = ${appId}`));
  if (p.service !== undefined) having.push(anySpan(sql`${serviceOf(dialect)} = ${p.service}`));
  if (p.name !== undefined)
    having.push(
      anySpan(sql`s.name ${sql.raw(dialect === 'postgres' ? 'ilike' : 'like')} ${likeContains(p.name)} escape '\\'`),
    );
  if (p.status !== undefined)
    having.push(sql<SqlBool>`max(s.status_code) = ${{ error: STATUS_ERROR, ok: 1, unset: 0 }[p.status]}`);
  if (p.min_duration_ms !== undefined)
    having.push(sql<SqlBool>`${DURATION_NS} >= ${Math.ceil(p.min_duration_ms * 1e6)}`);
  if (p.max_duration_ms !== undefined)
    having.push(sql<SqlBool>`${DURATION_NS} <= ${Math.floor(p.max_duration_ms * 1e6)}`);
  if (after) having.push(afterPosition(p, sortValue(p.sort, p.projectId), sql.ref('s.trace_id'), after));
  return having;
}
