import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import type { TimeWindow } from '../breadcrumbs';

/** OTLP SpanKind CLIENT: what the SDK's fetch and XHR spans are. */
const CLIENT_SPAN = 3;

/** The stretch of one session a breadcrumb source reads, and how many rows of each table at most. */
export interface SessionWindow {
  projectId: string;
  sessionId: string;
  window: TimeWindow;
  max: number;
}

/** The session's `max` newest logs in the window (console output, other logs, errors), newest first. */
export function windowLogs(db: Kysely<Database>, q: SessionWindow) {
  return db
    .selectFrom('logs')
    .select(['time_ms', 'severity_number', 'body', 'attributes'])
    .where('project_id', '=', q.projectId)
    .where('session_id', '=', q.sessionId)
    .where('time_ms', '>=', q.window.fromMs)
    .where('time_ms', '<=', q.window.toMs)
    .orderBy('time_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(q.max)
    .execute();
}

/** The session's `max` newest client spans in the window (the SDK's fetch and XHR requests), newest first. */
export function windowClientSpans(db: Kysely<Database>, q: SessionWindow) {
  return db
    .selectFrom('spans')
    .select(['time_ms', 'duration_ms', 'trace_id', 'status_message', 'attributes'])
    .where('project_id', '=', q.projectId)
    .where('session_id', '=', q.sessionId)
    .where('time_ms', '>=', q.window.fromMs)
    .where('time_ms', '<=', q.window.toMs)
    .where('kind', '=', CLIENT_SPAN)
    .orderBy('time_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(q.max)
    .execute();
}

export type WindowLogRow = Awaited<ReturnType<typeof windowLogs>>[number];
export type WindowSpanRow = Awaited<ReturnType<typeof windowClientSpans>>[number];
