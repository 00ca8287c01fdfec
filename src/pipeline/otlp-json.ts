import type {
  ExportLogsServiceRequest,
  ExportMetricsServiceRequest,
  ExportTraceServiceRequest,
  InstrumentationScope,
  LogRecord,
  Metric,
  NumberDataPoint,
  Resource,
  Span,
} from '../../wire/otlp-json';
import type { Attributes, LogLevel } from '../core/types';
import { SDK_NAME, SDK_VERSION } from '../version';
import type { LogItem, MetricItem, SpanItem, TelemetryItem } from './items';
import { otlpDouble, toKeyValues, unixNano } from './otlp-values';

/**
 * OTLP/JSON encoder: turns queued records into the three export requests. Records are grouped by session id into
 * one resource each (the resource carries `session.id` next to the service attributes), then by instrumentation
 * scope; metric points are grouped by name, unit and kind.
 */

/** OTLP SeverityNumber and SeverityText of each SDK log level. */
export const SEVERITY: Readonly<Record<LogLevel, { readonly number: number; readonly text: string }>> = {
  debug: { number: 5, text: 'DEBUG' },
  info: { number: 9, text: 'INFO' },
  warn: { number: 13, text: 'WARN' },
  error: { number: 17, text: 'ERROR' },
  fatal: { number: 21, text: 'FATAL' },
};

/** The instrumentation scope of records the SDK itself produces (logs and metrics). */
const SDK_SCOPE: InstrumentationScope = { name: SDK_NAME, version: SDK_VERSION };

/** Which export request (and ingest path) records belong to. */
export type Signal = 'logs' | 'traces' | 'metrics';

/** Groups values by a string key, keeping first-seen order of the keys and the order of values within a key. */
function groupBy<T>(values: readonly T[], keyOf: (value: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    const group = groups.get(key);
    if (group) group.push(value);
    else groups.set(key, [value]);
  }
  return [...groups.values()];
}

/** Resource attributes that depend on the session, such as its sampling decision. */
export type SessionResource = (sessionId: string) => Readonly<Attributes>;

/** The resource of one session: the service attributes, the session's own, then `session.id`. */
function resourceOf(
  service: Readonly<Record<string, string>>,
  sessionId: string,
  perSession?: SessionResource,
): Resource {
  return { attributes: toKeyValues({ ...service, ...(perSession && perSession(sessionId)), 'session.id': sessionId }) };
}

function logRecord(item: LogItem): LogRecord {
  const severity = SEVERITY[item.level];
  const time = unixNano(item.timeMs);
  const record: LogRecord = {
    timeUnixNano: time,
    observedTimeUnixNano: time,
    severityNumber: severity.number,
    severityText: severity.text,
    body: { stringValue: item.body },
    attributes: toKeyValues(item.attributes),
  };
  if (item.traceId) record.traceId = item.traceId;
  if (item.spanId) record.spanId = item.spanId;
  return record;
}

function span(item: SpanItem): Span {
  const out: Span = {
    traceId: item.traceId,
    spanId: item.spanId,
    name: item.name,
    kind: item.spanKind,
    startTimeUnixNano: unixNano(item.startMs),
    endTimeUnixNano: unixNano(Math.max(item.endMs, item.startMs)),
    attributes: toKeyValues(item.attributes),
    events: item.events.map((e) => ({
      timeUnixNano: unixNano(e.timeMs),
      name: e.name,
      attributes: toKeyValues(e.attributes),
    })),
    status: item.statusMessage ? { code: item.statusCode, message: item.statusMessage } : { code: item.statusCode },
  };
  if (item.parentSpanId) out.parentSpanId = item.parentSpanId;
  return out;
}

function dataPoint(item: MetricItem): NumberDataPoint {
  const point: NumberDataPoint = { timeUnixNano: unixNano(item.timeMs), attributes: toKeyValues(item.attributes) };
  if (item.sumSinceMs === undefined) {
    point.asDouble = otlpDouble(item.value);
  } else {
    point.startTimeUnixNano = unixNano(item.sumSinceMs);
    point.asInt = String(Math.round(item.value));
  }
  return point;
}

