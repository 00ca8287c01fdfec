/**
 * Property-based fuzzing of every ingest endpoint against a real server, on every database kind.
 *
 * Valid OTLP/JSON, OTLP/protobuf, replay chunk and recipe bodies are generated from arbitraries, then mutated (fields
 * deleted, types swapped, ids of the wrong length, huge/negative/fractional numbers, deep nesting, random JSON) or
 * replaced by hostile input (random bytes, random protobuf, wrong content types, broken gzip, wrong keys). For every
 * request the server must answer without a 5xx, and every non-2xx must carry the one error shape.
 *
 * Nothing invalid may be stored: every generated body carries a unique tag (as `session.id`, `fuzz.tag` attributes,
 * or replay session/replay ids). Tags are assigned when a request is sent (never by the arbitraries, so fast-check's
 * shrinking replays get fresh ones). After the run the database must hold exactly the rows the 2xx-acknowledged
 * requests carried (counted from the bytes that were actually sent), only tags of acknowledged requests, every row of
 * every valid request, and session counters that agree with the rows.
 */
import { randomBytes } from 'node:crypto';
import { deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLP_PROTO_SOURCE } from '../../server/src/otlp/protobuf/schema';
import { databaseKinds, type DatabaseKind } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';

// ------------------------------------------------------------------------------------------------ endpoints

type Signal = 'traces' | 'logs' | 'metrics';
type Endpoint = Signal | 'chunk' | 'recipes';
type Table = 'spans' | 'logs' | 'metric_points' | 'replay_chunks' | 'recipes';

const PATH: Record<Endpoint, string> = {
  traces: '/otlp/v1/traces',
  logs: '/otlp/v1/logs',
  metrics: '/otlp/v1/metrics',
  chunk: '/ingest/replay/chunk',
  recipes: '/ingest/replay/recipes',
};
const TABLE: Record<Endpoint, Table> = {
  traces: 'spans',
  logs: 'logs',
  metrics: 'metric_points',
  chunk: 'replay_chunks',
  recipes: 'recipes',
};
const TABLES: Table[] = ['spans', 'logs', 'metric_points', 'replay_chunks', 'recipes'];
const SESSION_COUNTER: Record<Table, string> = {
  spans: 'span_count',
  logs: 'log_count',
  metric_points: 'metric_count',
  replay_chunks: 'replay_chunk_count',
  recipes: 'recipe_count',
};
const SIGNALS: Signal[] = ['traces', 'logs', 'metrics'];
const ENDPOINTS: Endpoint[] = ['traces', 'logs', 'metrics', 'chunk', 'recipes'];

/** Stands for the request's unique tag in generated bodies; replaced when the request is sent. */
const TAG = '\u0001TAG\u0001';

// ------------------------------------------------------------------------------------------------ protobuf

/**
 * An encoder independent of the server's decoder: protobufjs over the same .proto text, with protobufjs' own
 * (camelCase) field naming, so a valid OTLP/JSON object converts with `fromObject` after ids become bytes.
 */
const protoRoot = protobuf.parse(OTLP_PROTO_SOURCE, { keepCase: false }).root;
protoRoot.resolveAll();
const REQUEST_TYPE: Record<Signal, protobuf.Type> = {
  traces: protoRoot.lookupType('opentelemetry.proto.ExportTraceServiceRequest'),
  logs: protoRoot.lookupType('opentelemetry.proto.ExportLogsServiceRequest'),
  metrics: protoRoot.lookupType('opentelemetry.proto.ExportMetricsServiceRequest'),
};
const RESPONSE_TYPE: Record<Signal, protobuf.Type> = {
  traces: protoRoot.lookupType('opentelemetry.proto.ExportTraceServiceResponse'),
  logs: protoRoot.lookupType('opentelemetry.proto.ExportLogsServiceResponse'),
  metrics: protoRoot.lookupType('opentelemetry.proto.ExportMetricsServiceResponse'),
};
const HEX_ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** protobufjs form of an OTLP/JSON object: hex ids as bytes; strings well-formed (protobuf strings are UTF-8). */
function toProtoObject(v: unknown, key = ''): unknown {
  if (HEX_ID_KEYS.has(key) && typeof v === 'string') return Buffer.from(v, 'hex');
  if (typeof v === 'string') return v.replace(LONE_SURROGATE, '\ufffd');
  if (Array.isArray(v)) return v.map((x) => toProtoObject(x));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toProtoObject(x, k)]));
  return v;
}

function encodeProtobuf(signal: Signal, body: unknown): Uint8Array {
  const type = REQUEST_TYPE[signal];
  return type.encode(type.fromObject(toProtoObject(body) as Record<string, unknown>)).finish();
}

// ------------------------------------------------------------------------------------------------ valid bodies

const MAX_U64 = 2n ** 64n - 1n;
const MAX_TS = 8_640_000_000_000_000;

/**
 * Free text that the server must accept anywhere. U+0000 is left out: it is refused in plain-text columns (PostgreSQL
 * cannot store it), which the dedicated test below covers.
 */
const textArb = (_kind: DatabaseKind, maxLength = 24) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength }).map((s) => s.replaceAll('\u0000', '')) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength }).map((s) => s.replaceAll('\u0000', '')) },
    { weight: 1, arbitrary: fc.constantFrom('\ud800', 'a\udfffb', '😀', '\u202e', '"\\', '') },
  );

const nonEmptyText = (kind: DatabaseKind) => textArb(kind).map((s) => s || 'n');

/** A non-zero id of `bytes` bytes as hex, sometimes upper case (the server lowercases). */
const idArb = (bytes: 8 | 16) =>
  fc.tuple(fc.uint8Array({ minLength: bytes, maxLength: bytes }), fc.boolean()).map(([b, upper]) => {
    b[bytes - 1] = b[bytes - 1]! | 1;
    const hex = Buffer.from(b).toString('hex');
    return upper ? hex.toUpperCase() : hex;
  });

/** A uint64 in OTLP/JSON: a decimal string, or a number when it is a safe integer. */
const u64 = (n: bigint, asNumber: boolean): string | number =>
  asNumber && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();

const nanosArb = fc.oneof(
  { weight: 5, arbitrary: fc.bigInt({ min: 1_600_000_000_000_000_000n, max: 1_900_000_000_000_000_000n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: MAX_U64 }) },
  { weight: 1, arbitrary: fc.constantFrom(0n, 1n, MAX_U64) },
);
const timeRangeArb = fc
  .tuple(nanosArb, fc.bigInt({ min: 0n, max: 10_000_000_000n }), fc.boolean(), fc.boolean())
  .map(([start, dur, a, b]) => {
    const end = start + dur > MAX_U64 ? MAX_U64 : start + dur;
    return { start: u64(start, a), end: u64(end, b) };
  });

