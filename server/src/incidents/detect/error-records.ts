import { nanosToMillis } from '../../json/read';
import { parseDebugIds } from '../../sourcemaps/debug-ids';
import type { RawError } from './fingerprint';

/** Log records at or above this OTLP severity number (ERROR 17–20, FATAL 21–24) are errors. */
export const ERROR_SEVERITY = 17;

/** Environment of telemetry whose resource names none. */
export const DEFAULT_ENV = 'production';

/** One error, from an error log record or a span's `exception` event. */
export interface ErrorOccurrence {
  projectId: string;
  appId: string;
  env: string;
  release: string | null;
  sessionId: string | null;
  /** When it happened (the reporter's clock). */
  timeMs: number;
  /** When the server stored it: detection windows use the server's clock. */
  receivedMs: number;
  raw: RawError;
  /** Script URL → debug ID, from `svc.exception.debug_ids`: which maps symbolicate the stack. */
  debugIds: ReadonlyMap<string, string>;
}

export interface ErrorLogRow {
  project_id: string;
  app_id: string;
  time_ms: number;
  received_ms: number;
  session_id: string | null;
  body: string;
  attributes: string;
  resource: string;
}

export interface ExceptionSpanRow {
  project_id: string;
  app_id: string;
  time_ms: number;
  received_ms: number;
  session_id: string | null;
  events: string;
  resource: string;
}

type Json = Record<string, unknown>;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Environment and release of a stored resource (`{"attributes": {...}}`). */
export function resourceFacts(resourceJson: string): { env: string; release: string | null } {
  const attrs = ((JSON.parse(resourceJson) as { attributes?: Json }).attributes ?? {}) as Json;
  return {
    env: text(attrs['deployment.environment.name']) ?? text(attrs['deployment.environment']) ?? DEFAULT_ENV,
    release: text(attrs['service.version']) ?? null,
  };
}

function rawError(attributes: Json, fallbackMessage: string): RawError {
  return {
    type: text(attributes['exception.type']),
    message: text(attributes['exception.message']) ?? fallbackMessage,
    stacktrace: text(attributes['exception.stacktrace']),
  };
}

/** A stored log body (AnyValue as plain JSON) as text: strings as they are, anything else (maps, arrays) as JSON. */
export function bodyText(bodyJson: string): string {
  const body = JSON.parse(bodyJson) as unknown;
  if (body === null) return '';
  return typeof body === 'string' ? body : JSON.stringify(body);
}

const DEBUG_IDS = 'svc.exception.debug_ids';

/** The error of an error log record (the caller selects records at {@link ERROR_SEVERITY} or above). */
export function errorOfLog(row: ErrorLogRow): ErrorOccurrence {
  const attributes = JSON.parse(row.attributes) as Json;
  return {
    projectId: row.project_id,
    appId: row.app_id,
    ...resourceFacts(row.resource),
    sessionId: row.session_id,
    timeMs: row.time_ms,
    receivedMs: row.received_ms,
    raw: rawError(attributes, bodyText(row.body)),
    debugIds: parseDebugIds(attributes[DEBUG_IDS]),
  };
}

/** The errors of a span: one per `exception` event (OpenTelemetry's `recordException`). */
export function errorsOfSpan(row: ExceptionSpanRow): ErrorOccurrence[] {
  const events = JSON.parse(row.events) as Array<{ name: string; timeUnixNano: string; attributes: Json }>;
  const facts = resourceFacts(row.resource);
  return events
    .filter((e) => e.name === 'exception')
    .map((e) => ({
      projectId: row.project_id,
      appId: row.app_id,
      ...facts,
      sessionId: row.session_id,
      timeMs: e.timeUnixNano === '0' ? row.time_ms : nanosToMillis(e.timeUnixNano),
      receivedMs: row.received_ms,
      raw: rawError(e.attributes, ''),
      debugIds: parseDebugIds(e.attributes[DEBUG_IDS]),
    }));
}
