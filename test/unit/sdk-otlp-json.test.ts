import { describe, expect, it } from 'vitest';
import { normalizeLogs } from '../../server/src/otlp/logs';
import { normalizeMetrics } from '../../server/src/otlp/metrics';
import { normalizeTraces } from '../../server/src/otlp/traces';
import type { LogItem, MetricItem, SpanItem } from '../../src/pipeline/items';
import { ENCODE_BODY, encodeLogs, encodeMetrics, encodeSpans, partition } from '../../src/pipeline/otlp-json';
import { toAnyValue, unixNano } from '../../src/pipeline/otlp-values';
import { SDK_NAME, SDK_VERSION } from '../../src/version';

const SERVICE = {
  'service.name': 'web-app',
  'service.version': '1.2.3',
  'deployment.environment': 'staging',
  'telemetry.sdk.name': SDK_NAME,
};
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const T0 = 1_700_000_000_123.456;

const log = (level: LogItem['level'], sessionId = 's1', extra: Partial<LogItem> = {}): LogItem => ({
  kind: 'log',
  timeMs: T0,
  level,
  body: `${level} message`,
  sessionId,
  attributes: { 'session.id': sessionId },
  ...extra,
});

const metric = (
  name: string,
  value: number,
  unit: string,
  sessionId = 's1',
  extra: Partial<MetricItem> = {},
): MetricItem => ({
  kind: 'metric',
  timeMs: T0,
  name,
  value,
  unit,
  sessionId,
  attributes: {},
  ...extra,
});

const span = (extra: Partial<SpanItem> = {}): SpanItem => ({
  kind: 'span',
  traceId: TRACE,
  spanId: SPAN,
  name: 'browser.fetch GET',
  spanKind: 3,
  startMs: T0,
  endMs: T0 + 12.5,
  sessionId: 's1',
  attributes: { 'http.method': 'GET', 'http.status_code': 200 },
  events: [],
  statusCode: 0,
  scope: { name: '@svc/browser/fetch', version: '1.0.0' },
  ...extra,
});

describe('OTLP AnyValue and time encoding', () => {
  it('encodes integers as intValue strings, other numbers as doubles, and arrays element by element', () => {
    expect(toAnyValue('x')).toEqual({ stringValue: 'x' });
    expect(toAnyValue(true)).toEqual({ boolValue: true });
    expect(toAnyValue(42)).toEqual({ intValue: '42' });
    expect(toAnyValue(-7)).toEqual({ intValue: '-7' });
    expect(toAnyValue(0.25)).toEqual({ doubleValue: 0.25 });
    expect(toAnyValue(2 ** 60)).toEqual({ doubleValue: 2 ** 60 });
    expect(toAnyValue(Number.NaN)).toEqual({ doubleValue: 'NaN' });
    expect(toAnyValue(-Infinity)).toEqual({ doubleValue: '-Infinity' });
    expect(toAnyValue(['a', 1, 1.5, false])).toEqual({
      arrayValue: { values: [{ stringValue: 'a' }, { intValue: '1' }, { doubleValue: 1.5 }, { boolValue: false }] },
    });
  });

  it('turns fractional epoch milliseconds into exact nanosecond strings', () => {
    expect(unixNano(1_700_000_000_123)).toBe('1700000000123000000');
    expect(unixNano(1_700_000_000_123.456)).toBe('1700000000123456000');
    expect(unixNano(1_700_000_000_123 + 0.9999)).toBe('1700000000124000000');
    expect(unixNano(1_700_000_000_000.001)).toBe('1700000000000001000');
    expect(unixNano(0)).toBe('0');
  });
});

