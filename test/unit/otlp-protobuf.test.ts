/**
 * OTLP/HTTP protobuf decoding (server/src/otlp/protobuf).
 *
 * Reference: real telemetry from the OpenTelemetry JS SDK, serialized by
 * @opentelemetry/otlp-transformer both as protobuf (input to the decoder) and as OTLP/JSON (the
 * expected output). A second, independent reference is protobufjs' own ProtoJSON printer
 * (protobufjs/ext/protojson) applied to protobufjs' own decoding of the same bytes.
 */
import { createRequire } from 'node:module';
import { context, createTraceState, SpanKind, SpanStatusCode, trace, TraceFlags, ValueType } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import {
  JsonLogsSerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufLogsSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import {
  AggregationTemporality,
  AggregationType,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  decodeOtlpMessage,
  decodeOtlpProtobuf,
  encodeOtlpProtobufResponse,
  OTLP_PROTO_VERSION,
  ProtobufDecodeError,
  type OtlpSignal,
} from '../../server/src/otlp/protobuf/index.js';
import { decodeMessageToJson, toJsonName } from '../../server/src/otlp/protobuf/decode.js';
import { OTLP_MESSAGES, OTLP_PROTO_SOURCE, getOtlpRoot, getOtlpType } from '../../server/src/otlp/protobuf/schema.js';

const require = createRequire(import.meta.url);
const protojson = require('protobufjs/ext/protojson') as {
  toJson(type: protobuf.Type, message: protobuf.Message): unknown;
};

const SIGNALS: OtlpSignal[] = ['traces', 'logs', 'metrics'];
const PKG = 'opentelemetry.proto';

// ------------------------------------------------------------------------------------------------
// Canonicalisation of the JSON serializer's output (the reference).
//
// 1. 64-bit integers: the OTLP/JSON spec lets senders write them as JSON numbers or decimal
//    strings; the JSON serializer writes numbers for intValue/asInt/count/bucketCounts/zeroCount
//    (and strings for *TimeUnixNano), the decoder always writes strings (protojson). Numbers at
//    those keys become decimal strings, converted exactly through BigInt.
// 2. proto3 implicit-presence defaults: the JSON serializer writes e.g. `droppedAttributesCount: 0`,
//    `attributes: []`, `status: { code: 0 }`, which protojson (and the decoder) omit because the
//    protobuf bytes cannot tell "0" from "absent". Such default values (0, "", false, [], "0" for
//    64-bit keys) are dropped from the reference, except at keys that have explicit presence in the
//    schema (AnyValue members, NumberDataPoint/Exemplar value, histogram sum/min/max), where a zero
//    is meaningful and must survive the round trip. Nothing else is normalised: ids, enums,
//    doubles, key order (irrelevant to deep equality) and structure are compared as they are.
// ------------------------------------------------------------------------------------------------
const INT64_KEYS = new Set([
  'timeUnixNano',
  'startTimeUnixNano',
  'endTimeUnixNano',
  'observedTimeUnixNano',
  'intValue',
  'asInt',
  'count',
  'zeroCount',
  'bucketCounts',
]);
const EXPLICIT_PRESENCE_KEYS = new Set([
  'stringValue',
  'boolValue',
  'intValue',
  'doubleValue',
  'bytesValue',
  'arrayValue',
  'kvlistValue',
  'asInt',
  'asDouble',
  'sum',
  'min',
  'max',
]);

function isImplicitDefault(key: string, value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (INT64_KEYS.has(key)) return value === '0';
  return value === 0 || value === '' || value === false;
}

/**
 * 3. One serializer quirk: the JSON serializer also writes `schemaUrl` inside `resource`, but the
 *    OTLP `Resource` message has no such field (the value is already on Resource{Spans,Logs,
 *    Metrics}.schemaUrl), so it cannot exist in protobuf. Only that one key is removed.
 */
function dropResourceSchemaUrl(reference: unknown): unknown {
  for (const key of ['resourceSpans', 'resourceLogs', 'resourceMetrics']) {
    const list = (reference as Record<string, unknown>)[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list as Array<{ resource?: Record<string, unknown>; schemaUrl?: unknown }>) {
      if (entry.resource && 'schemaUrl' in entry.resource) {
        expect(entry.resource['schemaUrl']).toBe(entry.schemaUrl);
        delete entry.resource['schemaUrl'];
      }
    }
  }
  return reference;
}

function canonicalise(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => canonicalise(v, key));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const c = canonicalise(v, k);
      if (!EXPLICIT_PRESENCE_KEYS.has(k) && isImplicitDefault(k, c)) continue;
      out[k] = c;
    }
    return out;
  }
  if (typeof value === 'number' && INT64_KEYS.has(key)) {
    expect(Number.isInteger(value), `${key}=${value} is not an integer`).toBe(true);
    return BigInt(value).toString();
  }
  return value;
}

function jsonOf(bytes: Uint8Array | undefined): unknown {
  expect(bytes).toBeInstanceOf(Uint8Array);
  return JSON.parse(new TextDecoder().decode(bytes));
}

function protobufOf(bytes: Uint8Array | undefined): Uint8Array {
  expect(bytes).toBeInstanceOf(Uint8Array);
  return bytes as Uint8Array;
}

// ------------------------------------------------------------------------------------------------
// Second reference: protobufjs decode + protobufjs ProtoJSON printer, then the two documented
// OTLP/JSON deviations from ProtoJSON: trace/span ids hex instead of base64, enums as integers.
// ------------------------------------------------------------------------------------------------
const ENUM_KEYS: Record<string, string> = {
  kind: `${PKG}.Span.SpanKind`,
  code: `${PKG}.Status.StatusCode`,
  severityNumber: `${PKG}.SeverityNumber`,
  aggregationTemporality: `${PKG}.AggregationTemporality`,
};
const HEX_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

function otlpFromProtoJson(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => otlpFromProtoJson(v, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, otlpFromProtoJson(v, k)]));
  }
  if (typeof value === 'string' && HEX_KEYS.has(key)) return Buffer.from(value, 'base64').toString('hex');
  const enumName = ENUM_KEYS[key];
  if (typeof value === 'string' && enumName !== undefined) {
    const n = getOtlpRoot().lookupEnum(enumName).values[value];
    expect(n, `${enumName}.${value}`).toBeTypeOf('number');
    return n;
  }
  return value;
}

function protobufjsReference(signal: OtlpSignal, bytes: Uint8Array): unknown {
  const type = getOtlpType(OTLP_MESSAGES[signal].request);
  return otlpFromProtoJson(protojson.toJson(type, type.decode(bytes)));
}

