import { invalid } from '../shared/domain-errors';
import type { MetricType } from '../db/schema';
import {
  nanosToMillis,
  readArray,
  readDouble,
  readInteger,
  readInt64,
  readObject,
  readString,
  readUint64,
  type JsonObject,
} from '../json/read';
import { RecordBudget } from '../ingest/limits';
import { environmentOf } from './environment';
import type { PendingBatch, PendingRow } from './records';
import { pointPages, SessionFactsCollector } from './session-facts';
import { pointUidOf, sessionIdOf, toPlainAttributes } from './values';
import { forEachRecord } from './walk';

/** OTLP metric data members and the type name each is stored under. */
const DATA_KINDS: ReadonlyArray<[key: string, type: MetricType]> = [
  ['gauge', 'gauge'],
  ['sum', 'sum'],
  ['histogram', 'histogram'],
  ['exponentialHistogram', 'exponential_histogram'],
  ['summary', 'summary'],
];

const METRICS = {
  message: 'ExportMetricsServiceRequest',
  resources: 'resourceMetrics',
  scopes: 'scopeMetrics',
  records: 'metrics',
};

/** Longest metric name accepted: the OpenTelemetry API's limit for instrument names. */
const MAX_METRIC_NAME = 255;

/** Validates an OTLP/JSON ExportMetricsServiceRequest and flattens it into one row per data point. */
export function normalizeMetrics(body: unknown): PendingBatch<'metric_points'> {
  const rows: PendingRow<'metric_points'>[] = [];
  const services: string[] = [];
  const budget = new RecordBudget('metric data points');
  const sessions = new SessionFactsCollector();
  forEachRecord(body, METRICS, (metric, { path, resource, resourceJson, scopeJson }) => {
    const name = readString(metric.name, `${path}.name`);
    if (!name) throw invalid(`${path}.name is required`, 'invalid_request', { field: `${path}.name` });
    // OpenTelemetry's limit for instrument names; names are indexed (by project, name and time), and PostgreSQL's index
    // rows cannot hold an unbounded text.
    if (name.length > MAX_METRIC_NAME)
      throw invalid(`${path}.name is longer than ${MAX_METRIC_NAME} characters`, 'invalid_request', {
        field: `${path}.name`,
      });
    const present = DATA_KINDS.filter(([key]) => metric[key] !== undefined && metric[key] !== null);
    if (present.length !== 1) {
      throw invalid(`${path} must have exactly one of ${DATA_KINDS.map(([k]) => k).join(', ')}`, 'invalid_request', {
        field: path,
      });
    }
    const [key, type] = present[0]!;
    const data = readObject(metric[key], `${path}.${key}`);
    const shared = dataShared(type, data, `${path}.${key}`);
    readArray(data.dataPoints, `${path}.${key}.dataPoints`).forEach((pRaw, n) => {
      const at = `${path}.${key}.dataPoints[${n}]`;
      budget.take(at);
      const point = readObject(pRaw, at);
      const attributes = toPlainAttributes(point.attributes, `${at}.attributes`);
      const pointUid = pointUidOf(attributes, `${at}.attributes`);
      const timeNs = readUint64(point.timeUnixNano, `${at}.timeUnixNano`);
      const startNs = readUint64(point.startTimeUnixNano, `${at}.startTimeUnixNano`);
      const { value, detail } = readPoint(type, point, at);
      const sessionId = sessionIdOf(attributes, `${at}.attributes`) ?? resource.sessionId ?? null;
      const timeMs = nanosToMillis(timeNs);
      sessions.note(sessionId, timeMs, attributes, resource, pointPages(attributes));
      services.push(resource.serviceName);
      rows.push({
        name,
        description: readString(metric.description, `${path}.description`) || null,
        unit: readString(metric.unit, `${path}.unit`) || null,
        type,
        time_ns: timeNs,
        start_ns: startNs === '0' ? null : startNs,
        time_ms: timeMs,
        value: typeof value === 'number' && Number.isFinite(value) ? value : null,
        data: JSON.stringify({ ...shared, ...detail }),
        session_id: sessionId,
        point_uid: pointUid,
        route: typeof attributes['url.path'] === 'string' ? attributes['url.path'] : null,
        env: environmentOf(resource.attributes),
        attributes: JSON.stringify(attributes),
        resource: resourceJson,
        scope: scopeJson,
      });
    });
  });
  return { table: 'metric_points', rows, services, sessions: sessions.list() };
}

