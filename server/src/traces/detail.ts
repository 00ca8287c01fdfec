import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { spanJson } from '../records/json';
import { notFound } from '../shared/domain-errors';
import { rootSpanOf, traceLabel } from './label';
import { EXCEPTION_EVENT, STATUS_ERROR } from './summary';
import { exceptionLogCount, MAX_TRACE_SPANS, traceSpans } from './store';

const startNs = (r: { start_ns: string }) => BigInt(r.start_ns);

/** Every span of one trace by start time, its label and error count; `not_found` when the project has none of it. */
export async function traceDetail(db: Kysely<Database>, projectId: string, traceId: string) {
  const rows = await traceSpans(db, projectId, traceId);
  if (rows.length === 0) throw notFound(`no trace "${traceId}" in this project`);
  const spans = rows.slice(0, MAX_TRACE_SPANS);
  const exceptionLogs = await exceptionLogCount(db, projectId, traceId);
  const failedSpans = rows.filter((r) => r.status_code === STATUS_ERROR || r.events.includes(EXCEPTION_EVENT)).length;
  // time_ms is whole milliseconds: the nanosecond start orders spans within one millisecond (the sort is stable).
  spans.sort((a, b) => (startNs(a) < startNs(b) ? -1 : startNs(a) > startNs(b) ? 1 : 0));
  const json = spans.map(spanJson);
  const root = rootSpanOf(json);
  return {
    trace_id: traceId,
    label: traceLabel(root.name, root.attributes),
    error_count: failedSpans + exceptionLogs,
    spans: json,
    truncated: rows.length > MAX_TRACE_SPANS,
  };
}
