import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { bodyText, ERROR_SEVERITY } from '../incidents/detect/error-records';
import { truncate } from '../shared/truncate';
import { originOf, relativeUrl } from '../replay/export/recorded-url';
import type { TimedBreadcrumb } from './breadcrumbs';
import { windowClientSpans, windowLogs, type SessionWindow, type WindowLogRow, type WindowSpanRow } from './store';

type Db = Kysely<Database>;
type Json = Record<string, unknown>;

interface Source extends SessionWindow {
  /** The page the session showed: requests to its origin are shown by path. */
  pageUrl: string | undefined;
}

/** Longest message text taken from a log: a breadcrumb is a line to glance at, the log itself holds the rest. */
const MAX_TEXT_CHARS = 200;
/** Lowest OTLP severity number of each level name (the SDK sends 5, 9, 13, 17 and 21). */
const LEVELS: ReadonlyArray<readonly [number, string]> = [
  [21, 'fatal'],
  [17, 'error'],
  [13, 'warn'],
  [9, 'info'],
  [5, 'debug'],
];

/**
 * The session's console output, other logs, errors and fetch/XHR requests in the window, the `max` newest of each
 * table. The log the SDK writes beside each fetch span (`GET /x → 200 (5 ms)`, with `http.*` attributes) is left out:
 * the span is that request's breadcrumb.
 */
export async function telemetryBreadcrumbs(db: Db, q: Source): Promise<TimedBreadcrumb[]> {
  const [logs, spans] = await Promise.all([windowLogs(db, q), windowClientSpans(db, q)]);
  const pageOrigin = q.pageUrl === undefined ? undefined : originOf(q.pageUrl);
  // Rows come newest first: reversed, rows of the same millisecond stay in the order they were stored.
  return [...logs.reverse().flatMap(logCrumb), ...spans.reverse().flatMap((span) => requestCrumb(span, pageOrigin))];
}

/** `console.warn: …` for console output, `TypeError: …` for an error, `info: …` for any other log. */
function logCrumb(row: WindowLogRow): TimedBreadcrumb[] {
  const attributes = JSON.parse(row.attributes) as Json;
  if (attributes['http.method'] !== undefined) return [];
  const level = levelName(row.severity_number);
  const body = oneLine(bodyText(row.body));
  const atMs = row.time_ms;
  if (attributes['log.source'] === 'console')
    return [{ atMs, kind: 'console', message: `console.${level}: ${body}`, data: { level } }];
  if (row.severity_number < ERROR_SEVERITY)
    return [{ atMs, kind: 'log', message: `${level}: ${body}`, data: { level } }];
  const type = text(attributes['exception.type']);
  const message = text(attributes['exception.message']) ?? body;
  return [
    {
      atMs,
      kind: 'error',
      message: oneLine(type ? `${type}: ${message}` : message),
      data: { level, ...(type && { type }) },
    },
  ];
}

/** `POST /api/cart → 500 (120 ms)`, or `GET https://cdn.example/x.js failed: TypeError: Failed to fetch (3 ms)`. */
function requestCrumb(row: WindowSpanRow, pageOrigin: string | undefined): TimedBreadcrumb[] {
  const attributes = JSON.parse(row.attributes) as Json;
  const method = text(attributes['http.method']) ?? text(attributes['http.request.method']);
  const url = text(attributes['http.url']) ?? text(attributes['url.full']);
  if (method === undefined || url === undefined) return [];
  const status = Number(attributes['http.status_code'] ?? attributes['http.response.status_code'] ?? 0);
  const durationMs = Number(attributes['http.duration_ms'] ?? row.duration_ms);
  const shown = pageOrigin === undefined ? url : relativeUrl(url, pageOrigin);
  const outcome = status > 0 ? `→ ${status}` : `failed: ${row.status_message ?? 'no response'}`;
  return [
    {
      atMs: row.time_ms,
      kind: 'request',
      message: `${method} ${shown} ${outcome} (${Math.round(durationMs)} ms)`,
      data: { method, url, status, duration_ms: durationMs, trace_id: row.trace_id },
    },
  ];
}

function levelName(severity: number): string {
  return LEVELS.find(([lowest]) => severity >= lowest)?.[1] ?? 'trace';
}

/** The first line, cut to {@link MAX_TEXT_CHARS}: a console error's stack stays in the log. */
const oneLine = (s: string): string => truncate(s.split('\n', 1)[0]!.trim(), MAX_TEXT_CHARS);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
