import { REPLAY_LIMITS } from '../../../wire/replay';
import { POINT_UID_ATTRIBUTE } from '../../../wire/self-telemetry';
import { invalid } from '../shared/domain-errors';
import { INGEST_LIMITS, limitExceeded } from '../ingest/limits';
import { redactUrlAttribute } from '../privacy/url-attributes';
import { isObject, readArray, readDouble, readInt64, readObject, readString, type JsonObject } from '../json/read';
import { samplingOf, testOf, type Sampling, type SessionTest } from './session-facts';

/** Plain JSON form of an OTLP AnyValue, as the query API returns it. */
export type PlainValue = string | number | boolean | null | PlainValue[] | { [key: string]: PlainValue };
export type PlainAttributes = Record<string, PlainValue>;

/** Nesting deeper than this is refused: real attributes are shallow, and deep input must not exhaust the stack. */
const MAX_DEPTH = 16;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const ANY_VALUE_KEYS = [
  'stringValue',
  'boolValue',
  'intValue',
  'doubleValue',
  'arrayValue',
  'kvlistValue',
  'bytesValue',
];

export function toPlainValue(v: unknown, path: string, depth = 0): PlainValue {
  if (v === undefined || v === null) return null;
  if (depth > MAX_DEPTH)
    throw invalid(`${path} is nested more than ${MAX_DEPTH} levels deep`, 'invalid_request', { field: path });
  const value = readObject(v, path);
  const set = ANY_VALUE_KEYS.filter((k) => value[k] !== undefined && value[k] !== null);
  if (set.length === 0) return null;
  if (set.length > 1)
    throw invalid(`${path} must set exactly one of ${ANY_VALUE_KEYS.join(', ')}`, 'invalid_request', { field: path });
  const key = set[0]!;
  const inner = value[key];
  const at = `${path}.${key}`;
  switch (key) {
    case 'stringValue':
      return boundedString(readString(inner, at)!, at);
    case 'boolValue':
      if (typeof inner !== 'boolean') throw invalid(`${at} must be a boolean`, 'invalid_request', { field: at });
      return inner;
    case 'intValue':
      return readInt64(inner, at);
    case 'doubleValue':
      return readDouble(inner, at)!;
    case 'bytesValue': {
      const s = boundedString(readString(inner, at)!, at);
      if (!BASE64.test(s)) throw invalid(`${at} must be base64`, 'invalid_request', { field: at });
      return s;
    }
    case 'arrayValue': {
      const arr = readObject(inner, at);
      return boundedList(readArray(arr.values, `${at}.values`), `${at}.values`, 'maxArrayValues').map((item, i) =>
        toPlainValue(item, `${at}.values[${i}]`, depth + 1),
      );
    }
    default: {
      const kv = readObject(inner, at);
      return toPlainAttributes(kv.values, `${at}.values`, depth + 1);
    }
  }
}

/** A KeyValue list as an object; a repeated key keeps its last value, as OTel SDKs do. URL values are redacted. */
export function toPlainAttributes(v: unknown, path: string, depth = 0): PlainAttributes {
  const out: PlainAttributes = {};
  boundedList(readArray(v, path), path, 'maxAttributes').forEach((item, i) => {
    const at = `${path}[${i}]`;
    const kv = readObject(item, at);
    const key = readString(kv.key, `${at}.key`);
    // Protobuf cannot tell an empty key from a missing one, and OTel requires non-empty keys: both are refused.
    if (!key) throw invalid(`${at}.key is required and must not be empty`, 'invalid_request', { field: `${at}.key` });
    const value = toPlainValue(kv.value, `${at}.value`, depth);
    // Secrets in URLs are removed before anything reads or stores the attributes (docs/ingest.md, "Secrets in URLs").
    out[key] = typeof value === 'string' ? redactUrlAttribute(key, value) : value;
  });
  return out;
}

function boundedList(list: unknown[], path: string, limit: 'maxAttributes' | 'maxArrayValues'): unknown[] {
  if (list.length > INGEST_LIMITS[limit]) throw limitExceeded(limit, `${path} holds ${list.length} entries`, path);
  return list;
}

