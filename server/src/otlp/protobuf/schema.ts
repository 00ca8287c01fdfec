/**
 * OTLP protobuf schema used to decode OTLP/HTTP `application/x-protobuf` request bodies and to
 * encode the matching `Export*ServiceResponse` messages.
 *
 * Tracks opentelemetry-proto v1.6.0 (the stable `common`, `resource`, `trace`, `logs`, `metrics`
 * and `collector/{trace,logs,metrics}/v1` packages). Field numbers and types follow the public
 * specification; deprecated and reserved fields are left out, so a sender still using them has
 * them skipped like any other unknown field. `EntityRef` (development status) is included because
 * it is tiny; profiles are not.
 *
 * Written by hand for this project (not generated, not copied), and checked against upstream's
 * .proto files of that version (test/unit/otlp-proto-upstream.test.ts compares every message,
 * field number, type, repeated-ness and oneof, and every enum value, with
 * test/fixtures/opentelemetry-proto/v1.6.0). When upgrading, add the new tag's files there, move
 * OTLP_PROTO_VERSION, and add the fields the test reports with their exact numbers and types: the
 * decoder derives everything (JSON names, presence, wire types, hex-vs-base64) from this text.
 *
 * All messages live in one flat package: OTLP message names do not collide across the upstream
 * packages, and nothing on the wire depends on package names.
 */
import protobuf from 'protobufjs';

export const OTLP_PROTO_VERSION = '1.6.0';

export const OTLP_PROTO_SOURCE = `
syntax = "proto3";

package opentelemetry.proto;

// ---------------------------------------------------------------- common/v1
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}

message ArrayValue {
  repeated AnyValue values = 1;
}

message KeyValueList {
  repeated KeyValue values = 1;
}

message KeyValue {
  string key = 1;
  AnyValue value = 2;
}

message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}

message EntityRef {
  string schema_url = 1;
  string type = 2;
  repeated string id_keys = 3;
  repeated string description_keys = 4;
}

// ---------------------------------------------------------------- resource/v1
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
  repeated EntityRef entity_refs = 3;
}

// ---------------------------------------------------------------- trace/v1
message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}

message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}

message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;

  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;
    SPAN_KIND_INTERNAL = 1;
    SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4;
    SPAN_KIND_CONSUMER = 5;
  }
  SpanKind kind = 6;

  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;

  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  repeated Event events = 11;
  uint32 dropped_events_count = 12;

  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
  repeated Link links = 13;
  uint32 dropped_links_count = 14;

  Status status = 15;
}

message Status {
  string message = 2;

  enum StatusCode {
    STATUS_CODE_UNSET = 0;
    STATUS_CODE_OK = 1;
    STATUS_CODE_ERROR = 2;
  }
  StatusCode code = 3;
}

// ---------------------------------------------------------------- logs/v1
enum SeverityNumber {
  SEVERITY_NUMBER_UNSPECIFIED = 0;
  SEVERITY_NUMBER_TRACE = 1;
  SEVERITY_NUMBER_TRACE2 = 2;
  SEVERITY_NUMBER_TRACE3 = 3;
  SEVERITY_NUMBER_TRACE4 = 4;
  SEVERITY_NUMBER_DEBUG = 5;
  SEVERITY_NUMBER_DEBUG2 = 6;
  SEVERITY_NUMBER_DEBUG3 = 7;
  SEVERITY_NUMBER_DEBUG4 = 8;
  SEVERITY_NUMBER_INFO = 9;
  SEVERITY_NUMBER_INFO2 = 10;
  SEVERITY_NUMBER_INFO3 = 11;
  SEVERITY_NUMBER_INFO4 = 12;
  SEVERITY_NUMBER_WARN = 13;
  SEVERITY_NUMBER_WARN2 = 14;
  SEVERITY_NUMBER_WARN3 = 15;
  SEVERITY_NUMBER_WARN4 = 16;
  SEVERITY_NUMBER_ERROR = 17;
  SEVERITY_NUMBER_ERROR2 = 18;
  SEVERITY_NUMBER_ERROR3 = 19;
  SEVERITY_NUMBER_ERROR4 = 20;
  SEVERITY_NUMBER_FATAL = 21;
  SEVERITY_NUMBER_FATAL2 = 22;
  SEVERITY_NUMBER_FATAL3 = 23;
  SEVERITY_NUMBER_FATAL4 = 24;
}

message ResourceLogs {
  Resource resource = 1;
  repeated ScopeLogs scope_logs = 2;
  string schema_url = 3;
}

message ScopeLogs {
  InstrumentationScope scope = 1;
  repeated LogRecord log_records = 2;
  string schema_url = 3;
}

message LogRecord {
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  SeverityNumber severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}

// ---------------------------------------------------------------- metrics/v1
enum AggregationTemporality {
  AGGREGATION_TEMPORALITY_UNSPECIFIED = 0;
  AGGREGATION_TEMPORALITY_DELTA = 1;
  AGGREGATION_TEMPORALITY_CUMULATIVE = 2;
}

message ResourceMetrics {
  Resource resource = 1;
  repeated ScopeMetrics scope_metrics = 2;
  string schema_url = 3;
}

message ScopeMetrics {
  InstrumentationScope scope = 1;
  repeated Metric metrics = 2;
  string schema_url = 3;
}

message Metric {
  string name = 1;
  string description = 2;
  string unit = 3;
  oneof data {
    Gauge gauge = 5;
    Sum sum = 7;
    Histogram histogram = 9;
    ExponentialHistogram exponential_histogram = 10;
    Summary summary = 11;
  }
  repeated KeyValue metadata = 12;
}

message Gauge {
  repeated NumberDataPoint data_points = 1;
}

message Sum {
  repeated NumberDataPoint data_points = 1;
  AggregationTemporality aggregation_temporality = 2;
  bool is_monotonic = 3;
}

message Histogram {
  repeated HistogramDataPoint data_points = 1;
  AggregationTemporality aggregation_temporality = 2;
}

message ExponentialHistogram {
  repeated ExponentialHistogramDataPoint data_points = 1;
  AggregationTemporality aggregation_temporality = 2;
}

message Summary {
  repeated SummaryDataPoint data_points = 1;
}

message NumberDataPoint {
  repeated KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  oneof value {
    double as_double = 4;
    sfixed64 as_int = 6;
  }
  repeated Exemplar exemplars = 5;
  uint32 flags = 8;
}

message HistogramDataPoint {
  repeated KeyValue attributes = 9;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  optional double sum = 5;
  repeated fixed64 bucket_counts = 6;
  repeated double explicit_bounds = 7;
  repeated Exemplar exemplars = 8;
  uint32 flags = 10;
  optional double min = 11;
  optional double max = 12;
}

message ExponentialHistogramDataPoint {
  repeated KeyValue attributes = 1;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  optional double sum = 5;
  sint32 scale = 6;
  fixed64 zero_count = 7;

  message Buckets {
    sint32 offset = 1;
    repeated uint64 bucket_counts = 2;
  }
  Buckets positive = 8;
  Buckets negative = 9;
  uint32 flags = 10;
  repeated Exemplar exemplars = 11;
  optional double min = 12;
  optional double max = 13;
  double zero_threshold = 14;
}

message SummaryDataPoint {
  repeated KeyValue attributes = 7;
  fixed64 start_time_unix_nano = 2;
  fixed64 time_unix_nano = 3;
  fixed64 count = 4;
  double sum = 5;

  message ValueAtQuantile {
    double quantile = 1;
    double value = 2;
  }
  repeated ValueAtQuantile quantile_values = 6;
  uint32 flags = 8;
}

message Exemplar {
  repeated KeyValue filtered_attributes = 7;
  fixed64 time_unix_nano = 2;
  oneof value {
    double as_double = 3;
    sfixed64 as_int = 6;
  }
  bytes span_id = 4;
  bytes trace_id = 5;
}

// ---------------------------------------------------------------- collector/*/v1
message ExportTraceServiceRequest {
  repeated ResourceSpans resource_spans = 1;
}

message ExportTraceServiceResponse {
  ExportTracePartialSuccess partial_success = 1;
}

message ExportTracePartialSuccess {
  int64 rejected_spans = 1;
  string error_message = 2;
}

message ExportLogsServiceRequest {
  repeated ResourceLogs resource_logs = 1;
}

message ExportLogsServiceResponse {
  ExportLogsPartialSuccess partial_success = 1;
}

message ExportLogsPartialSuccess {
  int64 rejected_log_records = 1;
  string error_message = 2;
}

message ExportMetricsServiceRequest {
  repeated ResourceMetrics resource_metrics = 1;
}

message ExportMetricsServiceResponse {
  ExportMetricsPartialSuccess partial_success = 1;
}

message ExportMetricsPartialSuccess {
  int64 rejected_data_points = 1;
  string error_message = 2;
}
`;

