import type { Attributes as OtelAttributes, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-web';
import type { SpanItem, SpanKindNumber } from '../pipeline/items';
import type { Attributes } from '../core/types';

const hrTimeToMs = ([seconds, nanos]: HrTime): number => seconds * 1000 + nanos / 1e6;

/** OpenTelemetry attribute values may hold `null`/`undefined` inside arrays; OTLP cannot carry those. */
function toAttributes(source: OtelAttributes): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || value === null) continue;
    attributes[key] = Array.isArray(value)
      ? (value as ReadonlyArray<unknown>).filter(
          (entry): entry is string | number | boolean => entry !== null && entry !== undefined,
        )
      : (value as string | number | boolean);
  }
  return attributes;
}

/** An ended OpenTelemetry span as the plain record the queue holds. */
export function toSpanItem(span: ReadableSpan, sessionId: string): SpanItem {
  const context = span.spanContext();
  const { parentSpanContext } = span;
  return {
    kind: 'span',
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: parentSpanContext?.spanId,
    name: span.name,
    // OpenTelemetry API kinds are 0-based (INTERNAL = 0); OTLP's are 1-based.
    spanKind: (span.kind + 1) as SpanKindNumber,
    startMs: hrTimeToMs(span.startTime),
    endMs: hrTimeToMs(span.endTime),
    sessionId,
    attributes: toAttributes(span.attributes),
    events: span.events.map((event) => ({
      name: event.name,
      timeMs: hrTimeToMs(event.time),
      attributes: toAttributes(event.attributes || {}),
    })),
    statusCode: span.status.code,
    statusMessage: span.status.message,
    scope: { name: span.instrumentationScope.name, version: span.instrumentationScope.version },
  };
}
