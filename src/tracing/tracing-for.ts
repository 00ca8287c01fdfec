import { isSpanContextValid, trace, type SpanContext } from '@opentelemetry/api';
import { startedTracings, type StartedTracing } from '../core/started-tracing';
import type { IntegrationCore, Tracing } from '../core/integration';
import { SDK_NAME } from '../version';
import { createTracedFetch } from './fetch';
import { startTracing } from './provider';

/**
 * The SDK's tracing, for an integration that traces: the first call of an instance starts it (tracer provider,
 * context manager, propagator, and `instrumentFetch()`'s traced fetch), later calls get the same. Only integrations
 * that trace call it, so an app whose integrations do not trace bundles none of this.
 */
export function tracingFor(core: IntegrationCore): Tracing {
  return startedFor(core).tracing;
}

/** `instrumentFetch()`'s traced fetch, tracing started if it was not; undefined where the browser has no fetch. */
export const tracedFetchFor = (core: IntegrationCore): typeof fetch | undefined => startedFor(core).tracedFetch;

function startedFor(core: IntegrationCore): StartedTracing {
  let started = startedTracings.get(core.teardown);
  if (started === undefined) {
    const tracing = startTracing(core);
    const fetch = core.originals.fetch;
    const tracedFetch =
      fetch &&
      createTracedFetch(core, tracing.tracer(SDK_NAME), fetch, (level, message, attributes) =>
        core.logger.log(level, message, undefined, attributes),
      );
    started = { tracing, tracedFetch, activeSpan };
    startedTracings.set(core.teardown, started);
  }
  return started;
}

/** The active OpenTelemetry span's context, if valid: its ids put a log record into the trace. */
function activeSpan(): SpanContext | undefined {
  const span = trace.getActiveSpan();
  const spanContext = span && span.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext : undefined;
}