const int64Arb = fc.oneof(fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String));
const doubleArb = fc.oneof(
  { weight: 5, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom('NaN', 'Infinity', '-Infinity', -0, 5e-324, 1.7976931348623157e308) },
);

/** AnyValue, nested at most 4 levels (the server accepts 16). */
function anyValueArb(kind: DatabaseKind): fc.Arbitrary<Record<string, unknown>> {
  const text = textArb(kind);
  return fc.letrec<{ value: Record<string, unknown> }>((tie) => ({
    value: fc.oneof(
      { maxDepth: 4, depthSize: 'small' },
      text.map((s) => ({ stringValue: s })),
      fc.boolean().map((b) => ({ boolValue: b })),
      int64Arb.map((i) => ({ intValue: i })),
      doubleArb.map((d) => ({ doubleValue: d })),
      fc.uint8Array({ maxLength: 12 }).map((b) => ({ bytesValue: Buffer.from(b).toString('base64') })),
      fc.array(tie('value'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
      fc
        .array(fc.record({ key: text.map((k) => k || 'k'), value: tie('value') }), { maxLength: 3 })
        .map((values) => ({ kvlistValue: { values } })),
    ),
  })).value;
}

const kv = (key: string, value: unknown) => ({ key, value });
const tagAttr = () => kv('fuzz.tag', { stringValue: TAG });

/** Attribute keys are non-empty (the OTel spec requires it; an empty key cannot be told from none in protobuf). */
function attributesArb(kind: DatabaseKind, maxLength = 4) {
  return fc.array(fc.record({ key: nonEmptyText(kind), value: anyValueArb(kind) }), { maxLength });
}

/** Resource with `service.name` = web-app, the tag as `session.id` and `fuzz.tag`, and random attributes. */
function resourceArb(kind: DatabaseKind) {
  return attributesArb(kind, 3).map((extra) => ({
    attributes: [
      ...extra.filter((a) => a.key !== 'service.name' && a.key !== 'session.id'),
      kv('service.name', { stringValue: 'web-app' }),
      kv('session.id', { stringValue: TAG }),
      tagAttr(),
    ],
  }));
}

function scopeArb(kind: DatabaseKind) {
  return fc.record(
    { name: textArb(kind), version: textArb(kind, 8), attributes: attributesArb(kind, 2) },
    { requiredKeys: [] },
  );
}

function spanArb(kind: DatabaseKind) {
  const text = textArb(kind);
  return fc
    .record({
      traceId: idArb(16),
      spanId: idArb(8),
      parentSpanId: fc.option(idArb(8), { nil: undefined }),
      name: text,
      kind: fc.integer({ min: 0, max: 5 }),
      time: timeRangeArb,
      attributes: attributesArb(kind),
      events: fc.array(
        fc.record({ timeUnixNano: nanosArb.map((n) => n.toString()), name: text, attributes: attributesArb(kind, 2) }),
        { maxLength: 2 },
      ),
      links: fc.array(
        fc.record({
          traceId: idArb(16),
          spanId: idArb(8),
          traceState: fc.constantFrom('', 'a=b', 'vendor=x,y=z'),
          attributes: attributesArb(kind, 2),
        }),
        { maxLength: 2 },
      ),
      status: fc.option(fc.record({ code: fc.integer({ min: 0, max: 2 }), message: text }, { requiredKeys: [] }), {
        nil: undefined,
      }),
      droppedAttributesCount: fc.option(fc.nat(1000), { nil: undefined }),
      flags: fc.option(fc.nat(511), { nil: undefined }),
    })
    .map(({ time, attributes, ...s }) => ({
      ...s,
      startTimeUnixNano: time.start,
      endTimeUnixNano: time.end,
      attributes: [...attributes, tagAttr()],
    }));
}

function logRecordArb(kind: DatabaseKind) {
  return fc
    .record(
      {
        timeUnixNano: nanosArb.map(String),
        observedTimeUnixNano: nanosArb.map(String),
        severityNumber: fc.integer({ min: 0, max: 24 }),
        severityText: textArb(kind, 8),
        body: anyValueArb(kind),
        attributes: attributesArb(kind),
        traceId: idArb(16),
        spanId: idArb(8),
        eventName: textArb(kind, 12),
        flags: fc.nat(255),
      },
      { requiredKeys: [] },
    )
    .map((r) => ({ ...r, attributes: [...(r.attributes ?? []), tagAttr()] }));
}

function metricArb(kind: DatabaseKind) {
  const attrs = attributesArb(kind, 2).map((a) => [...a, tagAttr()]);
  const pointTimes = timeRangeArb.map((t) => ({ startTimeUnixNano: t.start, timeUnixNano: t.end }));
  const numberPoint = fc
    .tuple(
      pointTimes,
      attrs,
      fc.oneof(
        int64Arb.map((v) => ({ asInt: v })),
        doubleArb.map((v) => ({ asDouble: v })),
        fc.constant({}),
      ),
    )
    .map(([t, attributes, v]) => ({ ...t, attributes, ...v }));
  const counts = fc.array(fc.bigInt({ min: 0n, max: MAX_U64 }).map(String), { maxLength: 5 });
  const histogramPoint = fc
    .record({
      t: pointTimes,
      attributes: attrs,
      count: fc.bigInt({ min: 0n, max: MAX_U64 }).map(String),
      sum: doubleArb,
      bucketCounts: counts,
      explicitBounds: fc.array(doubleArb, { maxLength: 4 }),
      min: doubleArb,
      max: doubleArb,
    })
    .map(({ t, ...p }) => ({ ...t, ...p }));
  const buckets = fc.record({ offset: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), bucketCounts: counts });
  const expPoint = fc
    .record({
      t: pointTimes,
      attributes: attrs,
      count: fc.nat().map(String),
      sum: doubleArb,
      scale: fc.integer({ min: -20, max: 20 }),
      zeroCount: fc.nat().map(String),
      zeroThreshold: doubleArb,
      positive: buckets,
      negative: buckets,
    })
    .map(({ t, ...p }) => ({ ...t, ...p }));
  const summaryPoint = fc
    .record({
      t: pointTimes,
      attributes: attrs,
      count: fc.nat().map(String),
      sum: doubleArb,
      quantileValues: fc.array(fc.record({ quantile: fc.double({ min: 0, max: 1, noNaN: true }), value: doubleArb }), {
        maxLength: 3,
      }),
    })
    .map(({ t, ...p }) => ({ ...t, ...p }));
  const points = <T>(a: fc.Arbitrary<T>) => fc.array(a, { maxLength: 3 });
  const temporality = fc.integer({ min: 0, max: 2 });
  const data = fc.oneof(
    points(numberPoint).map((dataPoints) => ({ gauge: { dataPoints } })),
    fc
      .record({ dataPoints: points(numberPoint), aggregationTemporality: temporality, isMonotonic: fc.boolean() })
      .map((sum) => ({ sum })),
    fc
      .record({ dataPoints: points(histogramPoint), aggregationTemporality: temporality })
      .map((histogram) => ({ histogram })),
    fc
      .record({ dataPoints: points(expPoint), aggregationTemporality: temporality })
      .map((exponentialHistogram) => ({ exponentialHistogram })),
    points(summaryPoint).map((dataPoints) => ({ summary: { dataPoints } })),
  );
  return fc
    .tuple(
      fc.record(
        { name: nonEmptyText(kind), description: textArb(kind), unit: textArb(kind, 6) },
        { requiredKeys: ['name'] },
      ),
      data,
    )
    .map(([m, d]) => ({ ...m, ...d }));
}

/** A valid Export*ServiceRequest in OTLP/JSON: 1–2 resources × 1–2 scopes × 0–3 records. */
function otlpBodyArb(kind: DatabaseKind, signal: Signal): fc.Arbitrary<Record<string, unknown>> {
  const [resKey, scopeKey, recKey, rec] =
    signal === 'traces'
      ? (['resourceSpans', 'scopeSpans', 'spans', spanArb(kind)] as const)
      : signal === 'logs'
        ? (['resourceLogs', 'scopeLogs', 'logRecords', logRecordArb(kind)] as const)
        : (['resourceMetrics', 'scopeMetrics', 'metrics', metricArb(kind)] as const);
  const scoped = fc.record(
    { scope: scopeArb(kind), records: fc.array(rec as fc.Arbitrary<unknown>, { maxLength: 3 }) },
    { requiredKeys: ['records'] },
  );
  return fc
    .array(fc.record({ resource: resourceArb(kind), scoped: fc.array(scoped, { minLength: 1, maxLength: 2 }) }), {
      minLength: 1,
      maxLength: 2,
    })
    .map((resources) => ({
      [resKey]: resources.map((r) => ({
        resource: r.resource,
        [scopeKey]: r.scoped.map((s) => ({ ...(s.scope ? { scope: s.scope } : {}), [recKey]: s.records })),
      })),
    }));
}

const jsonObjectArb = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

function chunkArb(kind: DatabaseKind) {
  return fc
    .record({
      seq: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      startTs: fc.oneof(
        fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
        fc.integer({ min: 0, max: MAX_TS }),
      ),
      span: fc.nat(3_600_000),
      events: fc.array(jsonObjectArb, { minLength: 1, maxLength: 5 }),
      gzip: fc.boolean(),
      tail: textArb(kind, 4),
    })
    .map(({ seq, startTs, span, events, gzip, tail }) => {
      const json = JSON.stringify([...events, { type: 3, tail }]);
      return {
        serviceName: 'web-app',
        sessionId: TAG,
        replayId: TAG,
        seq,
        startTs,
        endTs: Math.min(MAX_TS, startTs + span),
        eventCount: events.length + 1,
        encoding: gzip ? 'gzip' : 'json',
        data: gzip ? gzipSync(json).toString('base64') : json,
      };
    });
}

function recipesArb(kind: DatabaseKind) {
  const text = textArb(kind);
  const headers = fc.dictionary(fc.string({ maxLength: 12 }), text, { maxKeys: 3 });
  const step = fc.record(
    {
      ts: fc.integer({ min: 0, max: MAX_TS }),
      method: fc.constantFrom('GET', 'POST', 'put', 'DELETE', 'PATCH', 'OPTIONS', 'X-CUSTOM'),
      url: fc.webUrl({ validSchemes: ['http', 'https'] }),
      requestHeaders: headers,
      requestBody: fc.option(text, { nil: null }),
      requestBodyTruncated: fc.boolean(),
      status: fc.integer({ min: 0, max: 599 }),
      responseHeaders: headers,
      responseBody: fc.option(text, { nil: null }),
      responseBodyTruncated: fc.boolean(),
      durationMs: fc.double({ min: 0, max: 1e9, noNaN: true }),
      traceparent: fc.option(
        fc.tuple(idArb(16), idArb(8)).map(([t, s]) => `00-${t.toLowerCase()}-${s.toLowerCase()}-01`),
        { nil: null },
      ),
      error: fc.option(text, { nil: null }),
    },
    { requiredKeys: ['ts', 'method', 'url', 'status', 'durationMs'] },
  );
  return fc
    .array(step, { minLength: 1, maxLength: 4 })
    .map((steps) => ({ serviceName: 'web-app', sessionId: TAG, replayId: TAG, steps }));
}

function validBodyArb(kind: DatabaseKind, endpoint: Endpoint): fc.Arbitrary<Record<string, unknown>> {
  if (endpoint === 'chunk') return chunkArb(kind);
  if (endpoint === 'recipes') return recipesArb(kind);
  return otlpBodyArb(kind, endpoint);
}

// ------------------------------------------------------------------------------------------------ mutations

const MUTATIONS = [
  'delete',
  'random',
  'swap',
  'bad-id',
  'bad-number',
  'deep',
  'huge-string',
  'two-values',
  'bad-service',
] as const;
type Mutation = { op: (typeof MUTATIONS)[number]; at: number; pick: number; payload: unknown };

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom(...MUTATIONS),
  at: fc.nat(),
  pick: fc.nat(),
  payload: fc.jsonValue({ maxDepth: 3 }),
});