/**
 * 4. Second serializer quirk, logs only: for a log record without a body the JSON serializer
 *    writes `"body": {}` (an empty AnyValue) while the protobuf serializer leaves field 5 out, so
 *    the two encodings of the same record genuinely differ. For the records known (from the SDK
 *    input, by their `seq` attribute) to have no body, the reference's `body: {}` is removed. A
 *    `body: null` record, which both serializers encode as an empty AnyValue, is left alone.
 */
function dropBodyOfBodilessLogs(bodiless: ReadonlySet<unknown>) {
  return (reference: any): unknown => {
    for (const rl of reference.resourceLogs ?? []) {
      for (const sl of rl.scopeLogs ?? []) {
        for (const record of sl.logRecords ?? []) {
          const seq = record.attributes?.find((a: any) => a.key === 'seq')?.value?.intValue;
          if (bodiless.has(String(seq))) {
            expect(record.body).toStrictEqual({});
            delete record.body;
          }
        }
      }
    }
    return reference;
  };
}

/** All three references must agree: JSON serializer, protobufjs ProtoJSON, our decoder. */
function expectDecodesLikeJson(
  signal: OtlpSignal,
  protoBytes: Uint8Array,
  jsonBytes: Uint8Array | undefined,
  quirks: (reference: unknown) => unknown = (reference) => reference,
): unknown {
  const decoded = decodeOtlpProtobuf(signal, protoBytes);
  expect(decoded).toStrictEqual(canonicalise(quirks(dropResourceSchemaUrl(jsonOf(jsonBytes)))));
  expect(decoded).toStrictEqual(protobufjsReference(signal, protoBytes));
  return decoded;
}

function expectDecodeError(signal: OtlpSignal, bytes: Uint8Array | number[], pattern?: RegExp): ProtobufDecodeError {
  let thrown: unknown;
  try {
    decodeOtlpProtobuf(signal, bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes));
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ProtobufDecodeError);
  const err = thrown as ProtobufDecodeError;
  expect(err.name).toBe('ProtobufDecodeError');
  if (pattern) expect(err.message).toMatch(pattern);
  return err;
}

/** Decoding either succeeds or throws a ProtobufDecodeError, nothing else. */
function decodesOrRejectsCleanly(signal: OtlpSignal, bytes: Uint8Array): void {
  try {
    decodeOtlpProtobuf(signal, bytes);
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
  }
}

// ------------------------------------------------------------------------------------------------
// Telemetry from the SDK
// ------------------------------------------------------------------------------------------------
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const REMOTE_PARENT_ID = 'b7ad6b7169203331';
const LINKED_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const LINKED_SPAN_ID = '00f067aa0ba902b7';

function buildSpans() {
  const exporter = new InMemorySpanExporter();
  const makeProvider = (resource: ReturnType<typeof resourceFromAttributes>) =>
    new BasicTracerProvider({
      resource,
      spanProcessors: [new SimpleSpanProcessor(exporter)],
      spanLimits: { attributeCountLimit: 24, eventCountLimit: 3, linkCountLimit: 2 },
    });
  const providerA = makeProvider(
    resourceFromAttributes(
      { 'service.name': 'checkout', 'service.instance.id': 'i-1', 'host.cpu.count': 8, 'deployment.canary': false },
      { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' },
    ),
  );
  const providerB = makeProvider(resourceFromAttributes({ 'service.name': 'payments' }));

  // Remote parent with a trace state: parentSpanId, traceState and the IS_REMOTE flag bits.
  const remoteParent = trace.setSpanContext(context.active(), {
    traceId: TRACE_ID,
    spanId: REMOTE_PARENT_ID,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: createTraceState('vendor=abc,other=x:y'),
  });

  const tracer = providerA.getTracer('checkout-lib', '2.1.0', { schemaUrl: 'https://example.com/schema/1' });
  const root = tracer.startSpan(
    'GET /cart',
    {
      kind: SpanKind.SERVER,
      startTime: [1_700_000_000, 123_456_789],
      attributes: {
        str: 'hello',
        'str.empty': '', // oneof member with a default value: must survive
        int: 42,
        'int.zero': 0,
        'int.negative': -7,
        'int.min_safe': Number.MIN_SAFE_INTEGER,
        'int.2^53+2': 2 ** 53 + 2, // beyond 2^53: exact as a double, exact as int64
        'int.2^62': 2 ** 62,
        'int.-2^63': -(2 ** 63),
        double: 3.25,
        'double.negative': -0.5,
        'double.tiny': 5e-324,
        'bool.true': true,
        'bool.false': false,
        'array.str': ['a', '', 'c'],
        'array.int': [1, 0, -1, 2 ** 60],
        'array.double': [0.5, 1.25],
        'array.bool': [true, false],
        'array.empty': [],
        'array.with_null': ['x', null, 'z'],
      },
      links: [
        { context: { traceId: LINKED_TRACE_ID, spanId: '2222222222222222', traceFlags: TraceFlags.SAMPLED } }, // dropped: limit 2, oldest first
        {
          context: {
            traceId: LINKED_TRACE_ID,
            spanId: LINKED_SPAN_ID,
            traceFlags: TraceFlags.NONE,
            isRemote: true,
            traceState: createTraceState('k=v'),
          },
          attributes: { 'link.kind': 'follows', 'link.n': 3 },
        },
        { context: { traceId: LINKED_TRACE_ID, spanId: '1111111111111111', traceFlags: TraceFlags.SAMPLED } },
      ],
    },
    remoteParent,
  );
  root.addEvent('cache.miss', { 'cache.key': 'cart:1', 'cache.size': 0 }, [1_700_000_000, 200_000_000]);
  root.addEvent('no-attributes', [1_700_000_000, 300_000_000]);
  root.recordException(new TypeError('bad cart'), [1_700_000_000, 400_000_000]);
  root.addEvent('dropped-1');
  root.addEvent('dropped-2'); // eventCountLimit 3: two events dropped
  for (let i = 0; i < 20; i++) root.setAttribute(`extra.${i}`, i); // attributeCountLimit 24: 16 dropped
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'cart service failed' });

  const child = tracer.startSpan(
    'SELECT cart',
    { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql' } },
    trace.setSpan(context.active(), root),
  );
  child.setStatus({ code: SpanStatusCode.OK });
  child.end([1_700_000_001, 0]);
  root.end([1_700_000_002, 999_999_999]);

  // Other kinds, the default scope, UNSET status, a second resource.
  const other = providerA.getTracer('other-lib');
  for (const kind of [SpanKind.INTERNAL, SpanKind.PRODUCER, SpanKind.CONSUMER])
    other.startSpan(`kind-${kind}`, { kind }).end();
  providerB.getTracer('payments-lib', '0.0.1').startSpan('charge').end();

  return exporter.getFinishedSpans();
}