/** One OTLP metric per (name, unit, kind): gauges for recorded values, cumulative monotonic sums for counters. */
function metric(points: readonly MetricItem[]): Metric {
  const first = points[0]!;
  const dataPoints = points.map(dataPoint);
  return first.sumSinceMs === undefined
    ? { name: first.name, unit: first.unit, gauge: { dataPoints } }
    : { name: first.name, unit: first.unit, sum: { dataPoints, aggregationTemporality: 2, isMonotonic: true } };
}

/** `ExportLogsServiceRequest` for `items`; `service` holds the resource attributes other than `session.id`. */
export function encodeLogs(
  items: readonly LogItem[],
  service: Readonly<Record<string, string>>,
  perSession?: SessionResource,
): ExportLogsServiceRequest {
  return {
    resourceLogs: groupBy(items, (i) => i.sessionId).map((group) => ({
      resource: resourceOf(service, group[0]!.sessionId, perSession),
      scopeLogs: [{ scope: SDK_SCOPE, logRecords: group.map(logRecord) }],
    })),
  };
}

/** `ExportTraceServiceRequest` for `items`, spans grouped by the scope that produced them. */
export function encodeSpans(
  items: readonly SpanItem[],
  service: Readonly<Record<string, string>>,
  perSession?: SessionResource,
): ExportTraceServiceRequest {
  return {
    resourceSpans: groupBy(items, (i) => i.sessionId).map((group) => ({
      resource: resourceOf(service, group[0]!.sessionId, perSession),
      scopeSpans: groupBy(group, (i) => `${i.scope.name}\n${i.scope.version || ''}`).map((spans) => {
        const { name, version } = spans[0]!.scope;
        return { scope: version ? { name, version } : { name }, spans: spans.map(span) };
      }),
    })),
  };
}

/** `ExportMetricsServiceRequest` for `items`. */
export function encodeMetrics(
  items: readonly MetricItem[],
  service: Readonly<Record<string, string>>,
  perSession?: SessionResource,
): ExportMetricsServiceRequest {
  return {
    resourceMetrics: groupBy(items, (i) => i.sessionId).map((group) => ({
      resource: resourceOf(service, group[0]!.sessionId, perSession),
      scopeMetrics: [
        {
          scope: SDK_SCOPE,
          metrics: groupBy(group, (i) => `${i.name}\n${i.unit}\n${i.sumSinceMs === undefined ? 'gauge' : 'sum'}`).map(
            metric,
          ),
        },
      ],
    })),
  };
}

/** The record type each signal's request carries. */
export interface ItemOf {
  logs: LogItem;
  traces: SpanItem;
  metrics: MetricItem;
}

type BodyEncoders = {
  readonly [S in Signal]: (
    items: readonly ItemOf[S][],
    service: Readonly<Record<string, string>>,
    perSession?: SessionResource,
  ) => string;
};

/** The JSON body of one export request, per signal. */
export const ENCODE_BODY: BodyEncoders = {
  logs: (items, service, perSession) => JSON.stringify(encodeLogs(items, service, perSession)),
  traces: (items, service, perSession) => JSON.stringify(encodeSpans(items, service, perSession)),
  metrics: (items, service, perSession) => JSON.stringify(encodeMetrics(items, service, perSession)),
};

/** Records split by the request they go in, keeping their order within each signal. */
export type BySignal = { [S in Signal]: ItemOf[S][] };

export function partition(items: readonly TelemetryItem[]): BySignal {
  const out: BySignal = { logs: [], traces: [], metrics: [] };
  for (const item of items) {
    if (item.kind === 'log') out.logs.push(item);
    else if (item.kind === 'span') out.traces.push(item);
    else out.metrics.push(item);
  }
  return out;
}
