/**
 * Table of migration 0031-summaries (a type, not an interface: the Database interface extends it). One row per trace,
 * kept by both writers in the transaction that stores the trace's spans and log records (traces/summary-write.ts), so
 * the trace search walks an index of traces instead of grouping spans.
 */
export type TraceTables = {
  trace_summaries: {
    project_id: string;
    /** db/trace-key.ts; the key leads the primary key as it leads the spans' trace index. */
    trace_key: number;
    trace_id: string;
    /** Earliest span's time_ms; null while only log records of the trace were received. */
    start_ms: number | null;
    /** Earliest span start and latest span end, decimal nanoseconds as the spans keep them. */
    start_ns: string | null;
    end_ns: string | null;
    /** end_ns − start_ns, a 64-bit integer. */
    duration_ns: number | null;
    span_count: number;
    /** Spans with status ERROR or an exception event, and exception log records of the trace. */
    error_count: number;
    /** Highest span status code. */
    status_code: number | null;
    /** Smallest session id of its spans. */
    session_id: string | null;
    /** The root span (traces/summary.ts, `betterRoot`): ranked by parentless first, then time_ms, then span id. */
    root_span_id: string | null;
    root_name: string | null;
    root_service: string | null;
    /** The root's attributes, JSON text: what its label is made of. */
    root_attributes: string | null;
    /** 0 when the root names no parent, 1 when it does: the rank's first part. */
    root_has_parent: number | null;
    root_ms: number | null;
    /** JSON arrays of distinct values in the order first seen, bounded (traces/summary.ts, SUMMARY_LIMITS). */
    services: string;
    names: string;
    app_ids: string;
    /** Latest receipt of a span or log record of the trace: retention deletes the row with the last of them. */
    last_received_ms: number;
  };
};
