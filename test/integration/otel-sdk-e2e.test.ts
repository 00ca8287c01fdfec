/**
 * Real OpenTelemetry JS SDK output, sent by the official OTLP/HTTP exporters (JSON and protobuf), stored by the
 * reference server and read back through the query API field for field, on every database kind.
 *
 * The SDK objects the exporters were handed (ReadableSpan, ReadableLogRecord, ResourceMetrics) are the reference:
 * every value asserted below is derived from them, never typed in by hand.
 */
import { randomBytes } from 'node:crypto';
import {
  context,
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  ValueType,
  type Attributes,
  type Context,
  type ContextManager,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import { SeverityNumber, type AnyValue } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import {
  AggregationTemporalityPreference,
  OTLPMetricExporter as JsonMetricExporter,
} from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  LoggerProvider,
  SimpleLogRecordProcessor,
  type LogRecordExporter,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricData,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAlias } from '../../server/src/projects/apps-store';
import { databaseKinds } from '../support/databases';
import { controlGet, startTestServer, type TestServer } from '../support/server';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
/** `ExportResultCode.SUCCESS` of @opentelemetry/core (the exporters' callback result). */
const EXPORT_SUCCESS = 0;
type Compression = NonNullable<NonNullable<ConstructorParameters<typeof ProtoTraceExporter>[0]>['compression']>;
const GZIP = 'gzip' as Compression;

type Row = Record<string, unknown>;

// ------------------------------------------------------------------------------------------------ SDK plumbing

/**
 * A minimal synchronous context manager, so `startActiveSpan` makes a span active and the log SDK picks up its
 * trace context from `context.active()` as it would under the Node or zone context managers.
 */
class SyncContextManager implements ContextManager {
  private stack: Context[] = [];
  active(): Context {
    return this.stack[this.stack.length - 1] ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ) {
    this.stack.push(ctx);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.stack.pop();
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.stack = [];
    return this;
  }
}

/** What a recording exporter keeps: the items handed to it, every export result, and one promise per export. */
function exportRecord<T>(inner: { export(items: T[], done: (result: ExportResult) => void): void }) {
  const sent: T[] = [];
  const results: ExportResult[] = [];
  // One per export, settled by its callback: what the run waits for.
  const exported: Promise<void>[] = [];
  const record = (items: T[], done: (result: ExportResult) => void) => {
    sent.push(...items);
    exported.push(
      new Promise((settled) =>
        inner.export(items, (r) => {
          results.push(r);
          done(r);
          settled();
        }),
      ),
    );
  };
  return { record, sent, results, exported };
}

/** Wraps an exporter: keeps what the SDK handed it and every export result, and delegates everything else. */
function recordingSpanExporter(inner: SpanExporter) {
  const { record, ...kept } = exportRecord<ReadableSpan>(inner);
  const exporter: SpanExporter = {
    export: record,
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
  return { exporter, ...kept };
}

function recordingLogExporter(inner: LogRecordExporter) {
  const { record, ...kept } = exportRecord<ReadableLogRecord>(inner);
  const exporter: LogRecordExporter = {
    export: record,
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
  };
  return { exporter, ...kept };
}

function recordingMetricExporter(inner: PushMetricExporter) {
  const sent: ResourceMetrics[] = [];
  const results: ExportResult[] = [];
  const exporter: PushMetricExporter = {
    export(metrics, done) {
      sent.push(metrics);
      inner.export(metrics, (r) => {
        results.push(r);
        done(r);
      });
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    // The reader asks the exporter which temporality and aggregation to use: these must reach the real one.
    selectAggregationTemporality: inner.selectAggregationTemporality?.bind(inner),
    selectAggregation: inner.selectAggregation?.bind(inner),
  };
  return { exporter, sent, results };
}

function expectAllSucceeded(results: ExportResult[], what: string) {
  expect(results.length, `${what}: the SDK exported nothing`).toBeGreaterThan(0);
  for (const r of results) {
    expect(r.code, `${what} export failed: ${r.error?.message ?? ''}`).toBe(EXPORT_SUCCESS);
  }
}

// ------------------------------------------------------------------------------------------------ expectations

/** OTLP's fixed64 nanoseconds, exactly, from an SDK hrTime. */
const nanos = (t: HrTime): string => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();
const isoOf = (t: HrTime): string => new Date(Number(BigInt(nanos(t)) / 1_000_000n)).toISOString();

/** SDK attributes as the query API returns them (plain JSON; undefined values are not sent). */
function plainAttributes(a: Attributes | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a ?? {})) if (v !== undefined) out[k] = v;
  return out;
}