/** Per-metric fields that apply to every point: temporality and monotonicity. */
function dataShared(type: MetricType, data: JsonObject, path: string): JsonObject {
  if (type === 'gauge' || type === 'summary') return {};
  const shared: JsonObject = {
    aggregationTemporality: readInteger(data.aggregationTemporality, `${path}.aggregationTemporality`, 0, 2) ?? 0,
  };
  if (type === 'sum') {
    if (data.isMonotonic !== undefined && data.isMonotonic !== null && typeof data.isMonotonic !== 'boolean') {
      throw invalid(`${path}.isMonotonic must be a boolean`, 'invalid_request', { field: `${path}.isMonotonic` });
    }
    shared.isMonotonic = data.isMonotonic === true;
  }
  return shared;
}

const uint64List = (v: unknown, path: string) => readArray(v, path).map((x, i) => readUint64(x, `${path}[${i}]`));
const doubleList = (v: unknown, path: string) => readArray(v, path).map((x, i) => readDouble(x, `${path}[${i}]`) ?? 0);

function buckets(v: unknown, path: string) {
  const b = v === undefined || v === null ? {} : readObject(v, path);
  return {
    offset: readInteger(b.offset, `${path}.offset`, -(2 ** 31), 2 ** 31 - 1) ?? 0,
    bucketCounts: uint64List(b.bucketCounts, `${path}.bucketCounts`),
  };
}

/** Count and sum, shared by every distribution point. */
function distribution(p: JsonObject, path: string): { count: string; sum: number | string | null } {
  return { count: readUint64(p.count, `${path}.count`), sum: readDouble(p.sum, `${path}.sum`) ?? null };
}

/** The point's headline value (for number points the value, for distributions the sum) and its full detail. */
function readPoint(
  type: MetricType,
  p: JsonObject,
  path: string,
): { value: number | string | undefined; detail: JsonObject } {
  switch (type) {
    case 'gauge':
    case 'sum': {
      const hasDouble = p.asDouble !== undefined && p.asDouble !== null;
      const hasInt = p.asInt !== undefined && p.asInt !== null;
      if (hasDouble && hasInt)
        throw invalid(`${path} must set only one of asDouble, asInt`, 'invalid_request', { field: path });
      const value = hasInt ? readInt64(p.asInt, `${path}.asInt`) : readDouble(p.asDouble, `${path}.asDouble`);
      return { value: typeof value === 'string' && hasInt ? Number(value) : value, detail: { value: value ?? null } };
    }
    case 'histogram': {
      const d = distribution(p, path);
      return {
        value: d.sum ?? undefined,
        detail: {
          ...d,
          bucketCounts: uint64List(p.bucketCounts, `${path}.bucketCounts`),
          explicitBounds: doubleList(p.explicitBounds, `${path}.explicitBounds`),
          min: readDouble(p.min, `${path}.min`) ?? null,
          max: readDouble(p.max, `${path}.max`) ?? null,
        },
      };
    }
    case 'exponential_histogram': {
      const d = distribution(p, path);
      return {
        value: d.sum ?? undefined,
        detail: {
          ...d,
          scale: readInteger(p.scale, `${path}.scale`, -20, 20) ?? 0,
          zeroCount: readUint64(p.zeroCount, `${path}.zeroCount`),
          zeroThreshold: readDouble(p.zeroThreshold, `${path}.zeroThreshold`) ?? 0,
          positive: buckets(p.positive, `${path}.positive`),
          negative: buckets(p.negative, `${path}.negative`),
          min: readDouble(p.min, `${path}.min`) ?? null,
          max: readDouble(p.max, `${path}.max`) ?? null,
        },
      };
    }
    case 'summary': {
      const d = distribution(p, path);
      const quantiles = readArray(p.quantileValues, `${path}.quantileValues`).map((q, i) => {
        const at = `${path}.quantileValues[${i}]`;
        const o = readObject(q, at);
        return {
          quantile: readDouble(o.quantile, `${at}.quantile`) ?? 0,
          value: readDouble(o.value, `${at}.value`) ?? 0,
        };
      });
      return { value: d.sum ?? undefined, detail: { ...d, quantileValues: quantiles } };
    }
  }
}