/** A string value within `maxValueBytes` of UTF-8; the exact count is taken only when the length alone cannot tell. */
function boundedString(s: string, path: string): string {
  const max = INGEST_LIMITS.maxValueBytes;
  if (s.length * 3 > max && Buffer.byteLength(s, 'utf8') > max) {
    throw limitExceeded('maxValueBytes', `${path} is ${Buffer.byteLength(s, 'utf8')} bytes long`, path);
  }
  return s;
}

export interface ResourceInfo {
  attributes: PlainAttributes;
  serviceName: string;
  sessionId: string | undefined;
  /** The SDK's sampling decision for the session, read once per resource. */
  sampling: Sampling | undefined;
  /** The Playwright test the records come from (`test.*`), read once per resource. */
  test: SessionTest | undefined;
}

/** The resource of one ResourceSpans/ResourceLogs/ResourceMetrics; `service.name` is required to find the app. */
export function readResource(container: JsonObject, path: string): ResourceInfo {
  const resource = isObject(container.resource) ? container.resource : undefined;
  if (container.resource !== undefined && container.resource !== null && !resource) {
    throw invalid(`${path}.resource must be an object`, 'invalid_request', { field: `${path}.resource` });
  }
  const attributes = toPlainAttributes(resource?.attributes, `${path}.resource.attributes`);
  const serviceName = attributes['service.name'];
  if (typeof serviceName !== 'string' || serviceName === '') {
    throw invalid(`${path}.resource.attributes must have a string "service.name" naming the app`, 'invalid_request', {
      field: `${path}.resource.attributes`,
    });
  }
  return {
    attributes,
    serviceName,
    sessionId: sessionIdOf(attributes, `${path}.resource.attributes`),
    sampling: samplingOf(attributes),
    test: testOf(attributes),
  };
}

export interface ScopeInfo {
  name: string;
  version: string;
  attributes: PlainAttributes;
}

export function readScope(container: JsonObject, path: string): ScopeInfo {
  const scope =
    container.scope === undefined || container.scope === null ? {} : readObject(container.scope, `${path}.scope`);
  return {
    name: readString(scope.name, `${path}.scope.name`) ?? '',
    version: readString(scope.version, `${path}.scope.version`) ?? '',
    attributes: toPlainAttributes(scope.attributes, `${path}.scope.attributes`),
  };
}

/**
 * The `log.record.uid` attribute (OpenTelemetry semantic conventions): the identity a retried log record keeps, bounded
 * like session ids because it is indexed.
 */
export function recordUidOf(attributes: PlainAttributes, path: string): string | null {
  return boundedId(attributes, 'log.record.uid', path) ?? null;
}

/**
 * A metric point's identity (`svc.point.uid`, which the SDK sets): bounded as `log.record.uid` is, and taken out of
 * the attributes, since it is no dimension of the series.
 */
export function pointUidOf(attributes: PlainAttributes, path: string): string | null {
  const uid = boundedId(attributes, POINT_UID_ATTRIBUTE, path) ?? null;
  delete attributes[POINT_UID_ATTRIBUTE];
  return uid;
}

/**
 * The `session.id` attribute, on the record or the resource. Bounded like replay ids: it is indexed, and PostgreSQL
 * refuses index entries over about 2.7 KB.
 */
export function sessionIdOf(attributes: PlainAttributes, path: string): string | undefined {
  return boundedId(attributes, 'session.id', path);
}

function boundedId(attributes: PlainAttributes, key: string, path: string): string | undefined {
  const v = attributes[key];
  if (typeof v !== 'string' || v === '') return undefined;
  if (v.length > REPLAY_LIMITS.maxIdLength) {
    throw invalid(`${path} "${key}" must be at most ${REPLAY_LIMITS.maxIdLength} characters`, 'invalid_request', {
      field: `${path}.${key}`,
    });
  }
  return v;
}
