import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-web';
import type { SdkCore } from '../core/core';
import type { Tracing } from '../core/integration';
import { sessionSampling } from '../session/sampling';
import { SDK_NAME, SDK_VERSION } from '../version';
import { InteractionContextManager } from './interactions';
import { createPropagator } from './propagator';
import { toSpanItem } from './span-item';
import { createTracerProvider } from './tracer';

/**
 * Starts OpenTelemetry web tracing: a tracer provider whose spans go onto the SDK's one queue (no exporter or
 * batch processor of its own: the queue batches), the stack context manager with interaction spans
 * (interactions.ts) and our propagator. The spans themselves come from the integrations (integrations.ts) and from
 * the SDK's fetch wrapper (fetch.ts), through the provider's tracers.
 *
 * Global registration: the context manager and propagator must be global for the spans to nest and the headers to
 * be injected. When the app registered its own OpenTelemetry first, its globals are kept and only ours are undone
 * at shutdown.
 */
export function startTracing(core: SdkCore): Tracing {
  const { propagation: options } = core.config;
  // Processors added by integrations (the OpenTelemetry entry) see each span before the SDK queues it.
  const added: SpanProcessor[] = [];
  const processor: SpanProcessor = {
    onStart(span, parent) {
      span.setAttribute('session.id', core.session.id());
      for (const other of added) other.onStart(span, parent);
    },
    onEnd(span) {
      for (const other of added) other.onEnd(span);
      const sessionId = span.attributes['session.id'];
      core.enqueue(toSpanItem(span, String(sessionId ?? core.session.id())));
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  // A session outside `sampleRate` sends nothing: its spans are not recorded, and the traceparent it sends says so
  // (flags 00), so that a backend sampling on the parent's flag does not keep half of a trace the browser never sends.
  // The provider is the SDK's own (tracer.ts), not OpenTelemetry's `TracerProvider`, for bundle size; the resource is
  // only what an exporter of the `/otel` entry sends (the SDK's queue has its own).
  const provider = createTracerProvider({
    processor,
    sampled: () => sessionSampling(core.session.id(), core.config).sampled,
    resource: {
      'service.name': core.config.serviceName || '',
      'telemetry.sdk.name': SDK_NAME,
      'telemetry.sdk.version': SDK_VERSION,
      'telemetry.sdk.language': 'webjs',
    },
  });

  const contextManager = new InteractionContextManager();
  contextManager.enable();
  const ownContext = context.setGlobalContextManager(contextManager);
  if (ownContext) core.teardown.add(() => context.disable());
  if (trace.setGlobalTracerProvider(provider)) core.teardown.add(() => trace.disable());
  if (options.enabled) {
    const propagator = createPropagator(options.headerName, options.sessionHeaderName, () => core.session.id());
    if (propagation.setGlobalPropagator(propagator)) core.teardown.add(() => propagation.disable());
  }
  return {
    provider,
    tracer: (name) => provider.getTracer(name, SDK_VERSION),
    contextManager,
    addSpanProcessor: (other) => void added.push(other),
    // Undone at shutdown by the `context.disable()` above, whichever manager is registered by then.
    useContextManager(manager) {
      if (!ownContext) return false;
      context.disable();
      return context.setGlobalContextManager(manager.enable());
    },
  };
}
