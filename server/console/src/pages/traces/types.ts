import type { SpanJson } from '../../ui/waterfall';

/** The trace search's item and the trace detail (server/src/query/traces-schemas.ts: TraceSummary, Trace). */

export interface TraceSummary {
  trace_id: string;
  root: { name: string; service: string | null; span_id: string } | null;
  start: string;
  duration_ms: number;
  span_count: number;
  error_count: number;
  services: string[];
  session_id: string | null;
}

/** A span of the detail also carries its resource (`{attributes: {...}}`), where `service.name` is. */
export type TraceSpan = SpanJson & { resource?: unknown };

export interface Trace {
  trace_id: string;
  spans: TraceSpan[];
  truncated: boolean;
}
