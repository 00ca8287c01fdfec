/**
 * `@svc/browser`: the core entry.
 *
 * Importing it has no side effects and touches no browser global, so it is safe in Node (SSR, tests); work only
 * starts when `initBrowserSDK` is called.
 */
export { initBrowserSDK, initWithoutDefaultIntegrations, getSDK } from './sdk/init';
export { resolveConfig } from './config/resolve';
export { loadRecorder } from './replay/load-recorder';
export { SDK_NAME, SDK_VERSION } from './version';
export type { Attributes, AttributeValue, BrowserSDK, CallContext, LogLevel } from './core/types';
export { defaultIntegrations } from './sdk/default-integrations';
export {
  consoleIntegration,
  errorsIntegration,
  navigationIntegration,
  vitalsIntegration,
} from './signals/integrations';
export { replayIntegration } from './replay/integration';
export { tracingFor } from './tracing/tracing-for';
export {
  documentLoadIntegration,
  fetchIntegration,
  interactionsIntegration,
  xhrIntegration,
} from './tracing/integrations';
export type {
  Integration,
  IntegrationCore,
  IntegrationsOption,
  InteractionContext,
  Logger,
  MetricRecorder,
  RouteHistory,
  Tracing,
} from './core/integration';
export type { DebugLog, Originals, ReplaySink, SdkCore, SessionTracker, Teardown } from './core/core';
export type {
  BeforeSend,
  BeforeSendItem,
  BrowserSDKConfig,
  ConfigWarningHandler,
  Pattern,
  PropagationOptions,
  ReplayOptions,
  ReplaySamplingOptions,
  ResolvedConfig,
  ResolvedPropagationConfig,
  ResolvedReplayConfig,
  ResolvedReplaySampling,
  ResolvedVitalsConfig,
  User,
  VitalsOptions,
} from './config/types';
export type { LogItem, SpanEventItem, SpanItem, SpanKindNumber } from './pipeline/items';
export { MASK } from './replay/sensitive';
export type {
  EmitRecordedEvent,
  RecordedEvent,
  RecorderOptions,
  Recording,
  RecordingStopped,
  RecordingStoppedHandler,
  StartRecording,
} from './replay/types';
