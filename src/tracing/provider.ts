import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, SamplingDecision, type Sampler, type SpanProcessor } from '@opentelemetry/sdk-trace-web';
import type { SdkCore } from '../sdk/core';
import { sessionSampling } from '../session/sampling';
import { SDK_NAME, SDK_VERSION } from '../version';
import { traceDocumentLoad } from './document-load';
import { InteractionContextManager, traceInteractions } from './interactions';
import { createPropagator } from './propagator';
import { toSpanItem } from './span-item';
import { traceXhr } from './xhr-network';

/**
 * Instrumentation scope of each kind of automatic span: the names of the OpenTelemetry instrumentations whose spans
 * these reproduce, kept so that queries on the scope name find them as before.
 */
const scope = (name: string): string => `@opentelemetry/instrumentation-${name}`;

/**
 * Starts OpenTelemetry web tracing: a tracer provider whose spans go onto the SDK's one queue (no exporter or
 * batch processor of its own: the queue batches), the stack context manager with interaction spans
 * (interactions.ts), our propagator, and the SDK's own XHR, document-load and user-interaction spans, made with
 * the provider's tracers. Fetch is traced by the SDK's wrapper (`fetch.ts`) with the returned tracer.
 *
 * Global registration: the context manager and propagator must be global for the spans to nest and the headers to
 * be injected. When the app registered its own OpenTelemetry first, its globals are kept and only ours are undone
 * at shutdown.
 */
export function startTracing(core: SdkCore): Tracer {
  const { propagation: options } = core.config;
  const processor: SpanProcessor = {
    onStart(span) {
      span.setAttribute('session.id', core.session.id());
    },
    onEnd(span) {
      core.enqueue(toSpanItem(span, String(span.attributes['session.id'] ?? core.session.id())));
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  // A session outside `sampleRate` sends nothing: its spans are not recorded, and the traceparent it sends says so
  // (flags 00), so that a backend sampling on the parent's flag does not keep half of a trace the browser never sends.
  const sampler: Sampler = {
    shouldSample: () => ({
      decision: sessionSampling(core.session.id(), core.config).sampled
        ? SamplingDecision.RECORD_AND_SAMPLED
        : SamplingDecision.NOT_RECORD,
    }),
    toString: () => 'SvcSessionSampler',
  };
  // BasicTracerProvider, not WebTracerProvider: the web one only adds `register()`, whose default W3C trace-context
  // and baggage propagators (and their code) we never use, since we register our own globals below.
  const provider = new BasicTracerProvider({ sampler, spanProcessors: [processor] });
  const tracer = (name: string): Tracer => provider.getTracer(name, SDK_VERSION);

  const contextManager = new InteractionContextManager();
  contextManager.enable();
  if (context.setGlobalContextManager(contextManager)) core.teardown.add(() => context.disable());
  if (trace.setGlobalTracerProvider(provider)) core.teardown.add(() => trace.disable());
  if (options.enabled) {
    const propagator = createPropagator(options.headerName, options.sessionHeaderName, () => core.session.id());
    if (propagation.setGlobalPropagator(propagator)) core.teardown.add(() => propagation.disable());
  }
  core.teardown.add(() => void provider.shutdown());
  traceXhr(core, tracer(scope('xml-http-request')));
  if (typeof window !== 'undefined') {
    traceDocumentLoad(core, tracer(scope('document-load')));
    traceInteractions(core, tracer(scope('user-interaction')), contextManager);
  }
  return tracer(SDK_NAME);
}