const BAD_NUMBERS: unknown[] = [
  -1,
  1.5,
  -0.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  2 ** 64,
  '18446744073709551616',
  '-1',
  '1e3',
  '0x10',
  'NaN',
  '',
  ' 12',
  '12 ',
  1e20,
  '9223372036854775808',
  '-9223372036854775809',
  true,
  [1],
  { n: 1 },
  25,
  6,
  3,
  -2147483649,
  2147483648,
];

type Json = unknown;
type PathStep = string | number;

function allPaths(v: Json, at: PathStep[] = [], out: PathStep[][] = []): PathStep[][] {
  out.push(at);
  if (out.length > 5000) return out;
  if (Array.isArray(v)) v.forEach((x, i) => allPaths(x, [...at, i], out));
  else if (v && typeof v === 'object')
    for (const k of Object.keys(v)) allPaths((v as Record<string, Json>)[k], [...at, k], out);
  return out;
}

function getAt(root: Json, path: PathStep[]): Json {
  return path.reduce<Json>((v, k) => (v as Record<PathStep, Json>)[k], root);
}

/** Own-property assignment (a generated key may be `__proto__`). */
function setOwn(obj: Record<PathStep, Json> | Json[], key: PathStep, value: Json) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Deeply nested JSON is spliced in as text when the body is serialized (see `jsonBytes`): a marker string stands for
 * it in the document, so the test's own recursive helpers never walk thousands of levels.
 */
