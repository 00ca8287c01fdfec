import { POINT_UID_ATTRIBUTE } from '../../../wire/self-telemetry';
import type { MetricType } from '../db/schema';
import type { PlainAttributes, PlainValue } from '../otlp/values';
import type { Row } from '../records/json';

/**
 * Stored records back into OTLP/JSON export requests, the shape ingest and an OpenTelemetry Collector take. Ingest keeps
 * attribute values as plain JSON (otlp/values.ts), so the way back follows the query API's reading of them: a whole
 * number is an `intValue`, any other number a `doubleValue`, an object a `kvlistValue`. The app is named by its
 * canonical name in `service.name`, whatever alias the records arrived under.
 */

export type AnyValue =
  | Record<string, never>
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number | string }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } };
export interface KeyValue {
  key: string;
  value: AnyValue;
}

const NON_FINITE = new Set(['NaN', 'Infinity', '-Infinity']);

export function anyValue(v: PlainValue): AnyValue {
  if (v === null) return {};
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  return { kvlistValue: { values: keyValues(v) } };
}

export const keyValues = (attributes: PlainAttributes): KeyValue[] =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));

const parse = <T>(json: string): T => JSON.parse(json) as T;

/** The columns every exported signal shares: where a record came from. */
type Sourced = Pick<Row<'spans'>, 'app' | 'resource' | 'scope'>;

interface StoredScope {
  name: string;
  version: string;
  attributes: PlainAttributes;
}

/**
 * Rows grouped as an export request nests them: resource (app and resource attributes), then scope, in the order the
 * rows come; `records` turns one scope's rows into its list (`spans`, `logRecords`, `metrics`).
 */
function nest<R extends Sourced>(
  rows: readonly R[],
  names: { resources: string; scopes: string; records: string },
  records: (rows: R[]) => unknown[],
): Record<string, unknown> {
  const resources = new Map<string, Map<string, R[]>>();
  for (const row of rows) {
    const resourceKey = `${row.app}\u0000${row.resource}`;
    const scopes = resources.get(resourceKey) ?? new Map<string, R[]>();
    resources.set(resourceKey, scopes);
    const list = scopes.get(row.scope) ?? [];
    scopes.set(row.scope, list);
    list.push(row);
  }
  return {
    [names.resources]: [...resources.values()].map((scopes) => {
      const first = [...scopes.values()][0]![0]!;
      const { attributes } = parse<{ attributes: PlainAttributes }>(first.resource);
      return {
        resource: { attributes: keyValues({ ...attributes, 'service.name': first.app }) },
        [names.scopes]: [...scopes.entries()].map(([scopeJson, list]) => {
          const scope = parse<StoredScope>(scopeJson);
          return {
            scope: { name: scope.name, version: scope.version, attributes: keyValues(scope.attributes) },
            [names.records]: records(list),
          };
        }),
      };
    }),
  };
}

interface StoredEvent {
  timeUnixNano: string;
  name: string;
  attributes: PlainAttributes;
}
interface StoredLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: PlainAttributes;
}

const span = (r: Row<'spans'>) => ({
  traceId: r.trace_id,
  spanId: r.span_id,
  ...(r.parent_span_id !== null && { parentSpanId: r.parent_span_id }),
  name: r.name,
  kind: r.kind,
  startTimeUnixNano: r.start_ns,
  endTimeUnixNano: r.end_ns,
  attributes: keyValues(parse(r.attributes)),
  events: parse<StoredEvent[]>(r.events).map((e) => ({ ...e, attributes: keyValues(e.attributes) })),
  links: parse<StoredLink[]>(r.links).map((l) => ({ ...l, attributes: keyValues(l.attributes) })),
  status: { code: r.status_code, ...(r.status_message !== null && { message: r.status_message }) },
});