/** The three OTLP signals served over OTLP/HTTP. */
export type OtlpSignal = 'traces' | 'logs' | 'metrics';

const PACKAGE = 'opentelemetry.proto';

/**
 * Fully qualified message names per signal, for requests and responses, and the (proto, i.e.
 * snake_case) name of the partial-success rejected counter.
 */
export const OTLP_MESSAGES = {
  traces: {
    request: `${PACKAGE}.ExportTraceServiceRequest`,
    response: `${PACKAGE}.ExportTraceServiceResponse`,
    rejectedField: 'rejected_spans',
  },
  logs: {
    request: `${PACKAGE}.ExportLogsServiceRequest`,
    response: `${PACKAGE}.ExportLogsServiceResponse`,
    rejectedField: 'rejected_log_records',
  },
  metrics: {
    request: `${PACKAGE}.ExportMetricsServiceRequest`,
    response: `${PACKAGE}.ExportMetricsServiceResponse`,
    rejectedField: 'rejected_data_points',
  },
} as const satisfies Record<OtlpSignal, { request: string; response: string; rejectedField: string }>;

let root: protobuf.Root | undefined;

/**
 * The parsed and resolved schema: parsed on first use, then cached for the life of the process.
 * Field names are kept exactly as written above (snake_case); the decoder derives the OTLP/JSON
 * lowerCamelCase names itself, the way protoc derives `json_name`.
 */
export function getOtlpRoot(): protobuf.Root {
  if (root === undefined) {
    const parsed = protobuf.parse(OTLP_PROTO_SOURCE, { keepCase: true });
    parsed.root.resolveAll();
    root = parsed.root;
  }
  return root;
}

/** Looks up a message type of the schema by its fully qualified name. */
export function getOtlpType(fullName: string): protobuf.Type {
  return getOtlpRoot().lookupType(fullName);
}