const DEEP_MARKER = /"\\u0002DEEP:(\d+):(\d)\\u0002"/g; // as JSON.stringify escapes U+0002
const deepMarker = (depth: number, style: number) => `\u0002DEEP:${depth}:${style}\u0002`;

function deepJsonText(depth: number, style: number): string {
  const [open, close, leaf] = [
    ['{"arrayValue":{"values":[', ']}}', '{"stringValue":"deep"}'],
    ['{"kvlistValue":{"values":[{"key":"k","value":', '}]}}', '{"intValue":1}'],
    ['[', ']', '0'],
    ['{"a":', '}', 'null'],
  ][style]!;
  return open!.repeat(depth) + leaf + close!.repeat(depth);
}

function swapType(v: Json): Json {
  if (typeof v === 'string') return v.length;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 0;
  if (v === null || v === undefined) return {};
  if (Array.isArray(v)) return Object.fromEntries(v.map((x, i) => [String(i), x]));
  return Object.values(v as object);
}

/** Applies `m` to a JSON document in place; returns the (possibly replaced) root. */
function mutate(root: Json, m: Mutation): Json {
  const paths = allPaths(root);
  const path = paths[m.at % paths.length]!;
  const current = getAt(root, path);
  let next: Json;
  switch (m.op) {
    case 'delete': {
      if (path.length === 0) return undefined;
      const parent = getAt(root, path.slice(0, -1)) as Record<PathStep, Json> | Json[];
      const key = path[path.length - 1]!;
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      return root;
    }
    case 'random':
      next = m.payload;
      break;
    case 'swap':
      next = swapType(current);
      break;
    case 'bad-id': {
      const lengths = [0, 1, 15, 17, 31, 33, 64];
      const len = lengths[m.pick % lengths.length]!;
      next = m.pick % 5 === 0 ? '0'.repeat(m.pick % 2 ? 16 : 32) : m.pick % 5 === 1 ? 'zz'.repeat(8) : 'a'.repeat(len);
      break;
    }
    case 'bad-number':
      next = BAD_NUMBERS[m.pick % BAD_NUMBERS.length];
      break;
    case 'deep':
      next = deepMarker([17, 40, 1000, 5000][m.pick % 4]!, Math.floor(m.pick / 4) % 4);
      break;
    case 'huge-string':
      next = 'x'.repeat([1000, 70_000, 300_000][m.pick % 3]!);
      break;
    case 'two-values':
      // An AnyValue (or anything) with a second oneof member.
      if (current && typeof current === 'object' && !Array.isArray(current)) {
        setOwn(
          current as Record<string, Json>,
          ['stringValue', 'intValue', 'boolValue', 'asInt', 'asDouble', 'gauge', 'sum'][m.pick % 7]!,
          1,
        );
        return root;
      }
      next = { stringValue: 'a', intValue: 1 };
      break;
    case 'bad-service': {
      // Rename the app: the service.name attribute of a resource, or a replay body's serviceName.
      const name = ['web-app ', 'Web-App', 'web-app-x', '', 'unknown-service', 'web-app'][m.pick % 6]!;
      const targets = paths.filter((p) => {
        const v = getAt(root, p) as Record<string, Json> | null;
        return !!v && typeof v === 'object' && (v.key === 'service.name' || typeof v.serviceName === 'string');
      });
      const target = targets[m.at % Math.max(1, targets.length)];
      if (!target) return root;
      const node = getAt(root, target) as Record<string, Json>;
      if (node.key === 'service.name') node.value = { stringValue: name };
      else node.serviceName = name;
      return root;
    }
  }
  if (path.length === 0) return next;
  setOwn(getAt(root, path.slice(0, -1)) as Record<PathStep, Json>, path[path.length - 1]!, next);
  return root;
}

// ------------------------------------------------------------------------------------------------ requests

type Expectation = 'ok' | 'reject' | 'any';

/** A request as generated: the body is built (tag substituted, mutated, encoded) only when it is sent. */
interface Plan {
  label: string;
  endpoint: Endpoint;
  expect: Expectation;
  build: (tag: string) => { body: Uint8Array; headers: Record<string, string> };
  /** Use `?api_key=` instead of the header; or a wrong/missing key. */
  auth?: 'header' | 'query' | 'wrong' | 'none';
}

function withTag(v: Json, tag: string): Json {
  if (v === TAG) return tag;
  if (Array.isArray(v)) return v.map((x) => withTag(x, tag));
  if (v && typeof v === 'object') {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, withTag(x, tag));
    return out;
  }
  return v;
}

const JSON_TYPES = [
  'application/json',
  'text/plain',
  'application/json; charset=utf-8',
  'TEXT/PLAIN;charset=UTF-8',
  'Application/JSON',
];
const WRONG_TYPES = [
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'text/html',
  'application/jsonx',
  'json',
  '',
];
type Compression = 'identity' | 'gzip' | 'deflate';

function compress(bytes: Uint8Array, c: Compression): { body: Uint8Array; headers: Record<string, string> } {
  if (c === 'gzip') return { body: gzipSync(bytes), headers: { 'content-encoding': 'gzip' } };
  if (c === 'deflate') return { body: deflateSync(bytes), headers: { 'content-encoding': 'deflate' } };
  return { body: bytes, headers: {} };
}

const jsonBytes = (v: Json) =>
  Buffer.from(
    (JSON.stringify(v) ?? 'null').replace(DEEP_MARKER, (_, depth: string, style: string) =>
      deepJsonText(Number(depth), Number(style)),
    ),
    'utf8',
  );
const compressionArb = fc.constantFrom<Compression>('identity', 'identity', 'gzip', 'deflate');