const logRecord = (r: Row<'logs'>) => ({
  timeUnixNano: r.time_ns,
  observedTimeUnixNano: r.observed_ns,
  severityNumber: r.severity_number,
  ...(r.severity_text !== null && { severityText: r.severity_text }),
  body: anyValue(parse(r.body)),
  ...(r.event_name !== null && { eventName: r.event_name }),
  ...(r.trace_id !== null && { traceId: r.trace_id }),
  ...(r.span_id !== null && { spanId: r.span_id }),
  attributes: keyValues(parse(r.attributes)),
});

/** The member of a Metric each stored type is under. */
const DATA_MEMBER: Record<MetricType, string> = {
  gauge: 'gauge',
  sum: 'sum',
  histogram: 'histogram',
  exponential_histogram: 'exponentialHistogram',
  summary: 'summary',
};

/** A number point's value: `asInt` for whole numbers and int64 text, `asDouble` otherwise (non-finite ones as text). */
function numberValue(value: unknown): { asInt: string } | { asDouble: number | string } | Record<string, never> {
  if (typeof value === 'number') return Number.isInteger(value) ? { asInt: String(value) } : { asDouble: value };
  if (typeof value === 'string') return NON_FINITE.has(value) ? { asDouble: value } : { asInt: value };
  return {};
}

/** One stored point as its OTLP data point: the stored detail, with its nulls (absent optional fields) left out. */
function dataPoint(r: Row<'metric_points'>, detail: Record<string, unknown>) {
  const { value, ...rest } = detail;
  const fields = r.type === 'gauge' || r.type === 'sum' ? numberValue(value) : rest;
  return {
    timeUnixNano: r.time_ns,
    ...(r.start_ns !== null && { startTimeUnixNano: r.start_ns }),
    // The point's identity goes back where its producer put it, so that ingesting the export twice stores it once.
    attributes: keyValues({
      ...parse<PlainAttributes>(r.attributes),
      ...(r.point_uid !== null && { [POINT_UID_ATTRIBUTE]: r.point_uid }),
    }),
    ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null)),
  };
}

/** A scope's points as metrics: points of one name, type, unit and temporality together, in the order they come. */
function metrics(rows: Array<Row<'metric_points'>>): unknown[] {
  const byMetric = new Map<string, { head: Record<string, unknown>; points: unknown[] }>();
  for (const r of rows) {
    const { aggregationTemporality, isMonotonic, ...detail } = parse<Record<string, unknown>>(r.data);
    const shared = {
      ...(aggregationTemporality !== undefined && { aggregationTemporality }),
      ...(isMonotonic !== undefined && { isMonotonic }),
    };
    const key = JSON.stringify([r.name, r.description, r.unit, r.type, shared]);
    let metric = byMetric.get(key);
    if (!metric) {
      const points: unknown[] = [];
      const head = {
        name: r.name,
        ...(r.description !== null && { description: r.description }),
        ...(r.unit !== null && { unit: r.unit }),
        [DATA_MEMBER[r.type]]: { ...shared, dataPoints: points },
      };
      metric = { head, points };
      byMetric.set(key, metric);
    }
    metric.points.push(dataPoint(r, detail));
  }
  return [...byMetric.values()].map((m) => m.head);
}

/** Spans as one ExportTraceServiceRequest. */
export const traceRequest = (rows: ReadonlyArray<Row<'spans'>>) =>
  nest(rows, { resources: 'resourceSpans', scopes: 'scopeSpans', records: 'spans' }, (list) => list.map(span));

/** Log records as one ExportLogsServiceRequest. */
export const logsRequest = (rows: ReadonlyArray<Row<'logs'>>) =>
  nest(rows, { resources: 'resourceLogs', scopes: 'scopeLogs', records: 'logRecords' }, (list) => list.map(logRecord));

/** Metric points as one ExportMetricsServiceRequest. */
export const metricsRequest = (rows: ReadonlyArray<Row<'metric_points'>>) =>
  nest(rows, { resources: 'resourceMetrics', scopes: 'scopeMetrics', records: 'metrics' }, metrics);