describe('OTLP/JSON export requests', () => {
  it('groups logs by session into resources carrying the service attributes and session.id', () => {
    const req = encodeLogs([log('info', 's1'), log('error', 's2'), log('warn', 's1')], SERVICE);
    expect(req.resourceLogs).toHaveLength(2);
    const [first, second] = req.resourceLogs;
    expect(first!.resource.attributes).toEqual([
      { key: 'service.name', value: { stringValue: 'web-app' } },
      { key: 'service.version', value: { stringValue: '1.2.3' } },
      { key: 'deployment.environment', value: { stringValue: 'staging' } },
      { key: 'telemetry.sdk.name', value: { stringValue: SDK_NAME } },
      { key: 'session.id', value: { stringValue: 's1' } },
    ]);
    expect(first!.scopeLogs).toEqual([
      { scope: { name: SDK_NAME, version: SDK_VERSION }, logRecords: expect.any(Array) },
    ]);
    expect(first!.scopeLogs[0]!.logRecords.map((r) => r.severityText)).toEqual(['INFO', 'WARN']);
    expect(second!.scopeLogs[0]!.logRecords.map((r) => r.body)).toEqual([{ stringValue: 'error message' }]);
  });

  it('maps the five levels to OTLP severity numbers and keeps trace context', () => {
    const levels = ['debug', 'info', 'warn', 'error', 'fatal'] as const;
    const records = encodeLogs(
      levels.map((l) => log(l, 's1', { traceId: TRACE, spanId: SPAN })),
      SERVICE,
    ).resourceLogs[0]!.scopeLogs[0]!.logRecords;
    expect(records.map((r) => [r.severityNumber, r.severityText])).toEqual([
      [5, 'DEBUG'],
      [9, 'INFO'],
      [13, 'WARN'],
      [17, 'ERROR'],
      [21, 'FATAL'],
    ]);
    expect(records[0]).toMatchObject({ traceId: TRACE, spanId: SPAN, timeUnixNano: '1700000000123456000' });
    expect(encodeLogs([log('info')], SERVICE).resourceLogs[0]!.scopeLogs[0]!.logRecords[0]).not.toHaveProperty(
      'traceId',
    );
  });

  it('encodes spans with ids, kind, nanosecond times, attributes, events and status, grouped by scope', () => {
    const items = [
      span({
        parentSpanId: 'a'.repeat(16),
        statusCode: 2,
        statusMessage: 'HTTP 500',
        events: [{ name: 'retry', timeMs: T0 + 1, attributes: { attempt: 2 } }],
      }),
      span({ spanId: 'b'.repeat(16), scope: { name: 'document-load' } }),
    ];
    const [resource] = encodeSpans(items, SERVICE).resourceSpans;
    expect(resource!.scopeSpans.map((s) => s.scope)).toEqual([
      { name: '@svc/browser/fetch', version: '1.0.0' },
      { name: 'document-load' },
    ]);
    expect(resource!.scopeSpans[0]!.spans[0]).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      parentSpanId: 'a'.repeat(16),
      name: 'browser.fetch GET',
      kind: 3,
      startTimeUnixNano: '1700000000123456000',
      endTimeUnixNano: '1700000000135956000',
      attributes: [
        { key: 'http.method', value: { stringValue: 'GET' } },
        { key: 'http.status_code', value: { intValue: '200' } },
      ],
      events: [
        {
          timeUnixNano: '1700000000124456000',
          name: 'retry',
          attributes: [{ key: 'attempt', value: { intValue: '2' } }],
        },
      ],
      status: { code: 2, message: 'HTTP 500' },
    });
    expect(resource!.scopeSpans[1]!.spans[0]!.status).toEqual({ code: 0 });
  });

  it('encodes recorded values as gauges per name and unit, and the SDK counter as a cumulative monotonic sum', () => {
    const items = [
      metric('LCP', 1234.5, 'ms'),
      metric('LCP', 900, 'ms'),
      metric('CLS', 0.02, '1'),
      metric('svc.sdk.dropped_items', 3, '{item}', 's1', {
        sumSinceMs: T0 - 1000,
        attributes: { reason: 'queue_full' },
      }),
    ];
    const metrics = encodeMetrics(items, SERVICE).resourceMetrics[0]!.scopeMetrics[0]!.metrics;
    expect(metrics.map((m) => [m.name, m.unit])).toEqual([
      ['LCP', 'ms'],
      ['CLS', '1'],
      ['svc.sdk.dropped_items', '{item}'],
    ]);
    expect(metrics[0]).toEqual({
      name: 'LCP',
      unit: 'ms',
      gauge: {
        dataPoints: [
          { timeUnixNano: '1700000000123456000', attributes: [], asDouble: 1234.5 },
          { timeUnixNano: '1700000000123456000', attributes: [], asDouble: 900 },
        ],
      },
    });
    expect(metrics[2]).toEqual({
      name: 'svc.sdk.dropped_items',
      unit: '{item}',
      sum: {
        aggregationTemporality: 2,
        isMonotonic: true,
        dataPoints: [
          {
            timeUnixNano: '1700000000123456000',
            startTimeUnixNano: '1699999999123456000',
            attributes: [{ key: 'reason', value: { stringValue: 'queue_full' } }],
            asInt: '3',
          },
        ],
      },
    });
  });

  it('produces bodies the reference server accepts, field for field', () => {
    const batch = partition([
      log('fatal', 's9', { traceId: TRACE, spanId: SPAN }),
      span({ sessionId: 's9' }),
      metric('INP', 48, 'ms', 's9'),
    ]);
    const logs = normalizeLogs(JSON.parse(ENCODE_BODY.logs(batch.logs, SERVICE)), 0);
    expect(logs.services).toEqual(['web-app']);
    expect(logs.rows).toMatchObject([
      {
        session_id: 's9',
        severity_number: 21,
        severity_text: 'FATAL',
        trace_id: TRACE,
        span_id: SPAN,
        time_ns: '1700000000123456000',
      },
    ]);
    const spans = normalizeTraces(JSON.parse(ENCODE_BODY.traces(batch.traces, SERVICE)));
    expect(spans.services).toEqual(['web-app']);
    expect(spans.rows).toMatchObject([
      { session_id: 's9', trace_id: TRACE, span_id: SPAN, kind: 3, duration_ms: 12.5 },
    ]);
    const points = normalizeMetrics(JSON.parse(ENCODE_BODY.metrics(batch.metrics, SERVICE)));
    expect(points.services).toEqual(['web-app']);
    expect(points.rows).toMatchObject([{ session_id: 's9', name: 'INP', unit: 'ms', type: 'gauge', value: 48 }]);
  });
});