function buildLogs() {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'logs-svc' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('app-logger', '1.2.3', {
    schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
    attributes: { 'scope.attr': 'yes', 'scope.n': 2 },
  });
  const plainLogger = provider.getLogger('plain');
  const spanContext = trace.setSpanContext(context.active(), {
    traceId: TRACE_ID,
    spanId: REMOTE_PARENT_ID,
    traceFlags: TraceFlags.SAMPLED,
  });

  // Every record carries a unique `seq` attribute (last) so it can be identified in the output.
  let seq = 0;
  const emit = (target: typeof logger, record: Parameters<typeof logger.emit>[0]) =>
    target.emit({ ...record, attributes: { ...record.attributes, seq: ++seq } });

  emit(logger, {
    body: 'user logged in',
    severityNumber: SeverityNumber.INFO,
    severityText: 'INFO',
    timestamp: [1_700_000_000, 1],
    observedTimestamp: [1_700_000_000, 2],
    attributes: { 'user.id': 'u-1', attempt: 2, bytes: new Uint8Array([0, 1, 2, 250, 255]) },
    context: spanContext,
  });
  emit(logger, {
    eventName: 'browser.web_vital',
    body: {
      name: 'LCP',
      value: 2500.5,
      count: 0,
      big: 2 ** 60,
      ok: false,
      empty: '',
      tags: ['a', 1, true, 0.5, { nested: 'map-in-array' }],
      nested: { deeper: { deepest: [[1, 2], []] } },
      raw: new Uint8Array([104, 105]),
      nothing: null,
    },
    severityNumber: SeverityNumber.WARN2,
    timestamp: [1_700_000_001, 0],
    attributes: { 'map.attr': { a: 1, b: { c: 'd' } }, 'arr.attr': [{ k: 'v' }, [1, 2]] },
  });
  emit(logger, { body: new Uint8Array([1, 2, 3]), severityNumber: SeverityNumber.FATAL4, severityText: 'FATAL' });
  emit(logger, { body: ['list', 'body', -3] });
  emit(logger, { body: -(2 ** 62), severityNumber: SeverityNumber.UNSPECIFIED });
  emit(logger, {}); // no body, no severity, no timestamp
  emit(logger, { body: null });
  emit(plainLogger, { body: 1.5, severityNumber: SeverityNumber.ERROR, context: spanContext });
  return exporter.getFinishedLogRecords();
}

class CollectingReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