function validPlanArb(kind: DatabaseKind): fc.Arbitrary<Plan> {
  return fc
    .constantFrom(...ENDPOINTS)
    .chain((endpoint) =>
      fc.record({
        endpoint: fc.constant(endpoint),
        body: validBodyArb(kind, endpoint),
        protobuf: endpoint === 'chunk' || endpoint === 'recipes' ? fc.constant(false) : fc.boolean(),
        contentType: fc.constantFrom(...JSON_TYPES),
        protoType: fc.constantFrom('application/x-protobuf', 'application/protobuf'),
        compression: compressionArb,
        auth: fc.constantFrom<'header' | 'query'>('header', 'header', 'query'),
      }),
    )
    .map((p) => ({
      label: `valid ${p.endpoint} ${p.protobuf ? 'protobuf' : 'json'} ${p.compression}`,
      endpoint: p.endpoint,
      expect: 'ok' as const,
      auth: p.auth,
      build: (tag: string) => {
        const body = withTag(p.body, tag);
        const raw = p.protobuf ? encodeProtobuf(p.endpoint as Signal, body) : jsonBytes(body);
        const c = compress(raw, p.compression);
        return { body: c.body, headers: { ...c.headers, 'content-type': p.protobuf ? p.protoType : p.contentType } };
      },
    }));
}

function mutatedPlanArb(kind: DatabaseKind): fc.Arbitrary<Plan> {
  return fc
    .constantFrom(...ENDPOINTS)
    .chain((endpoint) =>
      fc.record({
        endpoint: fc.constant(endpoint),
        body: validBodyArb(kind, endpoint),
        mutations: fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
        contentType: fc.constantFrom(...JSON_TYPES),
        compression: compressionArb,
      }),
    )
    .map((p) => ({
      label: `mutated ${p.endpoint} [${p.mutations.map((m) => m.op).join(', ')}]`,
      endpoint: p.endpoint,
      expect: 'any' as const,
      build: (tag: string) => {
        let doc = withTag(p.body, tag);
        for (const m of p.mutations) doc = mutate(doc, m);
        const c = compress(jsonBytes(doc), p.compression);
        return { body: c.body, headers: { ...c.headers, 'content-type': p.contentType } };
      },
    }));
}

let gzipBomb: Buffer | undefined;

/** Hostile input: random JSON values, random bytes, random protobuf, wrong types, broken compression, bad keys. */
function hostilePlanArb(kind: DatabaseKind): fc.Arbitrary<Plan> {
  const endpointArb = fc.constantFrom(...ENDPOINTS);
  const signalArb = fc.constantFrom(...SIGNALS);
  const bytesArb = fc.uint8Array({ maxLength: 2048 });
  const plan = (
    label: string,
    endpoint: Endpoint,
    expect: Expectation,
    build: Plan['build'],
    auth?: Plan['auth'],
  ): Plan => ({
    label,
    endpoint,
    expect,
    build,
    ...(auth ? { auth } : {}),
  });

  return fc.oneof(
    // Any JSON value at all.
    fc
      .tuple(endpointArb, fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(...JSON_TYPES))
      .map(([e, v, ct]) =>
        plan(`random JSON to ${e}`, e, 'reject', () => ({ body: jsonBytes(v), headers: { 'content-type': ct } })),
      ),
    // Random bytes as JSON, and as protobuf (OTLP) or as protobuf where only JSON is accepted (replay).
    fc.tuple(endpointArb, bytesArb, fc.boolean()).map(([e, b, proto]) =>
      plan(`random bytes (${proto ? 'protobuf' : 'json'}) to ${e}`, e, 'reject', () => ({
        body: b,
        headers: { 'content-type': proto ? 'application/x-protobuf' : 'application/json' },
      })),
    ),
    // Random protobuf-shaped bytes: valid framing with random field numbers and wire types.
    fc
      .tuple(
        signalArb,
        fc.array(fc.tuple(fc.integer({ min: 1, max: 20 }), fc.constantFrom(0, 1, 2, 5), bytesArb), { maxLength: 6 }),
      )
      .map(([s, fields]) =>
        plan(`random protobuf fields to ${s}`, s, 'reject', () => {
          const w = protobuf.Writer.create();
          for (const [n, wire, b] of fields) {
            w.uint32((n << 3) | wire);
            if (wire === 0) w.uint64(b.length * 7919);
            else if (wire === 1) w.fixed64(b.length);
            else if (wire === 5) w.fixed32(b.length);
            else w.bytes(b);
          }
          return { body: w.finish(), headers: { 'content-type': 'application/x-protobuf' } };
        }),
      ),
    // A valid body with a content type the endpoint does not accept.
    fc
      .tuple(
        endpointArb.chain((e) => fc.tuple(fc.constant(e), validBodyArb(kind, e))),
        fc.constantFrom(...WRONG_TYPES),
      )
      .map(([[e, body], ct]) =>
        plan(`valid ${e} as "${ct}"`, e, 'reject', (tag) => ({
          body: jsonBytes(withTag(body, tag)),
          headers: ct ? { 'content-type': ct } : ({} as Record<string, string>),
        })),
      ),
    // JSON declared as protobuf, and protobuf declared as JSON.
    fc
      .tuple(
        signalArb.chain((s) => fc.tuple(fc.constant(s), otlpBodyArb(kind, s))),
        fc.boolean(),
      )
      .map(([[s, body], jsonAsProto]) =>
        plan(`${s} ${jsonAsProto ? 'JSON as protobuf' : 'protobuf as JSON'}`, s, 'reject', (tag) =>
          jsonAsProto
            ? { body: jsonBytes(withTag(body, tag)), headers: { 'content-type': 'application/x-protobuf' } }
            : { body: encodeProtobuf(s, withTag(body, tag)), headers: { 'content-type': 'application/json' } },
        ),
      ),
    // Valid protobuf with bytes flipped, cut or inserted: may still decode; must never break the server.
    fc
      .tuple(
        signalArb.chain((s) => fc.tuple(fc.constant(s), otlpBodyArb(kind, s))),
        fc.array(fc.tuple(fc.constantFrom('flip', 'cut', 'insert'), fc.nat(), fc.nat(255)), {
          minLength: 1,
          maxLength: 4,
        }),
      )
      .map(([[s, body], edits]) =>
        plan(`${s} protobuf with bytes edited [${edits.map((x) => x[0]).join(', ')}]`, s, 'any', (tag) => {
          let b = Buffer.from(encodeProtobuf(s, withTag(body, tag)));
          for (const [op, at, byte] of edits) {
            if (b.length === 0) break;
            const i = at % b.length;
            if (op === 'flip') b[i] = b[i]! ^ (byte || 1);
            else if (op === 'cut') b = b.subarray(0, i);
            else b = Buffer.concat([b.subarray(0, i), Buffer.from([byte]), b.subarray(i)]);
          }
          return { body: b, headers: { 'content-type': 'application/x-protobuf' } };
        }),
      ),
    // Broken compression: truncated gzip, gzip labelled deflate, plain bytes labelled gzip, unknown encodings,
    // a gzip bomb, and single flipped bytes (which gzip's CRC should catch, but which may hit the header).
    fc
      .tuple(
        endpointArb.chain((e) => fc.tuple(fc.constant(e), validBodyArb(kind, e))),
        fc.constantFrom('truncate', 'as-deflate', 'not-gzip', 'unknown-encoding', 'bomb', 'flip'),
        fc.nat(),
      )
      .map(([[e, body], how, n]) =>
        plan(`${e} with broken compression (${how})`, e, how === 'flip' ? 'any' : 'reject', (tag) => {
          const raw = jsonBytes(withTag(body, tag));
          const gz = gzipSync(raw);
          const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
          switch (how) {
            case 'truncate':
              return { body: gz.subarray(0, Math.max(0, gz.length - 1 - (n % Math.min(gz.length, 40)))), headers };
            case 'as-deflate':
              return { body: gz, headers: { ...headers, 'content-encoding': 'deflate' } };
            case 'not-gzip':
              return { body: raw, headers: { ...headers, 'content-encoding': n % 2 ? 'gzip' : 'deflate' } };
            case 'unknown-encoding':
              return {
                body: gz,
                headers: { ...headers, 'content-encoding': ['br', 'compress', 'zstd', 'gzip, gzip', 'x-gzip'][n % 5]! },
              };
            case 'bomb':
              gzipBomb ??= gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20));
              return { body: gzipBomb, headers };
            default: {
              const flipped = Buffer.from(gz);
              const i = n % flipped.length;
              flipped[i] = flipped[i]! ^ (1 << (n % 8));
              return { body: flipped, headers };
            }
          }
        }),
      ),
    // A valid body to the wrong endpoint.
    fc
      .tuple(
        endpointArb.chain((e) => fc.tuple(fc.constant(e), validBodyArb(kind, e))),
        endpointArb,
      )
      .map(([[from, body], to]) =>
        plan(`valid ${from} body posted to ${to}`, to, from === to ? 'ok' : 'reject', (tag) => ({
          body: jsonBytes(withTag(body, tag)),
          headers: { 'content-type': 'application/json' },
        })),
      ),
    // A valid body with a wrong or missing key.
    fc
      .tuple(
        endpointArb.chain((e) => fc.tuple(fc.constant(e), validBodyArb(kind, e))),
        fc.constantFrom<'wrong' | 'none'>('wrong', 'none'),
      )
      .map(([[e, body], auth]) =>
        plan(
          `valid ${e} with ${auth} key`,
          e,
          'reject',
          (tag) => ({ body: jsonBytes(withTag(body, tag)), headers: { 'content-type': 'application/json' } }),
          auth,
        ),
      ),
  );
}

