/** Records as the svc query API returns them (docs/query-api.md); only the fields the package reads are typed. */

export interface SessionRecord {
  session_id: string;
  first_seen: string;
  last_seen: string;
  errors: number;
  env: string | null;
  test: { run_id: string; test_id: string; retry: number; title: string | null; file: string | null } | null;
  [field: string]: unknown;
}

/** `GET /control-plane/sessions/{id}`: a session with its replays, in the order they started. */
export interface SessionDetail extends SessionRecord {
  replays: { replay_id: string; start_time: string }[];
}

export interface LogRecord {
  id: number;
  session_id: string | null;
  time: string;
  severity_number: number | null;
  severity_text: string | null;
  body: unknown;
  attributes: Record<string, unknown>;
  [field: string]: unknown;
}

export interface SpanRecord {
  id: number;
  session_id: string | null;
  trace_id: string;
  span_id: string;
  name: string;
  time: string;
  duration_ms: number;
  attributes: Record<string, unknown>;
  [field: string]: unknown;
}

export interface MetricPointRecord {
  id: number;
  session_id: string | null;
  name: string;
  time: string;
  value: number | null;
  attributes: Record<string, unknown>;
  [field: string]: unknown;
}

/** One frame of `GET /control-plane/logs/{id}/frames`: where the browser ran, and the original place when a map matched. */
export interface FrameRecord {
  function: string | null;
  url: string | null;
  line: number | null;
  column: number | null;
  in_app: boolean;
  original: { file: string; line: number; column: number | null; function: string | null } | null;
}

/** OpenTelemetry severity ERROR (17) and above, the server's own threshold for errors. */
export const ERROR_SEVERITY = 17;

/** The Web Vitals metric names the SDK records (src/signals/vitals.ts). */
export const VITAL_METRICS = new Set([
  'web_vital_lcp_ms',
  'web_vital_inp_ms',
  'web_vital_cls',
  'web_vital_fcp_ms',
  'web_vital_ttfb_ms',
]);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** An error log: severity ERROR or above, or one that carries `exception.type`. */
export const isError = (log: LogRecord): boolean =>
  (log.severity_number ?? 0) >= ERROR_SEVERITY || text(log.attributes['exception.type']) !== undefined;

/** `TypeError: x is undefined` from the exception attributes, else the body as text. */
export function errorMessage(log: LogRecord): string {
  const type = text(log.attributes['exception.type']);
  const message =
    text(log.attributes['exception.message']) ?? (typeof log.body === 'string' ? log.body : JSON.stringify(log.body));
  return type && !message.startsWith(type) ? `${type}: ${message}` : message;
}
