/**
 * The OTLP/JSON the browser SDK emits (OTLP/HTTP, JSON encoding: lowerCamelCase fields, hex ids, 64-bit integers
 * as decimal strings, enums as numbers). Only the members the SDK sets are listed; the reference server accepts the
 * full protocol. Shared by the SDK's encoder and by tests that read requests on the wire.
 */

/** An OTLP AnyValue: exactly one member is set. Non-finite doubles are spelled `"NaN"`, `"Infinity"`, `"-Infinity"`. */
export type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number | 'NaN' | 'Infinity' | '-Infinity' }
  | { arrayValue: { values: AnyValue[] } };

export interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface Resource {
  attributes: KeyValue[];
}

export interface InstrumentationScope {
  name: string;
  version?: string;
}

/** Nanoseconds since the Unix epoch as a decimal string (the value exceeds 2^53). */
export type UnixNano = string;

// Logs

export interface LogRecord {
  timeUnixNano: UnixNano;
  observedTimeUnixNano: UnixNano;
  /** SeverityNumber: DEBUG 5, INFO 9, WARN 13, ERROR 17, FATAL 21. */
  severityNumber: number;
  severityText: string;
  body: AnyValue;
  attributes: KeyValue[];
  traceId?: string;
  spanId?: string;
}

export interface ScopeLogs {
  scope: InstrumentationScope;
  logRecords: LogRecord[];
}

export interface ResourceLogs {
  resource: Resource;
  scopeLogs: ScopeLogs[];
}

export interface ExportLogsServiceRequest {
  resourceLogs: ResourceLogs[];
}

// Traces

export interface SpanEvent {
  timeUnixNano: UnixNano;
  name: string;
  attributes: KeyValue[];
}

export interface SpanStatus {
  /** 0 unset, 1 ok, 2 error. */
  code: 0 | 1 | 2;
  message?: string;
}

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: UnixNano;
  endTimeUnixNano: UnixNano;
  attributes: KeyValue[];
  events: SpanEvent[];
  status: SpanStatus;
}

export interface ScopeSpans {
  scope: InstrumentationScope;
  spans: Span[];
}

export interface ResourceSpans {
  resource: Resource;
  scopeSpans: ScopeSpans[];
}

export interface ExportTraceServiceRequest {
  resourceSpans: ResourceSpans[];
}

// Metrics

/** A number point: gauges carry `asDouble`; the SDK's own counters (sums) carry `asInt`. */
export interface NumberDataPoint {
  timeUnixNano: UnixNano;
  startTimeUnixNano?: UnixNano;
  attributes: KeyValue[];
  asDouble?: number | 'NaN' | 'Infinity' | '-Infinity';
  asInt?: string;
}

export interface Gauge {
  dataPoints: NumberDataPoint[];
}

export interface Sum {
  dataPoints: NumberDataPoint[];
  /** AggregationTemporality: 1 delta, 2 cumulative. */
  aggregationTemporality: 1 | 2;
  isMonotonic: boolean;
}

export type Metric = { name: string; unit: string } & ({ gauge: Gauge } | { sum: Sum });

export interface ScopeMetrics {
  scope: InstrumentationScope;
  metrics: Metric[];
}

export interface ResourceMetrics {
  resource: Resource;
  scopeMetrics: ScopeMetrics[];
}

export interface ExportMetricsServiceRequest {
  resourceMetrics: ResourceMetrics[];
}