// ------------------------------------------------------------------------------------------------ ledger

interface Sent {
  tag: string;
  label: string;
  endpoint: Endpoint;
  status: number;
  /** Rows the request carried, counted from the bytes sent (2xx only). */
  rows: number;
  expect: Expectation;
}

class Ledger {
  requests = 0;
  readonly sent: Sent[] = [];
  /** Every string inside a 2xx-acknowledged body: a stored row's tag must be one of them. */
  readonly ackedStrings = new Set<string>();
  readonly byStatus = new Map<number, number>();
  readonly expectedRows: Record<Table, number> = { spans: 0, logs: 0, metric_points: 0, replay_chunks: 0, recipes: 0 };
}

/** Iterative: an accepted body may carry thousands of nesting levels in a field the server ignores. */
function collectStrings(root: unknown, into: Set<string>) {
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') into.add(v);
    else if (v && typeof v === 'object') stack.push(...Object.values(v));
  }
}

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const METRIC_DATA_KEYS = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'];

/** Rows an accepted OTLP request carries: records per scope per resource; for metrics, data points. */
function countOtlpRows(signal: Signal, body: unknown): number {
  const [r, s, rec] =
    signal === 'traces'
      ? ['resourceSpans', 'scopeSpans', 'spans']
      : signal === 'logs'
        ? ['resourceLogs', 'scopeLogs', 'logRecords']
        : ['resourceMetrics', 'scopeMetrics', 'metrics'];
  let n = 0;
  for (const res of arr(obj(body)[r!])) {
    for (const scope of arr(obj(res)[s!])) {
      for (const record of arr(obj(scope)[rec!])) {
        if (signal !== 'metrics') n += 1;
        else {
          const m = obj(record);
          const key = METRIC_DATA_KEYS.find((k) => m[k] !== undefined && m[k] !== null);
          n += key ? arr(obj(m[key]).dataPoints).length : 0;
        }
      }
    }
  }
  return n;
}

/** Decodes what was actually sent (after our own compression) the way a correct server must read it. */
function decodeSent(endpoint: Endpoint, body: Uint8Array, headers: Record<string, string>): unknown {
  const enc = (headers['content-encoding'] ?? 'identity').toLowerCase();
  const raw = enc === 'gzip' ? gunzipSync(body) : enc === 'deflate' ? inflateSync(body) : body;
  const type = (headers['content-type'] ?? '').toLowerCase();
  if (type.includes('protobuf')) {
    const t = REQUEST_TYPE[endpoint as Signal];
    return t.toObject(t.decode(raw), { longs: String, bytes: String, arrays: true });
  }
  return JSON.parse(Buffer.from(raw).toString('utf8'));
}

function expectErrorShape(status: number, contentType: string | null, text: string, label: string) {
  expect(contentType ?? '', `${label}: ${status} must be JSON`).toContain('application/json');
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(Object.keys(body), `${label}: error body keys`).toEqual(['error']);
  const error = body.error as Record<string, unknown>;
  expect(typeof error.code === 'string' && error.code.length > 0, `${label}: error.code in ${text}`).toBe(true);
  expect(typeof error.message === 'string' && error.message.length > 0, `${label}: error.message in ${text}`).toBe(
    true,
  );
  for (const k of Object.keys(error))
    expect(['code', 'message', 'details'], `${label}: unexpected error.${k}`).toContain(k);
}

