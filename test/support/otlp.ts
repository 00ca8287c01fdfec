/** Small OTLP/JSON builders for tests: valid by default, so each test changes only what it is about. */
import { randomBytes } from 'node:crypto';

export const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
export const SPAN_ID = 'b7ad6b7169203331';

type Attr = { key: string; value: Record<string, unknown> };
export const str = (key: string, value: string): Attr => ({ key, value: { stringValue: value } });

export function resourceAttrs(serviceName: string, sessionId?: string): Attr[] {
  return [str('service.name', serviceName), ...(sessionId ? [str('session.id', sessionId)] : [])];
}

export interface SpanInput {
  serviceName?: string;
  sessionId?: string;
  traceId?: string;
  spanId?: string;
  name?: string;
  startMs?: number;
}

/**
 * Spans without a given `spanId` get a random one: ingest stores a span once per (trace id, span id), so two calls
 * make two spans, and a test about retries passes the same body twice.
 */
export function traceBody(spans: SpanInput[] = [{}]): Record<string, unknown> {
  return {
    resourceSpans: spans.map((s, i) => ({
      resource: { attributes: resourceAttrs(s.serviceName ?? 'web-app', s.sessionId) },
      scopeSpans: [
        {
          scope: { name: '@svc/test', version: '1.0.0' },
          spans: [
            {
              traceId: s.traceId ?? TRACE_ID,
              spanId: s.spanId ?? randomBytes(8).toString('hex'),
              name: s.name ?? `span-${i}`,
              kind: 3,
              startTimeUnixNano: `${(s.startMs ?? 1_700_000_000_000 + i) * 1_000_000}`,
              endTimeUnixNano: `${((s.startMs ?? 1_700_000_000_000 + i) + 5) * 1_000_000}`,
              attributes: [str('http.method', 'GET'), { key: 'http.status_code', value: { intValue: 200 } }],
              status: { code: 1 },
            },
          ],
        },
      ],
    })),
  };
}

export function logsBody(serviceName = 'web-app', sessionId?: string, message = 'hello'): Record<string, unknown> {
  return {
    resourceLogs: [
      {
        resource: { attributes: resourceAttrs(serviceName, sessionId) },
        scopeLogs: [
          {
            scope: { name: '@svc/test' },
            logRecords: [
              {
                timeUnixNano: '1700000000000000000',
                severityNumber: 17,
                severityText: 'ERROR',
                body: { stringValue: message },
                traceId: TRACE_ID,
                spanId: SPAN_ID,
                attributes: [str('exception.type', 'TypeError')],
              },
            ],
          },
        ],
      },
    ],
  };
}

export function metricsBody(serviceName = 'web-app', sessionId?: string): Record<string, unknown> {
  return {
    resourceMetrics: [
      {
        resource: { attributes: resourceAttrs(serviceName, sessionId) },
        scopeMetrics: [
          {
            scope: { name: '@svc/test' },
            metrics: [
              {
                name: 'web_vital_lcp_ms',
                unit: 'ms',
                gauge: { dataPoints: [{ timeUnixNano: '1700000000000000000', asDouble: 1234.5 }] },
              },
              {
                name: 'http.client.duration',
                unit: 'ms',
                histogram: {
                  aggregationTemporality: 2,
                  dataPoints: [
                    {
                      timeUnixNano: '1700000000000000000',
                      count: '3',
                      sum: 30,
                      bucketCounts: ['1', '2', '0'],
                      explicitBounds: [5, 10],
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}
