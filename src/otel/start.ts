import type { ContextManager } from '@opentelemetry/api';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-web';
import type { IntegrationCore } from '../core/integration';
import { tracingFor } from '../tracing/tracing-for';
import { applyRequestRules, startInstrumentations, type OtelInstrumentation } from './instrumentations';
import { spanRules } from './span-rules';
import { prefixPattern, propagationPatterns } from './targets';

/** Options of {@link otelIntegration}. */
export interface OtelOptions {
  /**
   * Instances of the official instrumentations, configured as the app likes (`new FetchInstrumentation()`,
   * `new XMLHttpRequestInstrumentation()`, `new DocumentLoadInstrumentation()`,
   * `new UserInteractionInstrumentation()`, or any other `InstrumentationBase`). The SDK moves them onto its tracer
   * provider and writes its propagation rules and ingest exclusion over their `propagateTraceHeaderCorsUrls` and
   * `ignoreUrls`.
   */
  readonly instrumentations: readonly OtelInstrumentation[];
  /**
   * The context manager to use instead of the SDK's stack context manager: `new ZoneContextManager()` from
   * `@opentelemetry/context-zone` in a zone.js app (Angular), so that a span stays active across `await` and timers.
   */
  readonly contextManager?: ContextManager;
  /**
   * An exporter (`new OTLPTraceExporter({ url })` from `@opentelemetry/exporter-trace-otlp-http`) that receives the
   * spans as well, through a `BatchSpanProcessor` of its own: a second queue and transport beside the SDK's (docs/sdk.md
   * "OpenTelemetry instrumentations"). Without it, spans go only through the SDK's queue.
   */
  readonly exporter?: SpanExporter;
}

/** The ingest prefixes (sdk/ingest-urls.ts) as patterns for `ignoreUrls`. */
const INGEST_PATHS = ['/otlp/', '/ingest/'];

/**
 * Registers the app's OpenTelemetry instrumentations on the SDK's tracer provider: their spans get the session id,
 * the sampling and the queue of the SDK's own spans, `replay_id` and cleaned URLs (span-rules.ts); their headers go
 * only where `propagation.origins` allow (through the SDK's propagator, so under its header names and with the
 * session id); they never trace the ingest. Everything is undone at shutdown.
 */
export function startOtel(core: IntegrationCore, options: OtelOptions): void {
  const host = tracingFor(core);
  const warn = (message: string) => core.debug.warn(message);
  host.addSpanProcessor(spanRules(() => core.replay.replayId));
  if (options.exporter !== undefined) {
    const exporting = new BatchSpanProcessor(options.exporter);
    host.addSpanProcessor(exporting);
    core.teardown.add(() => void exporting.shutdown());
  }
  if (options.contextManager !== undefined && !host.useContextManager(options.contextManager)) {
    warn(
      'the app registered its own OpenTelemetry context manager before the SDK; the contextManager option is not used.',
    );
  }
  const rules = {
    propagateTraceHeaderCorsUrls: propagationPatterns(core.config.propagation.origins),
    ignoreUrls: INGEST_PATHS.map((path) => prefixPattern(core.ingestUrl(path))),
  };
  for (const instrumentation of options.instrumentations) applyRequestRules(instrumentation, rules, warn);
  core.teardown.add(startInstrumentations(options.instrumentations, host.provider));
}