let tagCounter = 0;

async function send(t: TestServer, ledger: Ledger, p: Plan): Promise<Sent> {
  const tag = `fz${(tagCounter++).toString(36)}x${randomBytes(4).toString('hex')}`;
  const { body, headers } = p.build(tag);
  const auth = p.auth ?? 'header';
  const url = `${t.url}${PATH[p.endpoint]}${auth === 'query' ? `?api_key=${encodeURIComponent(t.ingestKey)}` : ''}`;
  const reqHeaders: Record<string, string> = { ...headers };
  if (auth === 'header') reqHeaders['x-api-key'] = t.ingestKey;
  if (auth === 'wrong') reqHeaders['x-api-key'] = `svc_ingest_${randomBytes(24).toString('hex')}`;
  const res = await fetch(url, { method: 'POST', headers: reqHeaders, body: body as Uint8Array<ArrayBuffer> });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = Buffer.from(bytes).toString('utf8');
  const label = `${p.label} (tag ${tag})`;
  ledger.requests += 1;
  ledger.byStatus.set(res.status, (ledger.byStatus.get(res.status) ?? 0) + 1);

  expect(res.status, `${label}: 5xx ${text}`).toBeLessThan(500);
  const sent: Sent = { tag, label: p.label, endpoint: p.endpoint, status: res.status, rows: 0, expect: p.expect };
  ledger.sent.push(sent);
  if (res.status >= 200 && res.status < 300) {
    expect(res.status, label).toBe(200);
    const decoded = decodeSent(p.endpoint, body, headers);
    collectStrings(decoded, ledger.ackedStrings);
    const type = res.headers.get('content-type') ?? '';
    if (p.endpoint === 'chunk' || p.endpoint === 'recipes') {
      const ack = JSON.parse(text) as { accepted: number; duplicates: number };
      if (p.endpoint === 'chunk') {
        expect(ack.accepted + ack.duplicates, `${label}: one chunk`).toBe(1);
        sent.rows = ack.accepted;
      } else {
        sent.rows = arr(obj(decoded).steps).length;
        expect(ack, label).toEqual({ accepted: sent.rows, duplicates: 0 });
      }
    } else {
      sent.rows = countOtlpRows(p.endpoint, decoded);
      if ((headers['content-type'] ?? '').toLowerCase().includes('protobuf')) {
        expect(type, label).toContain('application/x-protobuf');
        // A full success is an empty Export*ServiceResponse (no partial_success).
        expect(RESPONSE_TYPE[p.endpoint].toObject(RESPONSE_TYPE[p.endpoint].decode(bytes)), label).toEqual({});
      } else {
        expect(JSON.parse(text), label).toEqual({ partialSuccess: {} });
      }
    }
    ledger.expectedRows[TABLE[p.endpoint]] += sent.rows;
  } else {
    expect(res.status, `${label}: ${text}`).toBeGreaterThanOrEqual(400);
    expectErrorShape(res.status, res.headers.get('content-type'), text, label);
  }
  if (p.expect === 'ok') expect(res.status, `${label}: a valid body must be accepted: ${text}`).toBe(200);
  if (p.expect === 'reject') expect(res.status, `${label}: must be rejected`).toBeGreaterThanOrEqual(400);
  return sent;
}

// ------------------------------------------------------------------------------------------------ stored rows

interface StoredRow {
  session_id: string | null;
  attributes?: string;
  resource?: string;
  replay_id?: string;
}

/** The tag a stored row carries (record attribute, resource attribute, session or replay id), if any survived. */
function tagOf(row: StoredRow): string | undefined {
  const fromJson = (json: string | undefined, nested: boolean) => {
    if (!json) return undefined;
    const parsed = JSON.parse(json) as Record<string, unknown>;
    const attrs = nested ? (parsed.attributes as Record<string, unknown> | undefined) : parsed;
    const v = attrs?.['fuzz.tag'];
    return typeof v === 'string' && v.startsWith('fz') ? v : undefined;
  };
  const ids = [row.session_id, row.replay_id].filter(
    (v): v is string => typeof v === 'string' && /^fz[0-9a-z]+x[0-9a-f]{8}$/.test(v),
  );
  return fromJson(row.attributes, false) ?? fromJson(row.resource, true) ?? ids[0];
}

async function storedRows(t: TestServer): Promise<Record<Table, StoredRow[]>> {
  const db = t.server.database.db;
  return {
    spans: await db.selectFrom('spans').select(['session_id', 'attributes', 'resource']).execute(),
    logs: await db.selectFrom('logs').select(['session_id', 'attributes', 'resource']).execute(),
    metric_points: await db.selectFrom('metric_points').select(['session_id', 'attributes', 'resource']).execute(),
    replay_chunks: await db.selectFrom('replay_chunks').select(['session_id', 'replay_id']).execute(),
    recipes: await db.selectFrom('recipes').select(['session_id', 'replay_id']).execute(),
  };
}

async function countRows(t: TestServer): Promise<Record<Table, number>> {
  const out = {} as Record<Table, number>;
  for (const table of TABLES) {
    const r = await t.server.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(r.n);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ the suite

const resourceOf = (extra: unknown[] = []) => ({
  attributes: [kv('service.name', { stringValue: 'web-app' }), ...extra],
});
const fixedSpan = (o: object) => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000100000000',
  ...o,
});

const kinds = await databaseKinds();
/** Requests per database kind, per phase (≥ 1,000 per kind in total). */
const RUNS = { valid: 300, mutated: 1100, hostile: 600 };

