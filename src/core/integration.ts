import type { Context, ContextManager, Tracer, TracerProvider } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-web';
import type { SdkCore } from './core';
import type { Attributes, CallContext, LogLevel } from './types';

/**
 * One signal or instrumentation of the SDK, in the shape of Sentry's `defineIntegration`: a name and a `setup` that
 * `initBrowserSDK` calls once, in list order, when the core is up. `setup` registers its listeners and patches through
 * `core.teardown`, so `shutdown()` removes them. The defaults are `replay`, `errors`, `console`, `fetch`, `xhr`,
 * `documentLoad`, `interactions`, `vitals` and `navigation` (docs/sdk.md "Integrations").
 */
export interface Integration {
  /** Unique in the list: of two integrations with the same name, the later one is kept (with a debug warning). */
  readonly name: string;
  /**
   * Names of integrations this one does the work of (the OpenTelemetry instrumentations replace `fetch`, `xhr`,
   * `documentLoad` and `interactions`): listed together, those are not started, with a debug warning.
   */
  readonly replaces?: readonly string[];
  setup(core: IntegrationCore): void;
}

/**
 * The `integrations` option: an array is added to the defaults (replacing a default of the same name); a function
 * receives the defaults and returns the whole list, so `(defaults) => defaults.filter((i) => i.name !== 'console')`
 * turns console capture off.
 */
export type IntegrationsOption = readonly Integration[] | ((defaults: Integration[]) => Integration[]);

/** What an integration's `setup` receives: the core and the services the SDK object shares with the integrations. */
export interface IntegrationCore extends SdkCore {
  /** The SDK object's logs: `sdk.log` and `sdk.captureException` write through it too. */
  readonly logger: Logger;
  /** The SDK object's `metric`. */
  readonly metric: MetricRecorder;
  /** Which route the page showed when: navigation records the changes, Web Vitals read them. */
  readonly routes: RouteHistory;
}

/** Structured logs of the SDK object, also used by the automatic signals (console, errors). */
export interface Logger {
  /**
   * One log record at `level` (an unknown level is logged as `info` with a debug warning). `message` is used as is
   * when it is a string and rendered as text otherwise. `extraAttributes` come from the SDK's own signals and win
   * over `context.attrs`; `session.id` always wins.
   */
  log(level: LogLevel, message: unknown, context?: CallContext, extraAttributes?: Attributes): void;
  /**
   * Logs a thrown value at `error`: body `Name: message`, attributes `exception.type`, `exception.message` and
   * `exception.stacktrace`. An error object is recorded once: capturing it again (the app and then a global handler,
   * or an error boundary and then `window.onerror`) records nothing.
   */
  captureException(error: unknown, context?: CallContext, extraAttributes?: Attributes): void;
}

/**
 * Records one numeric value (a gauge point): the SDK object's `metric`, also used by Web Vitals. An empty or
 * non-string name, or a value that is not a finite number, drops the point with a debug warning. `extraAttributes`
 * come from the SDK's own signals and win over `context.attrs`; `session.id` always wins.
 */
export type MetricRecorder = (
  name: string,
  value: number,
  unit?: string,
  context?: CallContext,
  extraAttributes?: Attributes,
) => void;

/**
 * Which page path the page showed when, on the clock of performance entries (`performance.now()`). Web Vitals are
 * reported after the fact (LCP at the first input, INP and CLS when the page is hidden): by then a single-page app
 * may show another route, so each vital is placed by when it was measured, not when it was reported.
 */
export interface RouteHistory {
  /** The path of the page load (the document's own URL): where FCP, LCP and TTFB belong. */
  readonly loadPath: string;
  /** The path the page showed at `time` (a performance entry's `startTime`). */
  at(time: number): string;
  /** Records a client-side route change to the current `location`. */
  changed(): void;
}

/**
 * The SDK's OpenTelemetry tracing (tracing/provider.ts): spans of every tracer go onto the SDK's queue. An integration
 * that traces gets it from `tracingFor(core)`, which starts it on first use.
 */
export interface Tracing {
  /** The provider (session sampler, session id and queue), registered globally unless the app registered its own. */
  readonly provider: TracerProvider;
  /** The provider's tracer for an instrumentation scope such as `@opentelemetry/instrumentation-fetch`. */
  tracer(scope: string): Tracer;
  /** The registered context manager, which also keeps the click or submit being dispatched as the active context. */
  readonly contextManager: InteractionContext;
  /** Runs `processor` on every span as well, before the SDK queues it. */
  addSpanProcessor(processor: SpanProcessor): void;
  /** Registers `manager` in place of the SDK's context manager; false when the app registered its own first. */
  useContextManager(manager: ContextManager): boolean;
}

/** An interaction whose event may still be in dispatch; `outer` is the one a nested dispatch interrupted. */
export interface Interaction {
  readonly event: Event;
  readonly context: Context;
  readonly outer: Interaction | undefined;
}

/** The context manager as the interactions integration uses it (tracing/interactions.ts). */
export interface InteractionContext {
  interaction: Interaction | undefined;
  active(): Context;
}
