/** The control plane's answers this page reads (server/src/query/schemas.ts, server/src/replay/routes.ts). */

export interface SessionDetail {
  session_id: string;
  app: string;
  first_seen: string;
  last_seen: string;
  duration_ms?: number;
  counts: { spans: number; logs: number; metric_points: number; replay_chunks: number; recipes: number };
  user: { id: string; email?: string; name?: string } | null;
  attributes: Record<string, unknown>;
  env?: string | null;
  release?: string | null;
  pages?: number;
  errors?: number;
  device?: { browser: string | null; browser_version: string | null; os: string | null; type: string | null };
  replays: Array<{ replay_id: string; start_time: string; end_time: string; chunk_count: number; event_count: number; first_url: string | null }>;
}

/** An rrweb event as stored; `data` is read defensively since the recording's page produced it. */
export interface ReplayEvent {
  type: number;
  timestamp: number;
  data?: unknown;
}

export interface ReplayGap {
  replay_id: string;
  missing_seq: number[];
  missing_count: number;
}

export interface ReplayPage {
  events: ReplayEvent[];
  gaps: ReplayGap[];
  next_cursor: string | null;
}

export interface LogRow {
  id: number;
  time: string;
  severity_number: number;
  severity_text: string | null;
  body: unknown;
  trace_id: string | null;
  attributes: Record<string, unknown>;
}

export interface RecipeRow {
  id: number;
  ts: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string | null;
  requestBodyTruncated?: boolean;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody?: string | null;
  responseBodyTruncated?: boolean;
  durationMs: number;
  traceparent?: string | null;
  error?: string | null;
}

export interface MetricRow {
  id: number;
  name: string;
  unit: string | null;
  time: string;
  value: number | null;
  attributes: Record<string, unknown>;
}

/** Something on the session's timeline: `at` is epoch ms. */
export interface Timed {
  at: number;
}
