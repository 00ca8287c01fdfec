import type { Attributes, LogLevel } from '../core/types';

/**
 * What signals put on the one bounded queue. Items are plain data, already enriched (session id, trace context),
 * so the encoder never has to reach back into the SDK. Times are Unix epoch milliseconds with fractions
 * (`performance.timeOrigin + performance.now()` precision where available).
 */

export interface LogItem {
  readonly kind: 'log';
  readonly timeMs: number;
  readonly level: LogLevel;
  readonly body: string;
  readonly sessionId: string;
  readonly attributes: Attributes;
  readonly traceId?: string | undefined;
  readonly spanId?: string | undefined;
}

export interface MetricItem {
  readonly kind: 'metric';
  readonly timeMs: number;
  readonly name: string;
  readonly value: number;
  /** UCUM unit, `''` when none was given. */
  readonly unit: string;
  readonly sessionId: string;
  readonly attributes: Attributes;
  /**
   * Set only on counters (the SDK's own `svc.sdk.dropped_items`): the point is then a cumulative, monotonic sum
   * counted since this time (epoch ms). Without it the point is a gauge, which is what `metric()` and Web Vitals
   * record.
   */
  readonly sumSinceMs?: number | undefined;
}

/** OTLP span kinds, as numbers (SPAN_KIND_INTERNAL = 1 … CONSUMER = 5). */
export type SpanKindNumber = 1 | 2 | 3 | 4 | 5;

export interface SpanEventItem {
  readonly name: string;
  readonly timeMs: number;
  readonly attributes: Attributes;
}

export interface SpanItem {
  readonly kind: 'span';
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string | undefined;
  readonly name: string;
  readonly spanKind: SpanKindNumber;
  readonly startMs: number;
  readonly endMs: number;
  readonly sessionId: string;
  readonly attributes: Attributes;
  readonly events: readonly SpanEventItem[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: 0 | 1 | 2;
  readonly statusMessage?: string | undefined;
  /** Instrumentation scope that produced the span. */
  readonly scope: { readonly name: string; readonly version?: string | undefined };
}

export type TelemetryItem = LogItem | MetricItem | SpanItem;
