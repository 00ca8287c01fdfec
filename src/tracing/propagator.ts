import {
  isSpanContextValid,
  trace,
  type Context,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';

/**
 * Injects the W3C trace context under a configurable header name (`propagation.headerName`, `traceparent` by
 * default) and the session id under `propagation.sessionHeaderName`. OpenTelemetry's W3C propagator hard-codes the
 * header name, so this small one replaces it; both the fetch wrapper and the XHR instrumentation go through it.
 * The browser is always the first hop, so `extract` does nothing.
 */
export function createPropagator(
  headerName: string,
  sessionHeaderName: string,
  sessionId: () => string,
): TextMapPropagator {
  return {
    inject(context: Context, carrier: unknown, setter: TextMapSetter) {
      const spanContext = trace.getSpanContext(context);
      if (spanContext === undefined || !isSpanContextValid(spanContext)) return;
      const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
      setter.set(carrier, headerName, `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`);
      const state = spanContext.traceState;
      const traceState = state?.serialize();
      if (traceState) setter.set(carrier, 'tracestate', traceState);
      setter.set(carrier, sessionHeaderName, sessionId());
    },
    extract: (context: Context) => context,
    fields: () => [headerName, 'tracestate', sessionHeaderName],
  };
}