/** OTLP SpanKind is the API's SpanKind + 1 (0 is SPAN_KIND_UNSPECIFIED on the wire). */
const otlpKind = (k: SpanKind): number => k + 1;

/** OTLP AggregationTemporality: DELTA = 1, CUMULATIVE = 2. */
const otlpTemporality = (t: AggregationTemporality): number => (t === AggregationTemporality.DELTA ? 1 : 2);

const METRIC_TYPE: Record<DataPointType, string> = {
  [DataPointType.GAUGE]: 'gauge',
  [DataPointType.SUM]: 'sum',
  [DataPointType.HISTOGRAM]: 'histogram',
  [DataPointType.EXPONENTIAL_HISTOGRAM]: 'exponential_histogram',
};

const sameAttributes = (a: unknown, b: Record<string, unknown>) =>
  JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([x], [y]) => (x < y ? -1 : 1))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  return v;
}

async function listAll(t: TestServer, path: string, filter: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `${path}?${filter}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res: { status: number; body: { data: Row[]; next_cursor: string | null } } = await controlGet(t, q);
    expect(res.status, `GET ${q}`).toBe(200);
    rows.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return rows;
}

// ------------------------------------------------------------------------------------------------ the runs

interface Flavor {
  name: string;
  /** `service.name` the SDK sends. */
  serviceName: string;
  traceExporter: (url: string, headers: Record<string, string>) => SpanExporter;
  logExporter: (url: string, headers: Record<string, string>) => LogRecordExporter;
  metricExporter: (url: string, headers: Record<string, string>) => PushMetricExporter;
}

const FLAVORS: Flavor[] = [
  {
    // OTLP/JSON, uncompressed, cumulative metrics; sent under an alias of the app.
    name: 'OTLP/JSON (exporter-*-otlp-http)',
    serviceName: 'web-app-alias',
    traceExporter: (url, headers) => new JsonTraceExporter({ url, headers }),
    logExporter: (url, headers) => new JsonLogExporter({ url, headers }),
    metricExporter: (url, headers) =>
      new JsonMetricExporter({ url, headers, temporalityPreference: AggregationTemporalityPreference.CUMULATIVE }),
  },
  {
    // OTLP/protobuf, gzip-compressed, delta metrics; sent under the app's own name.
    name: 'OTLP/protobuf (exporter-*-otlp-proto, gzip)',
    serviceName: 'web-app',
    traceExporter: (url, headers) => new ProtoTraceExporter({ url, headers, compression: GZIP }),
    logExporter: (url, headers) => new ProtoLogExporter({ url, headers, compression: GZIP }),
    metricExporter: (url, headers) =>
      new ProtoMetricExporter({
        url,
        headers,
        compression: GZIP,
        temporalityPreference: AggregationTemporalityPreference.DELTA,
      }),
  },
];

interface Run {
  sessionId: string;
  spans: ReturnType<typeof recordingSpanExporter>;
  logs: ReturnType<typeof recordingLogExporter>;
  metrics: ReturnType<typeof recordingMetricExporter>;
  /** A span of another trace, only linked to. */
  linked: SpanContext;
}

/** Drives the three SDK providers the way an instrumented checkout handler would, and flushes them. */
async function runSdk(t: TestServer, flavor: Flavor): Promise<Run> {
  const sessionId = `e2e-${randomBytes(6).toString('hex')}`;
  const headers = { 'X-API-Key': t.ingestKey };
  const resource = defaultResource().merge(
    resourceFromAttributes({
      'service.name': flavor.serviceName,
      'service.version': '4.2.0',
      'session.id': sessionId,
      'deployment.environment.name': 'e2e',
    }),
  );
  const spans = recordingSpanExporter(flavor.traceExporter(`${t.url}/otlp/v1/traces`, headers));
  const logs = recordingLogExporter(flavor.logExporter(`${t.url}/otlp/v1/logs`, headers));
  const metrics = recordingMetricExporter(flavor.metricExporter(`${t.url}/otlp/v1/metrics`, headers));

  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new SimpleSpanProcessor(spans.exporter)],
  });
  const loggerProvider = new LoggerProvider({
    resource,
    processors: [new SimpleLogRecordProcessor({ exporter: logs.exporter })],
  });
  const reader = new PeriodicExportingMetricReader({ exporter: metrics.exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ resource, readers: [reader] });

  const tracer = tracerProvider.getTracer('checkout-service', '1.7.3');
  const logger = loggerProvider.getLogger('checkout-logger', '0.4.1');
  const meter = meterProvider.getMeter('checkout-meter', '2.0.0');

  const linked: SpanContext = {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.SAMPLED,
    traceState: createTraceState('vendor=abc,other=x-1'),
  };

  const manager = new SyncContextManager();
  context.setGlobalContextManager(manager);
  try {
    tracer.startActiveSpan(
      'POST /api/checkout',
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': 'POST',
          'http.response.status_code': 500,
          'url.full': 'https://shop.example.com/api/checkout?cart=42',
          'server.duration_ratio': 0.375,
          'user.is_guest': true,
          'http.request.header.accept': ['application/json', 'text/plain'],
          'cart.item_ids': [101, 202, 303],
          'cart.prices': [9.99, 0.5],
          'feature.flags': [true, false, true],
        },
        links: [{ context: linked, attributes: { 'link.reason': 'retry-of', 'link.attempt': 1 } }],
      },
      (parent) => {
        const child = tracer.startSpan('SELECT orders', {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': 'postgresql',
            'db.query.text': 'select * from orders where id = $1',
            'db.rows': 0,
          },
        });
        child.addEvent('db.retry', {
          'retry.attempt': 2,
          'retry.delay_ms': 12.5,
          'retry.final': false,
          'retry.errors': ['ECONNRESET', 'ETIMEDOUT'],
        });
        child.addEvent('db.gave_up');
        child.setStatus({ code: SpanStatusCode.ERROR, message: 'connection reset by peer' });
        child.end();

        // Emitted while the server span is active: the SDK attaches its trace context.
        logger.emit({
          // An event time that differs from the observed time, with full nanosecond precision.
          timestamp: [Math.floor(Date.now() / 1000) - 2, 123_456_789],
          severityNumber: SeverityNumber.ERROR,
          severityText: 'ERROR',
          body: 'checkout failed: connection reset by peer',
          eventName: 'checkout.failed',
          attributes: {
            'http.route': '/api/checkout',
            'retry.count': 2,
            'error.fatal': false,
            ratio: 0.25,
            'error.codes': ['E1', 'E2'],
          },
        });
        parent.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream database error' });
        parent.end();
      },
    );
  } finally {
    context.disable();
  }
  // Outside any span: no trace context; a structured (map) body.
  logger.emit({
    severityNumber: SeverityNumber.INFO2,
    severityText: 'INFO2',
    body: { order: 'o-1', items: 3, total: 19.5, paid: false, tags: ['gift', 'express'] } as AnyValue,
    attributes: { component: 'cart' },
  });

  const requests = meter.createCounter('http.server.requests', {
    unit: '{request}',
    description: 'Requests served',
    valueType: ValueType.INT,
  });
  requests.add(5, { 'http.route': '/a' });
  requests.add(3, { 'http.route': '/a' });
  requests.add(2, { 'http.route': '/b', 'http.request.method': 'GET' });
  const duration = meter.createHistogram('http.server.request.duration', {
    unit: 'ms',
    description: 'Request latency',
    advice: { explicitBucketBoundaries: [10, 100, 500] },
  });
  for (const v of [7, 42, 42.5, 480, 900.25]) duration.record(v, { 'http.route': '/a' });
  const depth = meter.createObservableGauge('queue.depth', { unit: '{item}', description: 'Items waiting' });
  depth.addCallback((r) => r.observe(17.5, { queue: 'main' }));
  const active = meter.createUpDownCounter('sessions.active', { valueType: ValueType.INT });
  active.add(4);
  active.add(-6);

  await tracerProvider.forceFlush();
  await loggerProvider.forceFlush();
  await meterProvider.forceFlush();
  // The simple log processor does not await its exports in forceFlush: wait for each export's callback.
  await Promise.all([...spans.exported, ...logs.exported]);
  // Shutting down the meter provider would collect and export once more: the assertions need one exact export.
  await tracerProvider.shutdown();
  await loggerProvider.shutdown();
  await metrics.exporter.shutdown();
  return { sessionId, spans, logs, metrics, linked };
}

const kinds = await databaseKinds();

describe.each(kinds)('OpenTelemetry JS SDK → OTLP exporters → server → query API (%s)', (kind) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(kind);
    await addAlias(t.server.database.db, { now: () => Date.now() }, t.projectId, 'web-app', 'web-app-alias');
  });
  afterAll(async () => {
    await t?.close();
  });

  describe.each(FLAVORS)('$name', (flavor) => {
    let run: Run;
    beforeAll(async () => {
      run = await runSdk(t, flavor);
    });

    it('every export the SDK made succeeded', () => {
      expectAllSucceeded(run.spans.results, 'trace');
      expectAllSucceeded(run.logs.results, 'log');
      expectAllSucceeded(run.metrics.results, 'metric');
      expect(run.spans.sent).toHaveLength(2);
      expect(run.logs.sent).toHaveLength(2);
      expect(run.metrics.sent).toHaveLength(1);
    });

    it('spans read back field for field', async () => {
      const rows = await listAll(t, '/spans', `session_id=${run.sessionId}`);
      expect(rows).toHaveLength(run.spans.sent.length);
      const parentSdk = run.spans.sent.find((s) => s.name === 'POST /api/checkout')!;
      const childSdk = run.spans.sent.find((s) => s.name === 'SELECT orders')!;
      // The SDK really built a parent/child pair in one trace; the server must keep that relation.
      expect(childSdk.parentSpanContext?.spanId).toBe(parentSdk.spanContext().spanId);
      expect(childSdk.spanContext().traceId).toBe(parentSdk.spanContext().traceId);

      for (const sdk of run.spans.sent) {
        const ctx = sdk.spanContext();
        const row = rows.find((r) => r.span_id === ctx.spanId);
        expect(row, `span ${sdk.name} stored`).toBeDefined();
        const startNs = nanos(sdk.startTime);
        const endNs = nanos(sdk.endTime);
        expect(row).toEqual({
          id: expect.any(Number),
          app: 'web-app', // stored under the canonical app even when sent under an alias
          session_id: run.sessionId,
          received_at: expect.any(String),
          trace_id: ctx.traceId,
          span_id: ctx.spanId,
          parent_span_id: sdk.parentSpanContext?.spanId ?? null,
          name: sdk.name,
          kind: otlpKind(sdk.kind),
          start_time_unix_nano: startNs,
          end_time_unix_nano: endNs,
          time: isoOf(sdk.startTime),
          duration_ms: expect.closeTo(Number(BigInt(endNs) - BigInt(startNs)) / 1e6, 6),
          status: { code: sdk.status.code, message: sdk.status.message ?? null },
          attributes: plainAttributes(sdk.attributes),
          events: sdk.events.map((e) => ({
            timeUnixNano: nanos(e.time),
            name: e.name,
            attributes: plainAttributes(e.attributes),
          })),
          links: sdk.links.map((l) => ({
            traceId: l.context.traceId,
            spanId: l.context.spanId,
            traceState: l.context.traceState?.serialize() ?? '',
            attributes: plainAttributes(l.attributes),
          })),
          resource: { attributes: plainAttributes(sdk.resource.attributes) },
          scope: { name: sdk.instrumentationScope.name, version: sdk.instrumentationScope.version, attributes: {} },
        });
      }

      // Spot checks that the reference itself carries what the test claims to cover.
      const parent = rows.find((r) => r.span_id === parentSdk.spanContext().spanId)!;
      expect(parent.kind).toBe(2); // SPAN_KIND_SERVER
      expect(parent.attributes).toMatchObject({
        'http.response.status_code': 500,
        'server.duration_ratio': 0.375,
        'user.is_guest': true,
      });
      expect(parent.links).toEqual([
        {
          traceId: run.linked.traceId,
          spanId: run.linked.spanId,
          traceState: 'vendor=abc,other=x-1',
          attributes: { 'link.reason': 'retry-of', 'link.attempt': 1 },
        },
      ]);
      expect((parent.resource as { attributes: Row }).attributes['service.name']).toBe(flavor.serviceName);
      const child = rows.find((r) => r.span_id === childSdk.spanContext().spanId)!;
      expect(child.status).toEqual({ code: 2, message: 'connection reset by peer' });
      expect(child.kind).toBe(3); // SPAN_KIND_CLIENT
      expect((child.events as Row[]).map((e) => e.name)).toEqual(['db.retry', 'db.gave_up']);

      // The trace_id filter finds the same two spans.
      const byTrace = await controlGet(t, `/spans?trace_id=${parentSdk.spanContext().traceId.toUpperCase()}`);
      expect(byTrace.body.data.map((r) => r.span_id).sort()).toEqual(rows.map((r) => r.span_id).sort());
    });

    it('log records read back field for field, with the active span’s trace context', async () => {
      const rows = await listAll(t, '/logs', `session_id=${run.sessionId}`);
      expect(rows).toHaveLength(run.logs.sent.length);
      const parentSdk = run.spans.sent.find((s) => s.name === 'POST /api/checkout')!;
      for (const sdk of run.logs.sent) {
        const matching = rows.filter(
          (r) => r.time_unix_nano === nanos(sdk.hrTime) && r.severity_number === sdk.severityNumber,
        );
        expect(matching, `log "${String(sdk.severityText)}" stored once`).toHaveLength(1);
        expect(matching[0]).toEqual({
          id: expect.any(Number),
          app: 'web-app',
          session_id: run.sessionId,
          received_at: expect.any(String),
          time_unix_nano: nanos(sdk.hrTime),
          observed_time_unix_nano: nanos(sdk.hrTimeObserved),
          time: isoOf(sdk.hrTime),
          severity_number: sdk.severityNumber,
          severity_text: sdk.severityText ?? null,
          body: sdk.body,
          event_name: sdk.eventName ?? null,
          trace_id: sdk.spanContext?.traceId ?? null,
          span_id: sdk.spanContext?.spanId ?? null,
          attributes: plainAttributes(sdk.attributes as Attributes),
          resource: { attributes: plainAttributes(sdk.resource.attributes) },
          scope: { name: sdk.instrumentationScope.name, version: sdk.instrumentationScope.version, attributes: {} },
        });
      }
      const inSpan = rows.find((r) => r.severity_text === 'ERROR')!;
      expect(inSpan.trace_id).toBe(parentSdk.spanContext().traceId);
      expect(inSpan.span_id).toBe(parentSdk.spanContext().spanId);
      expect(inSpan.event_name).toBe('checkout.failed');
      expect(inSpan.time_unix_nano).toMatch(/123456789$/);
      expect(inSpan.observed_time_unix_nano).not.toBe(inSpan.time_unix_nano);
      const outside = rows.find((r) => r.severity_text === 'INFO2')!;
      expect(outside).toMatchObject({ trace_id: null, span_id: null, severity_number: 10 });
      expect(outside.body).toEqual({ order: 'o-1', items: 3, total: 19.5, paid: false, tags: ['gift', 'express'] });

      const byTrace = await controlGet(t, `/logs?trace_id=${parentSdk.spanContext().traceId}`);
      expect(byTrace.body.data.map((r) => r.id)).toEqual([inSpan.id]);
    });

    it('metric points read back field for field: values, units, buckets, monotonicity, temporality', async () => {
      const rows = await listAll(t, '/metrics', `session_id=${run.sessionId}`);
      const sdkMetrics: { metric: MetricData; scope: { name: string; version?: string } }[] = run.metrics.sent.flatMap(
        (rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((metric) => ({ metric, scope: sm.scope }))),
      );
      const resource = run.metrics.sent[0]!.resource;
      const expectedPoints = sdkMetrics.reduce((n, m) => n + m.metric.dataPoints.length, 0);
      expect(expectedPoints).toBe(5); // two counter series, one histogram, one gauge, one up-down counter
      expect(rows).toHaveLength(expectedPoints);

      for (const { metric, scope } of sdkMetrics) {
        for (const point of metric.dataPoints) {
          const matching = rows.filter(
            (r) => r.name === metric.descriptor.name && sameAttributes(r.attributes, plainAttributes(point.attributes)),
          );
          expect(matching, `${metric.descriptor.name} ${JSON.stringify(point.attributes)} stored once`).toHaveLength(1);
          const row = matching[0]!;
          let value: unknown;
          let data: Row;
          switch (metric.dataPointType) {
            case DataPointType.SUM:
              value = point.value;
              data = {
                aggregationTemporality: otlpTemporality(metric.aggregationTemporality),
                isMonotonic: metric.isMonotonic,
                value: point.value,
              };
              break;
            case DataPointType.GAUGE:
              value = point.value;
              data = { value: point.value };
              break;
            case DataPointType.HISTOGRAM: {
              const h = metric.dataPoints.find((p) => p === point)!.value;
              value = h.sum;
              data = {
                aggregationTemporality: otlpTemporality(metric.aggregationTemporality),
                count: String(h.count),
                sum: h.sum ?? null,
                bucketCounts: h.buckets.counts.map(String),
                explicitBounds: h.buckets.boundaries,
                min: h.min ?? null,
                max: h.max ?? null,
              };
              break;
            }
            default:
              throw new Error(`unexpected ${metric.dataPointType}`);
          }
          expect(row).toEqual({
            id: expect.any(Number),
            app: 'web-app',
            session_id: run.sessionId,
            received_at: expect.any(String),
            name: metric.descriptor.name,
            description: metric.descriptor.description || null,
            unit: metric.descriptor.unit || null,
            type: METRIC_TYPE[metric.dataPointType],
            time_unix_nano: nanos(point.endTime),
            start_time_unix_nano: nanos(point.startTime),
            time: isoOf(point.endTime),
            value,
            data,
            attributes: plainAttributes(point.attributes),
            resource: { attributes: plainAttributes(resource.attributes) },
            scope: { name: scope.name, version: scope.version ?? '', attributes: {} },
          });
        }
      }

      // What the SDK computed, as the user would read it back.
      const byName = (name: string, attr?: [string, string]) =>
        rows.find((r) => r.name === name && (!attr || (r.attributes as Row)[attr[0]] === attr[1]))!;
      const deltaRun = flavor.name.includes('protobuf');
      expect(byName('http.server.requests', ['http.route', '/a'])).toMatchObject({
        value: 8,
        type: 'sum',
        unit: '{request}',
        data: { isMonotonic: true, aggregationTemporality: deltaRun ? 1 : 2, value: 8 },
      });
      expect(byName('http.server.requests', ['http.route', '/b']).value).toBe(2);
      expect(byName('http.server.request.duration')).toMatchObject({
        type: 'histogram',
        unit: 'ms',
        value: 1471.75,
        data: { count: '5', bucketCounts: ['1', '2', '1', '1'], explicitBounds: [10, 100, 500], min: 7, max: 900.25 },
      });
      expect(byName('queue.depth')).toMatchObject({ type: 'gauge', value: 17.5, data: { value: 17.5 } });
      expect(byName('sessions.active')).toMatchObject({
        type: 'sum',
        value: -2,
        data: { isMonotonic: false, aggregationTemporality: 2, value: -2 },
      });
    });

    it('the session summary counts exactly what was sent', async () => {
      const all: Row[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; body: { data: Row[]; next_cursor: string | null } } = await controlGet(
          t,
          `/sessions?limit=500${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(res.status).toBe(200);
        all.push(...res.body.data);
        cursor = res.body.next_cursor;
      } while (cursor);
      const session = all.filter((s) => s.session_id === run.sessionId);
      expect(session).toHaveLength(1);
      const times = [
        ...run.spans.sent.map((s) => nanos(s.startTime)),
        ...run.logs.sent.map((l) => nanos(l.hrTime)),
        ...run.metrics.sent.flatMap((rm) =>
          rm.scopeMetrics.flatMap((sm) => sm.metrics.flatMap((m) => m.dataPoints.map((p) => nanos(p.endTime)))),
        ),
      ].map((ns) => Number(BigInt(ns) / 1_000_000n));
      expect(session[0]).toEqual({
        session_id: run.sessionId,
        app: 'web-app',
        first_seen: new Date(Math.min(...times)).toISOString(),
        last_seen: new Date(Math.max(...times)).toISOString(),
        counts: { spans: 2, logs: 2, metric_points: 5, replay_chunks: 0, recipes: 0 },
        // A plain OpenTelemetry SDK sends no user, session attributes or sampling decision.
        user: null,
        attributes: {},
        replay_mode: null,
        sample_rate: null,
        // Nor a Playwright test (test.* resource attributes, from @svc/playwright).
        test: null,
        // The resource's environment (the current semantic convention's name) and version; its one ERROR log; no page
        // loads and no user agent from Node.js.
        duration_ms: Math.max(...times) - Math.min(...times),
        env: 'e2e',
        release: '4.2.0',
        errors: 1,
        pages: 0,
        entry_url: null,
        urls: [],
        device: { browser: null, browser_version: null, os: null, type: null },
      });
    });
  });
});