async function buildMetrics(temporality: AggregationTemporality): Promise<ResourceMetrics> {
  const reader = new CollectingReader({ aggregationTemporalitySelector: () => temporality });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'metrics-svc', 'k8s.pod.uid': 'abc' }),
    readers: [reader],
    views: [{ instrumentName: 'latency.exp', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
  });
  const meter = provider.getMeter('metrics-lib', '3.0.0', { schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' });

  const requests = meter.createCounter('http.requests', {
    description: 'Requests',
    unit: '{request}',
    valueType: ValueType.INT,
  });
  requests.add(3, { route: '/a', code: 200 });
  requests.add(2 ** 53 + 2, { route: '/big' }); // asInt beyond 2^53
  requests.add(0, { route: '/zero' }); // asInt 0: oneof member, must be kept

  const bytesOut = meter.createCounter('bytes.out', { unit: 'By' }); // DOUBLE by default
  bytesOut.add(12.5);
  bytesOut.add(0, { zero: true });

  const inflight = meter.createUpDownCounter('http.inflight', { valueType: ValueType.INT });
  inflight.add(5, { pool: 'a' });
  inflight.add(-9, { pool: 'a' });
  inflight.add(-(2 ** 40), { pool: 'b' });

  const temperature = meter.createGauge('room.temperature', { unit: 'Cel' });
  temperature.record(21.5, { room: 'kitchen' });
  temperature.record(-3.25, { room: 'freezer' });
  temperature.record(0, { room: 'calibration' });

  meter
    .createObservableGauge('queue.depth', { valueType: ValueType.INT })
    .addCallback((result) => result.observe(17, { queue: 'q1' }));

  const latency = meter.createHistogram('latency', {
    unit: 'ms',
    advice: { explicitBucketBoundaries: [0, 5, 10, 100] },
  });
  for (const v of [0, 1, 4, 7, 50, 500, 0.25]) latency.record(v, { route: '/a' });
  latency.record(0, { route: '/only-zero' }); // sum 0, min 0, max 0: explicit-presence zeros

  const expLatency = meter.createHistogram('latency.exp', { unit: 's' });
  for (const v of [0, 0, 0.001, 1, 2, 3, 1000, 123456.789]) expLatency.record(v);
  expLatency.record(5, { single: 'yes' });

  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  await provider.shutdown();
  return resourceMetrics;
}

// ------------------------------------------------------------------------------------------------
// Tests
// ------------------------------------------------------------------------------------------------
describe('OTLP protobuf schema', () => {
  it('parses once and tracks a stated opentelemetry-proto version', () => {
    expect(OTLP_PROTO_VERSION).toMatch(/^1\.\d+\.\d+$/);
    expect(OTLP_PROTO_SOURCE).toContain('syntax = "proto3"');
    expect(getOtlpRoot()).toBe(getOtlpRoot());
    for (const signal of SIGNALS) {
      expect(getOtlpType(OTLP_MESSAGES[signal].request).name).toMatch(/^Export\w+ServiceRequest$/);
      expect(getOtlpType(OTLP_MESSAGES[signal].response).name).toMatch(/^Export\w+ServiceResponse$/);
    }
  });
});

describe('decodeOtlpProtobuf matches the OTLP/JSON serializer of @opentelemetry/otlp-transformer', () => {
  it('traces: rich spans (all attribute kinds, events, links, status, parents, trace state, dropped counts)', () => {
    const spans = buildSpans();
    const decoded = expectDecodesLikeJson(
      'traces',
      protobufOf(ProtobufTraceSerializer.serializeRequest(spans)),
      JsonTraceSerializer.serializeRequest(spans),
    ) as any;

    // Spot checks that do not depend on the canonicalisation.
    expect(decoded.resourceSpans).toHaveLength(2);
    const rs = decoded.resourceSpans[0];
    expect(rs.schemaUrl).toBe('https://opentelemetry.io/schemas/1.30.0');
    expect(rs.resource).not.toHaveProperty('droppedAttributesCount'); // 0 on the wire: omitted
    const scopeSpans = rs.scopeSpans.find((s: any) => s.scope.name === 'checkout-lib');
    expect(scopeSpans.schemaUrl).toBe('https://example.com/schema/1');
    const root = scopeSpans.spans.find((s: any) => s.name === 'GET /cart');
    expect(root.traceId).toBe(TRACE_ID);
    expect(root.parentSpanId).toBe(REMOTE_PARENT_ID);
    expect(root.traceState).toBe('vendor=abc,other=x:y');
    expect(root.kind).toBe(2);
    expect(root.flags).toBe(0x301); // sampled | HAS_IS_REMOTE | IS_REMOTE
    expect(root.startTimeUnixNano).toBe('1700000000123456789');
    expect(root.endTimeUnixNano).toBe('1700000002999999999');
    expect(root.status).toStrictEqual({ code: 2, message: 'cart service failed' });
    expect(root.droppedAttributesCount).toBe(16);
    expect(root.droppedEventsCount).toBe(2);
    expect(root.droppedLinksCount).toBe(1);
    const attr = (key: string) => root.attributes.find((a: any) => a.key === key)?.value;
    expect(attr('int.2^53+2')).toStrictEqual({ intValue: '9007199254740994' });
    expect(attr('int.-2^63')).toStrictEqual({ intValue: '-9223372036854775808' });
    expect(attr('int.zero')).toStrictEqual({ intValue: '0' });
    expect(attr('str.empty')).toStrictEqual({ stringValue: '' });
    expect(attr('bool.false')).toStrictEqual({ boolValue: false });
    expect(attr('array.empty')).toStrictEqual({ arrayValue: {} });
    expect(attr('array.with_null')).toStrictEqual({
      arrayValue: { values: [{ stringValue: 'x' }, {}, { stringValue: 'z' }] },
    });
    expect(root.links).toHaveLength(2);
    expect(root.links[0]).toMatchObject({
      traceId: LINKED_TRACE_ID,
      spanId: LINKED_SPAN_ID,
      traceState: 'k=v',
      flags: 0x300,
    });
    expect(root.links[0].attributes).toHaveLength(2);
    expect(root.links[1]).toStrictEqual({ traceId: LINKED_TRACE_ID, spanId: '1111111111111111', flags: 0x101 });
    const child = scopeSpans.spans.find((s: any) => s.name === 'SELECT cart');
    expect(child.parentSpanId).toBe(root.spanId);
    expect(child.status).toStrictEqual({ code: 1 });
    const charge = decoded.resourceSpans[1].scopeSpans[0].spans[0];
    expect(charge.status).toStrictEqual({}); // UNSET: empty message still present
    expect(charge).not.toHaveProperty('parentSpanId');
  });

  it('logs: string/map/bytes/array/int/double bodies, severities, trace context, event name, scope attributes', () => {
    const logs = buildLogs();
    const bodiless = new Set(logs.filter((r) => r.body === undefined).map((r) => String(r.attributes['seq'])));
    expect(bodiless.size).toBe(1);
    const decoded = expectDecodesLikeJson(
      'logs',
      protobufOf(ProtobufLogsSerializer.serializeRequest(logs)),
      JsonLogsSerializer.serializeRequest(logs),
      dropBodyOfBodilessLogs(bodiless),
    ) as any;

    const scopeLogs = decoded.resourceLogs[0].scopeLogs;
    const app = scopeLogs.find((s: any) => s.scope.name === 'app-logger');
    expect(app.scope).toMatchObject({ version: '1.2.3', attributes: [{ key: 'scope.attr' }, { key: 'scope.n' }] });
    const [first, second, third, , fifth, sixth, seventh] = app.logRecords;
    expect(first).toMatchObject({
      timeUnixNano: '1700000000000000001',
      observedTimeUnixNano: '1700000000000000002',
      severityNumber: 9,
      severityText: 'INFO',
      body: { stringValue: 'user logged in' },
      traceId: TRACE_ID,
      spanId: REMOTE_PARENT_ID,
      flags: 1,
    });
    expect(first.attributes.find((a: any) => a.key === 'bytes').value).toStrictEqual({ bytesValue: 'AAEC+v8=' });
    expect(second.eventName).toBe('browser.web_vital');
    const body = Object.fromEntries(second.body.kvlistValue.values.map((kv: any) => [kv.key, kv.value]));
    expect(body.big).toStrictEqual({ intValue: '1152921504606846976' });
    expect(body.count).toStrictEqual({ intValue: '0' });
    expect(body.raw).toStrictEqual({ bytesValue: 'aGk=' });
    expect(body.nothing).toStrictEqual({});
    expect(third.body).toStrictEqual({ bytesValue: 'AQID' });
    expect(fifth.body).toStrictEqual({ intValue: '-4611686018427387904' });
    expect(fifth).not.toHaveProperty('severityNumber');
    expect(sixth).not.toHaveProperty('body');
    expect(sixth).not.toHaveProperty('traceId');
    expect(seventh.body).toStrictEqual({}); // null body: an empty AnyValue on the wire
  });

  for (const temporality of [AggregationTemporality.CUMULATIVE, AggregationTemporality.DELTA]) {
    it(`metrics (${AggregationTemporality[temporality]}): counters, up-down counter, gauges, histogram, exponential histogram`, async () => {
      const metrics = await buildMetrics(temporality);
      const decoded = expectDecodesLikeJson(
        'metrics',
        protobufOf(ProtobufMetricsSerializer.serializeRequest(metrics)),
        JsonMetricsSerializer.serializeRequest(metrics),
      ) as any;

      const all = decoded.resourceMetrics[0].scopeMetrics[0].metrics;
      const byName = (name: string) => all.find((m: any) => m.name === name);
      const otlpTemporality = temporality === AggregationTemporality.DELTA ? 1 : 2;

      const requests = byName('http.requests');
      expect(Object.keys(requests).sort()).toEqual(['description', 'name', 'sum', 'unit']); // oneof: only `sum`
      expect(requests.sum).toMatchObject({ aggregationTemporality: otlpTemporality, isMonotonic: true });
      const points = requests.sum.dataPoints;
      expect(points.map((p: any) => p.asInt).sort()).toEqual(['0', '3', '9007199254740994']);

      const inflight = byName('http.inflight');
      expect(inflight.sum).not.toHaveProperty('isMonotonic'); // false: omitted
      expect(inflight.sum.dataPoints.map((p: any) => p.asInt).sort()).toEqual(['-1099511627776', '-4']);

      expect(
        byName('bytes.out')
          .sum.dataPoints.map((p: any) => p.asDouble)
          .sort(),
      ).toEqual([0, 12.5]);
      expect(
        byName('room.temperature')
          .gauge.dataPoints.map((p: any) => p.asDouble)
          .sort(),
      ).toEqual([-3.25, 0, 21.5]);
      expect(byName('queue.depth').gauge.dataPoints[0].asInt).toBe('17');

      const hist = byName('latency').histogram;
      const point = hist.dataPoints.find((p: any) => p.attributes[0].value.stringValue === '/a');
      expect(point).toMatchObject({
        count: '7',
        sum: 562.25,
        min: 0,
        max: 500,
        explicitBounds: [0, 5, 10, 100],
        bucketCounts: ['1', '3', '1', '1', '1'],
      });
      const zero = hist.dataPoints.find((p: any) => p.attributes[0].value.stringValue === '/only-zero');
      expect(zero).toMatchObject({ count: '1', sum: 0, min: 0, max: 0 });

      const exp = byName('latency.exp').exponentialHistogram;
      const expPoint = exp.dataPoints.find((p: any) => p.attributes === undefined);
      expect(expPoint).toMatchObject({ count: '8', zeroCount: '2', min: 0, max: 123456.789 });
      expect(typeof expPoint.scale).toBe('number');
      expect(expPoint.positive.bucketCounts.every((c: unknown) => typeof c === 'string')).toBe(true);
    });
  }

  it('an empty export (no spans / logs / metrics) decodes to {} and matches', () => {
    expect(decodeOtlpProtobuf('traces', protobufOf(ProtobufTraceSerializer.serializeRequest([])))).toStrictEqual({});
    expect(decodeOtlpProtobuf('logs', protobufOf(ProtobufLogsSerializer.serializeRequest([])))).toStrictEqual({});
  });
});

describe('protojson semantics on hand-built messages', () => {
  const writer = () => protobuf.Writer.create();
  const anyValue = (build: (w: protobuf.Writer) => void) => {
    // ExportLogsServiceRequest{ resource_logs { scope_logs { log_records { body = <AnyValue> } } } }
    const av = writer();
    build(av);
    const rec = writer()
      .uint32((5 << 3) | 2)
      .bytes(av.finish())
      .finish();
    const sl = writer()
      .uint32((2 << 3) | 2)
      .bytes(rec)
      .finish();
    const rl = writer()
      .uint32((2 << 3) | 2)
      .bytes(sl)
      .finish();
    return writer()
      .uint32((1 << 3) | 2)
      .bytes(rl)
      .finish();
  };
  const bodyOf = (bytes: Uint8Array) =>
    (decodeOtlpProtobuf('logs', bytes) as any).resourceLogs[0].scopeLogs[0].logRecords[0].body;

  it('keeps oneof members that hold default values and emits 64-bit ints as exact strings', () => {
    expect(bodyOf(anyValue((w) => w.uint32((3 << 3) | 0).int64(0)))).toStrictEqual({ intValue: '0' });
    expect(bodyOf(anyValue((w) => w.uint32((3 << 3) | 0).int64('9223372036854775807')))).toStrictEqual({
      intValue: '9223372036854775807',
    });
    expect(bodyOf(anyValue((w) => w.uint32((3 << 3) | 0).int64('-9007199254740993')))).toStrictEqual({
      intValue: '-9007199254740993',
    });
    expect(bodyOf(anyValue((w) => w.uint32((4 << 3) | 1).double(0)))).toStrictEqual({ doubleValue: 0 });
    expect(bodyOf(anyValue((w) => w.uint32((7 << 3) | 2).bytes(new Uint8Array())))).toStrictEqual({ bytesValue: '' });
    expect(bodyOf(anyValue(() => undefined))).toStrictEqual({});
  });

  it('writes non-finite doubles as protojson strings', () => {
    expect(bodyOf(anyValue((w) => w.uint32((4 << 3) | 1).double(Number.NaN)))).toStrictEqual({ doubleValue: 'NaN' });
    expect(bodyOf(anyValue((w) => w.uint32((4 << 3) | 1).double(Infinity)))).toStrictEqual({ doubleValue: 'Infinity' });
    expect(bodyOf(anyValue((w) => w.uint32((4 << 3) | 1).double(-Infinity)))).toStrictEqual({
      doubleValue: '-Infinity',
    });
  });

  it('last oneof member wins; singular scalars are last-one-wins; singular messages merge', () => {
    const both = anyValue((w) =>
      w
        .uint32((1 << 3) | 2)
        .string('s')
        .uint32((3 << 3) | 0)
        .int64(5),
    );
    expect(bodyOf(both)).toStrictEqual({ intValue: '5' });

    const scopeA = writer()
      .uint32((1 << 3) | 2)
      .string('a')
      .uint32((2 << 3) | 2)
      .string('1.0')
      .finish();
    const scopeB = writer()
      .uint32((1 << 3) | 2)
      .string('b')
      .finish();
    const scopeZero = writer()
      .uint32((2 << 3) | 2)
      .string('')
      .finish(); // explicit default resets
    const ss = writer()
      .uint32((1 << 3) | 2)
      .bytes(scopeA)
      .uint32((1 << 3) | 2)
      .bytes(scopeB)
      .uint32((1 << 3) | 2)
      .bytes(scopeZero)
      .finish();
    const rs = writer()
      .uint32((2 << 3) | 2)
      .bytes(ss)
      .finish();
    const req = writer()
      .uint32((1 << 3) | 2)
      .bytes(rs)
      .finish();
    expect(decodeOtlpProtobuf('traces', req)).toStrictEqual({
      resourceSpans: [{ scopeSpans: [{ scope: { name: 'b' } }] }],
    });
  });

  it('omits explicitly encoded implicit-presence defaults but keeps present sub-messages', () => {
    const span = writer()
      .uint32((5 << 3) | 2)
      .string('') // name ""
      .uint32((6 << 3) | 0)
      .uint32(0) // kind 0
      .uint32((7 << 3) | 1)
      .fixed64(0) // start 0
      .uint32((10 << 3) | 0)
      .uint32(0) // dropped 0
      .uint32((1 << 3) | 2)
      .bytes(new Uint8Array()) // trace_id empty
      .uint32((15 << 3) | 2)
      .bytes(new Uint8Array()) // status {}
      .finish();
    const ss = writer()
      .uint32((2 << 3) | 2)
      .bytes(span)
      .finish();
    const rs = writer()
      .uint32((2 << 3) | 2)
      .bytes(ss)
      .finish();
    const req = writer()
      .uint32((1 << 3) | 2)
      .bytes(rs)
      .finish();
    expect(decodeOtlpProtobuf('traces', req)).toStrictEqual({
      resourceSpans: [{ scopeSpans: [{ spans: [{ status: {} }] }] }],
    });
  });

  it('accepts packed and unpacked repeated scalars, and sint32 / sfixed64 / fixed32 edge values', () => {
    const root = getOtlpRoot();
    const Hdp = root.lookupType(`${PKG}.HistogramDataPoint`);
    const packed = Hdp.encode(
      Hdp.fromObject({ bucket_counts: [1, 0, '18446744073709551615'], explicit_bounds: [0.5, -1] }),
    ).finish();
    const unpacked = writer()
      .uint32((6 << 3) | 1)
      .fixed64(1)
      .uint32((6 << 3) | 1)
      .fixed64(0)
      .uint32((6 << 3) | 1)
      .fixed64('18446744073709551615')
      .uint32((7 << 3) | 1)
      .double(0.5)
      .uint32((7 << 3) | 1)
      .double(-1)
      .finish();
    const expected = { bucketCounts: ['1', '0', '18446744073709551615'], explicitBounds: [0.5, -1] };
    expect(decodeOtlpMessage(`${PKG}.HistogramDataPoint`, packed)).toStrictEqual(expected);
    expect(decodeOtlpMessage(`${PKG}.HistogramDataPoint`, unpacked)).toStrictEqual(expected);

    const Ehdp = root.lookupType(`${PKG}.ExponentialHistogramDataPoint`);
    const exp = Ehdp.encode(
      Ehdp.fromObject({
        scale: -3,
        positive: { offset: -2147483648, bucket_counts: [0, 7] },
        negative: {},
        sum: 0,
        flags: 1,
      }),
    ).finish();
    expect(decodeOtlpMessage(`${PKG}.ExponentialHistogramDataPoint`, exp)).toStrictEqual({
      scale: -3,
      positive: { offset: -2147483648, bucketCounts: ['0', '7'] },
      negative: {},
      sum: 0,
      flags: 1,
    });
  });

  it('decodes fields the JS SDK never produces: summary, exemplars, metadata, entity refs, flags', () => {
    const Req = getOtlpType(OTLP_MESSAGES.metrics.request);
    const traceId = Buffer.from(TRACE_ID, 'hex');
    const spanId = Buffer.from(LINKED_SPAN_ID, 'hex');
    const bytes = Req.encode(
      Req.fromObject({
        resource_metrics: [
          {
            resource: {
              attributes: [{ key: 'host.id', value: { string_value: 'h1' } }],
              dropped_attributes_count: 4,
              entity_refs: [{ type: 'host', id_keys: ['host.id'], description_keys: [], schema_url: 's' }],
            },
            scope_metrics: [
              {
                scope: { name: 's', dropped_attributes_count: 1 },
                metrics: [
                  {
                    name: 'rpc.duration',
                    metadata: [{ key: 'm', value: { bool_value: true } }],
                    summary: {
                      data_points: [
                        {
                          start_time_unix_nano: '1',
                          time_unix_nano: '18446744073709551615',
                          count: '3',
                          sum: 0,
                          quantile_values: [
                            { quantile: 0.5, value: 1.5 },
                            { quantile: 0, value: 0 },
                          ],
                          flags: 1,
                        },
                      ],
                    },
                  },
                  {
                    name: 'gauge.with.exemplars',
                    gauge: {
                      data_points: [
                        {
                          as_int: '-9223372036854775808',
                          exemplars: [
                            {
                              time_unix_nano: '5',
                              as_double: 0,
                              trace_id: traceId,
                              span_id: spanId,
                              filtered_attributes: [{ key: 'f', value: { double_value: 2.5 } }],
                            },
                            { as_int: 0 },
                          ],
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    ).finish();
    expect(decodeOtlpProtobuf('metrics', bytes)).toStrictEqual({
      resourceMetrics: [
        {
          resource: {
            attributes: [{ key: 'host.id', value: { stringValue: 'h1' } }],
            droppedAttributesCount: 4,
            entityRefs: [{ type: 'host', idKeys: ['host.id'], schemaUrl: 's' }],
          },
          scopeMetrics: [
            {
              scope: { name: 's', droppedAttributesCount: 1 },
              metrics: [
                {
                  name: 'rpc.duration',
                  metadata: [{ key: 'm', value: { boolValue: true } }],
                  summary: {
                    dataPoints: [
                      {
                        startTimeUnixNano: '1',
                        timeUnixNano: '18446744073709551615',
                        count: '3',
                        quantileValues: [{ quantile: 0.5, value: 1.5 }, {}],
                        flags: 1,
                      },
                    ],
                  },
                },
                {
                  name: 'gauge.with.exemplars',
                  gauge: {
                    dataPoints: [
                      {
                        asInt: '-9223372036854775808',
                        exemplars: [
                          {
                            timeUnixNano: '5',
                            asDouble: 0,
                            traceId: TRACE_ID,
                            spanId: LINKED_SPAN_ID,
                            filteredAttributes: [{ key: 'f', value: { doubleValue: 2.5 } }],
                          },
                          { asInt: '0' },
                        ],
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('every scalar kind agrees with protobufjs ProtoJSON (property test on a scratch schema)', () => {
    const scratch = protobuf.parse(
      `
      syntax = "proto3";
      message Scalars {
        double d = 1; float f = 2; int32 i32 = 3; int64 i64 = 4; uint32 u32 = 5; uint64 u64 = 6;
        sint32 s32 = 7; sint64 s64 = 8; fixed32 f32 = 9; fixed64 f64 = 10; sfixed32 sf32 = 11;
        sfixed64 sf64 = 12; bool b = 13; string s = 14; bytes raw = 15;
        repeated sint64 rs64 = 16; repeated int32 ri32 = 17; repeated double rd = 18; repeated string rs = 19;
        oneof choice { uint64 c_u64 = 20; string c_s = 21; }
      }`,
      { keepCase: true },
    ).root;
    const Scalars = scratch.lookupType('Scalars');
    const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
    const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
    // -0.0: protobufjs treats it as the default and drops it; protoc's C++/Go runtimes compare bit
    // patterns and keep it, as does the decoder. JSON cannot tell -0 from 0 anyway: excluded here.
    const double = fc.double().map((v) => (Object.is(v, -0) ? 0 : v));
    const float = fc.float().map((v) => (Object.is(v, -0) ? 0 : v));
    const scalars = fc.record(
      {
        d: double,
        f: float,
        i32: fc.integer(),
        i64,
        u32: fc.nat({ max: 0xffffffff }),
        u64,
        s32: fc.integer(),
        s64: i64,
        f32: fc.nat({ max: 0xffffffff }),
        f64: u64,
        sf32: fc.integer(),
        sf64: i64,
        b: fc.boolean(),
        s: fc.string({ unit: 'grapheme' }),
        raw: fc.uint8Array({ maxLength: 16 }),
        rs64: fc.array(i64, { maxLength: 4 }),
        ri32: fc.array(fc.integer(), { maxLength: 4 }),
        rd: fc.array(double, { maxLength: 4 }),
        rs: fc.array(fc.string(), { maxLength: 3 }),
        c_u64: u64,
        c_s: fc.string(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(scalars, (object) => {
        const bytes = Scalars.encode(Scalars.fromObject(object)).finish();
        const expected = protojson.toJson(Scalars, Scalars.decode(bytes)) as Record<string, unknown>;
        // protobufjs' ProtoJSON keeps proto field names for this scratch schema; map them to JSON names.
        const renamed = Object.fromEntries(Object.entries(expected).map(([k, v]) => [toJsonName(k), v]));
        expect(decodeMessageToJson(Scalars, bytes)).toStrictEqual(renamed);
      }),
      { numRuns: 500 },
    );
  });

  it('skips unknown fields of every wire type, including (deprecated) groups', () => {
    const span = writer()
      .uint32((5 << 3) | 2)
      .string('named')
      .uint32((100 << 3) | 0)
      .uint64('18446744073709551615')
      .uint32((101 << 3) | 1)
      .fixed64(1)
      .uint32((102 << 3) | 2)
      .bytes(new Uint8Array([1, 2, 3]))
      .uint32((103 << 3) | 5)
      .fixed32(1)
      .uint32((104 << 3) | 3) // start group 104
      .uint32((1 << 3) | 0)
      .uint32(1)
      .uint32((2 << 3) | 3)
      .uint32((2 << 3) | 4) // nested empty group 2
      .uint32((104 << 3) | 4) // end group 104
      .finish();
    const ss = writer()
      .uint32((2 << 3) | 2)
      .bytes(span)
      .finish();
    const rs = writer()
      .uint32((2 << 3) | 2)
      .bytes(ss)
      .uint32((1000 << 3) | 2)
      .string('reserved 1000')
      .finish();
    const req = writer()
      .uint32((1 << 3) | 2)
      .bytes(rs)
      .finish();
    expect(decodeOtlpProtobuf('traces', req)).toStrictEqual({
      resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'named' }] }] }],
    });
  });

  it('accepts an ArrayBuffer and a Buffer view with a non-zero offset', () => {
    const spans = buildSpans();
    const bytes = protobufOf(ProtobufTraceSerializer.serializeRequest(spans));
    const expected = decodeOtlpProtobuf('traces', bytes);
    const padded = Buffer.alloc(bytes.length + 7);
    padded.set(bytes, 7);
    expect(decodeOtlpProtobuf('traces', padded.subarray(7))).toStrictEqual(expected);
    expect(decodeOtlpProtobuf('traces', bytes.slice().buffer as ArrayBuffer)).toStrictEqual(expected);
  });
});

describe('malformed input always raises ProtobufDecodeError', () => {
  it('empty body decodes to {} for every signal', () => {
    for (const signal of SIGNALS) expect(decodeOtlpProtobuf(signal, new Uint8Array())).toStrictEqual({});
  });

  it('rejects garbage bytes', () => {
    expectDecodeError('traces', [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], /varint/);
    expectDecodeError('logs', Buffer.from('{"resourceLogs":[]}'), /wire type|truncated|field/);
    expectDecodeError('metrics', [0x00], /field number 0/);
    expectDecodeError('traces', [0x17], /invalid wire type 7/); // unknown field 2
    expectDecodeError('traces', [0x16], /invalid wire type 6/);
    expectDecodeError('traces', [0x14], /unexpected end-group/);
    expectDecodeError('traces', [0x13, 0x08, 0x01], /truncated/); // group never closed
    expectDecodeError('traces', [0x13, 0x1c], /does not match/); // group 2 closed as group 3
    expectDecodeError('traces', [0x0f], /wrong wire type 7 for field 1/); // known field 1
  });

  it('rejects every truncation of a valid request (and reports the offset)', () => {
    const bytes = protobufOf(ProtobufTraceSerializer.serializeRequest(buildSpans().slice(0, 1)));
    for (let n = 1; n < bytes.length; n++) {
      const err = expectDecodeError('traces', bytes.subarray(0, n));
      expect(err.offset).toBeGreaterThanOrEqual(0);
      expect(err.offset).toBeLessThanOrEqual(n);
    }
    expect(() => decodeOtlpProtobuf('traces', bytes)).not.toThrow();
  });

  it('rejects a known field with the wrong wire type, at the top level and nested', () => {
    expectDecodeError('traces', [0x08, 0x01], /wrong wire type 0 for field 1/); // resource_spans as varint
    // Span.name (5) sent as a varint inside a valid ResourceSpans/ScopeSpans/Span framing.
    const span = [0x28, 0x01];
    const ss = [0x12, span.length, ...span];
    const rs = [0x12, ss.length, ...ss];
    const err = expectDecodeError('traces', [0x0a, rs.length, ...rs], /wrong wire type 0 for field 5/);
    expect(err.message).toContain('Span.name');
    // Span.start_time_unix_nano (fixed64) sent as fixed32; AnyValue.int_value sent as fixed64.
    expectDecodeError('traces', [0x0a, 9, 0x12, 7, 0x12, 5, 0x3d, 1, 0, 0, 0], /wrong wire type 5 for field 7/);
    expectDecodeError(
      'logs',
      [0x0a, 15, 0x12, 13, 0x12, 11, 0x2a, 9, 0x19, 1, 0, 0, 0, 0, 0, 0, 0],
      /wrong wire type 1 for field 3/,
    );
  });

  it('rejects lengths that overrun the input or the enclosing message, without allocating them', () => {
    expectDecodeError('traces', [0x0a, 0xff, 0xff, 0xff, 0xff, 0x07], /truncated/); // 2 GiB announced
    expectDecodeError('traces', [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], /invalid length/); // > 2^31
    expectDecodeError('traces', [0x0a, 0x02, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00], /enclosing message/);
    expectDecodeError('metrics', [0x0a, 0x01, 0x80, 0x00], /enclosing message/); // tag varint cut by the message end
  });

  it('rejects invalid UTF-8 in string fields', () => {
    const span = [0x2a, 0x02, 0xc3, 0x28]; // name = invalid 2-byte sequence
    const ss = [0x12, span.length, ...span];
    const rs = [0x12, ss.length, ...ss];
    expectDecodeError('traces', [0x0a, rs.length, ...rs], /UTF-8/);
  });

  it('rejects nesting beyond the limit quickly instead of overflowing the stack', () => {
    // AnyValue{array_value{values{array_value{...}}}} 100k levels deep: lengths are computed
    // inside-out first, then the bytes are written outside-in in one pass.
    const depth = 100_000;
    const lengths = new Array<number>(depth);
    let len = 0;
    const varintSize = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);
    for (let i = depth - 1; i >= 0; i--) {
      lengths[i] = len; // length of the payload inside level i's ArrayValue.values AnyValue
      const arrayValueLen = 1 + varintSize(len) + len; // ArrayValue{ values: AnyValue(len) }
      len = 1 + varintSize(arrayValueLen) + arrayValueLen; // AnyValue{ array_value: ArrayValue }
    }
    const body = protobuf.Writer.create();
    for (let i = 0; i < depth; i++) {
      const payload = lengths[i] as number;
      const arrayValueLen = 1 + varintSize(payload) + payload;
      body
        .uint32((5 << 3) | 2)
        .uint32(arrayValueLen)
        .uint32((1 << 3) | 2)
        .uint32(payload);
    }
    const inner = body.finish();
    expect(inner.length).toBe(len);
    const rec = protobuf.Writer.create()
      .uint32((5 << 3) | 2)
      .bytes(inner)
      .finish();
    const sl = protobuf.Writer.create()
      .uint32((2 << 3) | 2)
      .bytes(rec)
      .finish();
    const rl = protobuf.Writer.create()
      .uint32((2 << 3) | 2)
      .bytes(sl)
      .finish();
    const req = protobuf.Writer.create()
      .uint32((1 << 3) | 2)
      .bytes(rl)
      .finish();
    // Quickly, counted in bytes rather than milliseconds: decoding stops where level 101 begins, a few bytes per level
    // into the body, instead of walking (or recursing through) all of its levels first.
    const err = expectDecodeError('logs', req, /nesting deeper than 100/);
    expect(err.offset).toBeDefined();
    expect(err.offset!).toBeLessThan(req.length - inner.length + 101 * 12);

    // Nested unknown groups are depth-limited too.
    const groups = [
      ...Array<number>(10_000)
        .fill(0x9b)
        .flatMap((b) => [b, 0x06]),
    ]; // field 99 start-group (2-byte tag)
    expectDecodeError('traces', groups, /nesting deeper than 100|truncated/);
  });

  it('fuzz: random bytes never raise anything but ProtobufDecodeError', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SIGNALS), fc.uint8Array({ maxLength: 512 }), (signal, bytes) => {
        decodesOrRejectsCleanly(signal, bytes);
      }),
      { numRuns: 3000 },
    );
  });

  it('fuzz: mutated valid requests never raise anything but ProtobufDecodeError', async () => {
    const samples: Array<[OtlpSignal, Uint8Array]> = [
      ['traces', protobufOf(ProtobufTraceSerializer.serializeRequest(buildSpans()))],
      ['logs', protobufOf(ProtobufLogsSerializer.serializeRequest(buildLogs()))],
      [
        'metrics',
        protobufOf(ProtobufMetricsSerializer.serializeRequest(await buildMetrics(AggregationTemporality.CUMULATIVE))),
      ],
    ];
    const mutation = fc.record({
      sample: fc.nat({ max: samples.length - 1 }),
      edits: fc.array(
        fc.record({
          at: fc.nat(),
          kind: fc.constantFrom('flip', 'set', 'delete', 'insert'),
          byte: fc.nat({ max: 255 }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      truncateTo: fc.option(fc.nat(), { nil: undefined }),
    });
    fc.assert(
      fc.property(mutation, ({ sample, edits, truncateTo }) => {
        const [signal, original] = samples[sample] as [OtlpSignal, Uint8Array];
        const bytes = Array.from(original);
        for (const { at, kind, byte } of edits) {
          const i = at % (bytes.length + 1);
          if (kind === 'flip') bytes[i % bytes.length] = (bytes[i % bytes.length] as number) ^ (1 << (byte % 8));
          else if (kind === 'set') bytes[i % bytes.length] = byte;
          else if (kind === 'delete') bytes.splice(i, 1);
          else bytes.splice(i, 0, byte);
        }
        const mutated = Uint8Array.from(
          truncateTo === undefined ? bytes : bytes.slice(0, truncateTo % (bytes.length + 1)),
        );
        decodesOrRejectsCleanly(signal, mutated);
      }),
      { numRuns: 2000 },
    );
  });

  it('a caller bug (unknown signal) is a TypeError, not a decode error', () => {
    expect(() => decodeOtlpProtobuf('profiles' as OtlpSignal, new Uint8Array())).toThrow(TypeError);
  });
});

describe('encodeOtlpProtobufResponse', () => {
  const deserializers = {
    traces: ProtobufTraceSerializer,
    logs: ProtobufLogsSerializer,
    metrics: ProtobufMetricsSerializer,
  } as const;
  const counterField = { traces: 'rejectedSpans', logs: 'rejectedLogRecords', metrics: 'rejectedDataPoints' } as const;

  for (const signal of SIGNALS) {
    it(`${signal}: full success is an empty message`, () => {
      const bytes = encodeOtlpProtobufResponse(signal);
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(bytes.length).toBe(0);
      expect(decodeOtlpMessage(OTLP_MESSAGES[signal].response, bytes)).toStrictEqual({});
      expect(deserializers[signal].deserializeResponse(bytes)).toEqual({});
    });

    it(`${signal}: partial success round-trips through the schema and the OpenTelemetry client`, () => {
      const bytes = encodeOtlpProtobufResponse(signal, { rejected: 3, errorMessage: 'dropped 3 (too old)' });
      const type = getOtlpType(OTLP_MESSAGES[signal].response);
      const asObject = type.toObject(type.decode(bytes), { longs: String });
      expect(asObject).toStrictEqual({
        partial_success: { [OTLP_MESSAGES[signal].rejectedField]: '3', error_message: 'dropped 3 (too old)' },
      });
      expect(decodeOtlpMessage(OTLP_MESSAGES[signal].response, bytes)).toStrictEqual({
        partialSuccess: { [counterField[signal]]: '3', errorMessage: 'dropped 3 (too old)' },
      });
      // The OpenTelemetry JS exporter's own response parser reads the same thing.
      const parsed = deserializers[signal].deserializeResponse(bytes) as { partialSuccess?: Record<string, unknown> };
      expect(parsed.partialSuccess?.errorMessage).toBe('dropped 3 (too old)');
      expect(Number(parsed.partialSuccess?.[counterField[signal]])).toBe(3);
    });

    it(`${signal}: a warning-only partial success (0 rejected) keeps the partial_success message`, () => {
      const bytes = encodeOtlpProtobufResponse(signal, { rejected: 0, errorMessage: 'heads up' });
      expect(decodeOtlpMessage(OTLP_MESSAGES[signal].response, bytes)).toStrictEqual({
        partialSuccess: { errorMessage: 'heads up' },
      });
      expect(
        decodeOtlpMessage(
          OTLP_MESSAGES[signal].response,
          encodeOtlpProtobufResponse(signal, { rejected: 0, errorMessage: '' }),
        ),
      ).toStrictEqual({
        partialSuccess: {},
      });
    });
  }

  it('rejects invalid counters', () => {
    expect(() => encodeOtlpProtobufResponse('traces', { rejected: -1, errorMessage: '' })).toThrow(RangeError);
    expect(() => encodeOtlpProtobufResponse('traces', { rejected: 1.5, errorMessage: '' })).toThrow(RangeError);
    expect(() => encodeOtlpProtobufResponse('traces', { rejected: Number.NaN, errorMessage: '' })).toThrow(RangeError);
  });
});
