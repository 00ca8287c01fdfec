import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { DocumentLoadInstrumentation } from '@opentelemetry/instrumentation-document-load';
import { UserInteractionInstrumentation } from '@opentelemetry/instrumentation-user-interaction';
import { XMLHttpRequestInstrumentation } from '@opentelemetry/instrumentation-xml-http-request';
import { StackContextManager, WebTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-web';
import type { SdkCore } from '../sdk/core';
import { SDK_NAME, SDK_VERSION } from '../version';
import { createPropagator } from './propagator';
import { createInteractionFolding } from './interaction-folding';
import { toSpanItem } from './span-item';
import { escapeRegExp, targetPatterns } from './targets';
import { xhrHttpAttributes } from './xhr-attributes';
import { observeXhr } from './xhr-network';

/** Events on which the user-interaction instrumentation starts a span (its default is clicks only). */
const INTERACTION_EVENTS: Array<keyof HTMLElementEventMap> = ['click', 'submit'];

/**
 * Starts OpenTelemetry web tracing: a tracer provider whose spans go onto the SDK's one queue (no exporter or
 * batch processor of its own: the queue batches), the stack context manager (zone.js is never loaded; DESIGN.md
 * fact 5), our propagator, and the XHR, document-load and user-interaction instrumentations. Fetch is traced by the
 * SDK's own wrapper (`fetch.ts`) with the same tracer and propagator.
 *
 * Global registration: the context manager and propagator must be global for instrumentations to see them. When the
 * app registered its own OpenTelemetry first, its globals are kept and only ours are undone at shutdown.
 */
export function startTracing(core: SdkCore): Tracer {
  const { propagation: options } = core.config;
  const interactions = createInteractionFolding();
  const processor: SpanProcessor = {
    onStart(span) {
      span.setAttribute('session.id', core.session.id());
    },
    onEnd(span) {
      if (interactions.fold(span)) return;
      const item = toSpanItem(span, String(span.attributes['session.id'] ?? core.session.id()));
      const xhr = xhrHttpAttributes(span);
      core.enqueue({
        ...item,
        parentSpanId: interactions.parentOf(item.parentSpanId),
        attributes: xhr === undefined ? item.attributes : { ...item.attributes, ...xhr },
      });
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const provider = new WebTracerProvider({ spanProcessors: [processor] });

  const contextManager = new StackContextManager();
  contextManager.enable();
  if (context.setGlobalContextManager(contextManager)) core.teardown.add(() => context.disable());
  if (trace.setGlobalTracerProvider(provider)) core.teardown.add(() => trace.disable());
  if (options.enabled) {
    const propagator = createPropagator(options.headerName, options.sessionHeaderName, () => core.session.id());
    if (propagation.setGlobalPropagator(propagator)) core.teardown.add(() => propagation.disable());
  }
  // Before the instrumentations, so its XHR patches are the innermost: it sees the headers that reach the browser.
  const xhrObserver = observeXhr(core, options.enabled ? [options.headerName, options.sessionHeaderName] : []);

  const ingestPatterns = ['/otlp/', '/ingest/'].map((path) => new RegExp(`^${escapeRegExp(core.ingestUrl(path))}`));
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new XMLHttpRequestInstrumentation({
        ignoreUrls: ingestPatterns,
        propagateTraceHeaderCorsUrls: options.enabled ? targetPatterns(options.origins) : [],
        applyCustomAttributesOnSpan: (span, xhr) => {
          span.setAttribute('replay_id', core.replay.replayId);
          xhrObserver.setTraceId(xhr, span.spanContext().traceId);
        },
      }),
      new DocumentLoadInstrumentation({ ignoreNetworkEvents: false }),
      new UserInteractionInstrumentation({ eventNames: INTERACTION_EVENTS }),
    ],
  });
  core.teardown.add(() => {
    unregister();
    void provider.shutdown();
  });
  return provider.getTracer(SDK_NAME, SDK_VERSION);
}
