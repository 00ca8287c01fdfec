import type { TracerProvider } from '@opentelemetry/api';

/**
 * What the SDK needs of an official OpenTelemetry instrumentation (`FetchInstrumentation`,
 * `XMLHttpRequestInstrumentation`, `DocumentLoadInstrumentation`, `UserInteractionInstrumentation`, or any other
 * built on `InstrumentationBase`): written structurally, so that this entry's types need no OpenTelemetry package the
 * app did not install.
 */
export interface OtelInstrumentation {
  readonly instrumentationName: string;
  enable(): void;
  disable(): void;
  setTracerProvider(provider: TracerProvider): void;
  getConfig(): object;
  setConfig(config: object): void;
}

/** The SDK's request rules, as the fetch and XHR instrumentations take them. */
export interface RequestRules {
  /** Origins besides the page's that receive the trace and session headers (`propagation.origins`). */
  readonly propagateTraceHeaderCorsUrls: RegExp[];
  /** URLs never traced: the SDK's ingest. */
  readonly ignoreUrls: RegExp[];
}

type Warn = (message: string) => void;

/**
 * Writes the SDK's rules over what the app configured: only the SDK's `propagation.origins` get headers (an app's own
 * `propagateTraceHeaderCorsUrls` is replaced, with a warning, so that one option decides where the session id goes),
 * and the ingest is added to the app's `ignoreUrls`. Instrumentations that do not make requests ignore both options.
 */
export function applyRequestRules(instrumentation: OtelInstrumentation, rules: RequestRules, warn: Warn): void {
  const config = instrumentation.getConfig() as { propagateTraceHeaderCorsUrls?: unknown; ignoreUrls?: unknown };
  if (config.propagateTraceHeaderCorsUrls !== undefined) {
    warn(
      `${instrumentation.instrumentationName}: propagateTraceHeaderCorsUrls is replaced by the SDK's propagation.origins, which decide where the trace and session headers go.`,
    );
  }
  const ignoreUrls = Array.isArray(config.ignoreUrls) ? (config.ignoreUrls as Array<string | RegExp>) : [];
  instrumentation.setConfig({
    ...config,
    propagateTraceHeaderCorsUrls: rules.propagateTraceHeaderCorsUrls,
    ignoreUrls: [...ignoreUrls, ...rules.ignoreUrls],
  });
}

/**
 * Moves each instrumentation onto `provider` and turns it on (they enable themselves when constructed, reporting to
 * the global provider until now); returns what turns them off again.
 */
export function startInstrumentations(
  instrumentations: readonly OtelInstrumentation[],
  provider: TracerProvider,
): () => void {
  for (const instrumentation of instrumentations) {
    instrumentation.setTracerProvider(provider);
    instrumentation.enable();
  }
  return () => {
    for (const instrumentation of instrumentations) instrumentation.disable();
  };
}