describe.each(kinds)('ingest fuzzing (%s)', (kind) => {
  let t: TestServer;
  const ledger = new Ledger();
  let before: Record<Table, number>;

  beforeAll(async () => {
    t = await startTestServer(kind);
    before = await countRows(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Sends `runs` generated plans; every answer is checked by `send` and recorded in the ledger. */
  const phase = (arb: fc.Arbitrary<Plan>, runs: number) => () =>
    fc.assert(
      fc.asyncProperty(arb, async (plan) => {
        await send(t, ledger, plan);
      }),
      { numRuns: runs, interruptAfterTimeLimit: 100_000, markInterruptAsFailure: true },
    );

  it(
    'accepts every valid generated body (JSON, protobuf, gzip/deflate, header or query key)',
    phase(validPlanArb(kind), RUNS.valid),
    120_000,
  );
  it(
    'answers mutated bodies with 200 or a 4xx in the one error shape, never a 5xx',
    phase(mutatedPlanArb(kind), RUNS.mutated),
    180_000,
  );
  it(
    'rejects hostile input (random JSON/bytes/protobuf, wrong types, broken gzip, bad keys) with a 4xx',
    phase(hostilePlanArb(kind), RUNS.hostile),
    180_000,
  );

  it('a body over the size limit is a 413 in the error shape', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 0x20);
    big[0] = 0x7b; // '{' … spaces … not even reached
    for (const endpoint of ['traces', 'chunk'] as const) {
      const sent = await send(t, ledger, {
        label: `oversized ${endpoint}`,
        endpoint,
        expect: 'reject',
        build: () => ({ body: big, headers: { 'content-type': 'application/json' } }),
      });
      expect(sent.status).toBe(413);
    }
  });

  it('stored exactly the rows of acknowledged requests, and nothing else', async () => {
    expect(ledger.requests, 'requests sent to this database kind').toBeGreaterThanOrEqual(1000);
    // The run exercised both outcomes on every endpoint.
    for (const e of ENDPOINTS) {
      expect(
        ledger.sent.some((s) => s.endpoint === e && s.status === 200),
        `${e}: some 2xx`,
      ).toBe(true);
      expect(
        ledger.sent.some((s) => s.endpoint === e && s.status >= 400),
        `${e}: some 4xx`,
      ).toBe(true);
    }

    const health = await fetch(`${t.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const after = await countRows(t);
    for (const table of TABLES) {
      expect(after[table] - before[table], `${table}: rows stored = rows carried by 2xx requests`).toBe(
        ledger.expectedRows[table],
      );
    }

    const rows = await storedRows(t);
    const byTag = new Map(ledger.sent.map((s) => [s.tag, s]));
    const perTag = new Map<string, number>();
    for (const table of TABLES) {
      for (const row of rows[table]) {
        const tag = tagOf(row);
        if (tag === undefined) continue; // a mutation removed every tag; still counted in the totals above
        const sent = byTag.get(tag);
        expect(
          ledger.ackedStrings.has(tag),
          `${table} row with tag ${tag} from "${sent?.label}" answered ${sent?.status}`,
        ).toBe(true);
        perTag.set(tag, (perTag.get(tag) ?? 0) + 1);
      }
    }
    // Nothing accepted is lost: every row of every valid (unmutated) request is there under its tag.
    for (const s of ledger.sent.filter((x) => x.expect === 'ok')) {
      expect(perTag.get(s.tag) ?? 0, `${s.label} (${s.tag})`).toBe(s.rows);
    }

    // Session summaries agree with the rows: counters equal rows per session, no session without rows.
    const sessions = await t.server.database.db.selectFrom('sessions').selectAll().execute();
    const sessionIds = new Set<string>();
    for (const table of TABLES) {
      const withSession = rows[table].filter((r) => r.session_id !== null);
      withSession.forEach((r) => sessionIds.add(r.session_id!));
      const counter = SESSION_COUNTER[table] as keyof (typeof sessions)[number];
      const total = sessions.reduce((n, s) => n + Number(s[counter]), 0);
      expect(total, `sessions.${String(counter)} sum`).toBe(withSession.length);
    }
    expect(new Set(sessions.map((s) => s.session_id))).toEqual(sessionIds);

    console.info(
      `[ingest-fuzz ${kind}] ${ledger.requests} requests; statuses ${JSON.stringify(Object.fromEntries([...ledger.byStatus].sort()))}; ` +
        `rows ${JSON.stringify(ledger.expectedRows)}`,
    );
  });

  // U+0000 is valid in JSON, OTLP strings and SQLite text, but PostgreSQL text cannot hold it: the server refuses it in
  // plain-text fields on both databases alike (JSON-encoded attributes escape it and keep it).
  it('a U+0000 character in a stored text field is refused with a 4xx on every database', async () => {
    const cases: [Endpoint, unknown][] = [
      [
        'traces',
        { resourceSpans: [{ resource: resourceOf(), scopeSpans: [{ spans: [fixedSpan({ name: 'a\u0000b' })] }] }] },
      ],
      [
        'traces',
        {
          resourceSpans: [
            {
              resource: resourceOf([kv('session.id', { stringValue: 's\u0000' })]),
              scopeSpans: [{ spans: [fixedSpan({})] }],
            },
          ],
        },
      ],
      [
        'logs',
        { resourceLogs: [{ resource: resourceOf(), scopeLogs: [{ logRecords: [{ severityText: 'E\u0000' }] }] }] },
      ],
      [
        'logs',
        {
          resourceLogs: [
            {
              resource: { attributes: [kv('service.name', { stringValue: 'web\u0000app' })] },
              scopeLogs: [{ logRecords: [{}] }],
            },
          ],
        },
      ],
      [
        'recipes',
        {
          serviceName: 'web-app',
          sessionId: 's',
          replayId: 'r\u0000',
          steps: [
            {
              ts: 1,
              method: 'GET',
              url: 'http://a/',
              status: 200,
              durationMs: 1,
              requestHeaders: {},
              responseHeaders: {},
            },
          ],
        },
      ],
    ];
    for (const [endpoint, body] of cases) {
      await send(t, new Ledger(), {
        label: `U+0000 in ${endpoint}`,
        endpoint,
        expect: 'reject',
        build: () => ({ body: jsonBytes(body), headers: { 'content-type': 'application/json' } }),
      });
    }
  });

  // `session.id` is capped at 128 characters like replay ids: it is indexed, and a long one would overflow PostgreSQL's
  // index entry limit (2704 bytes) on <table>_session and sessions_pk.
  it('a session.id over 128 characters is refused with a 4xx', async () => {
    const sessionId = randomBytes(1500).toString('hex'); // 3000 characters, incompressible
    for (const endpoint of ['traces', 'logs'] as const) {
      const body =
        endpoint === 'traces'
          ? {
              resourceSpans: [
                {
                  resource: resourceOf([kv('session.id', { stringValue: sessionId })]),
                  scopeSpans: [{ spans: [fixedSpan({})] }],
                },
              ],
            }
          : {
              resourceLogs: [
                {
                  resource: resourceOf([kv('session.id', { stringValue: sessionId })]),
                  scopeLogs: [{ logRecords: [{}] }],
                },
              ],
            };
      await send(t, new Ledger(), {
        label: `3000-character session.id in ${endpoint}`,
        endpoint,
        expect: 'reject',
        build: () => ({ body: jsonBytes(body), headers: { 'content-type': 'application/json' } }),
      });
    }
  });
});
