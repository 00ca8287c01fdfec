/**
 * Public configuration types of the browser SDK (SPEC 2.9 "Configuration options").
 *
 * `BrowserSDKConfig` is what users write; `ResolvedConfig` is what the SDK runs with after `resolveConfig` has
 * filled in defaults and replaced invalid values. They are separate types so that the rest of the SDK never has to
 * re-check an option.
 */

/** Receives one human-readable message per ignored or replaced option. */
export type ConfigWarningHandler = (message: string) => void;

/** Session replay options (`replay.*`). */
export interface ReplayOptions {
  /** Record the session with rrweb. Default `true`. */
  enabled?: boolean;
  /** Period, in milliseconds, after which buffered replay events are sent as a chunk. Default `5000`. */
  flushIntervalMs?: number;
  /**
   * Buffered size, in bytes, that sends a chunk before the period ends. Default `480000`; at most `1000000`, so that a
   * chunk that passes it by one event (at most 4,000,000 bytes) stays within what the ingest endpoint accepts.
   */
  maxChunkBytes?: number;
  /** Record HTTP requests as replayable recipe steps. Default `true`. */
  captureNetworkRecipes?: boolean;
  /** Local-storage key holding the session id. Default `svc_session_id`. */
  sessionStorageKey?: string;
  /** CSS class (without the dot) whose elements are not recorded at all. Default `ob-block`. */
  blockClass?: string;
  /** CSS class (without the dot) whose text is masked. Default `ob-mask`. */
  maskTextClass?: string;
  /** Mask the value of every input. Default `true`. */
  maskAllInputs?: boolean;
  /** How densely high-frequency events are sampled. */
  sampling?: ReplaySamplingOptions;
  /**
   * Address of the replay compression worker script (`dist/cdn/svc-replay-worker.js`, served from your origin), for
   * pages whose Content-Security-Policy does not allow `blob:` workers. By default the worker is created from an
   * inline `blob:` URL; where no worker can start, chunks are compressed on the main thread. docs/sdk-replay.md.
   */
  workerUrl?: string;
}

/** Replay sampling options (`replay.sampling.*`), passed to rrweb's `sampling` option. */
export interface ReplaySamplingOptions {
  /** `true` records mouse movement, `false` does not, a number is the sampling interval in ms. Default `true`. */
  mousemove?: boolean | number;
  /** Scroll sampling interval in ms. Default `150`. */
  scroll?: number;
  /** `all` records every input change, `last` only the final value of a burst of typing. Default `last`. */
  input?: 'all' | 'last';
}

/** Web Vitals options (`vitals.*`). */
export interface VitalsOptions {
  /** Collect FCP, LCP, CLS, INP and TTFB. Default `true`. */
  enabled?: boolean;
  /** Report every change of a vital instead of only its final value. Default `false`. */
  reportAllChanges?: boolean;
}

/** Trace propagation options (`propagation.*`). */
export interface PropagationOptions {
  /** Add the trace header to outbound fetch requests. Default `true`. */
  enabled?: boolean;
  /** Name of the W3C trace-context header. Default `traceparent`. */
  headerName?: string;
  /** Name of the header carrying the session id. Default `x-svc-session-id`. */
  sessionHeaderName?: string;
  /**
   * Other origins that receive both headers, besides the page's own: an origin string (`https://api.example.com`,
   * matched exactly) or a RegExp tested against the full request URL. Default `[]`: same-origin requests only, so no
   * third-party server sees the trace or session id and no unexpected CORS preflight is triggered.
   */
  origins?: ReadonlyArray<string | RegExp>;
}

/**
 * Options of a manual setup. Only `apiKey` and `serviceName` are required; every other option has a default.
 * Invalid values never throw: they are replaced by their default and reported as a warning (printed when `debug`).
 */
export interface BrowserSDKConfig {
  /** Ingest API key. Ingest keys are public and write-only, so they are safe in a browser bundle. */
  apiKey: string;
  /** Connected app name of the project, or an alias configured for it. */
  serviceName: string;
  /** Tenant id; resolved from the key when absent. */
  tenantId?: string;
  /** Project id; resolved from the key when absent. */
  projectId?: string;
  /** Pins the canonical app name explicitly. */
  appId?: string;
  /** Deployment environment, e.g. `production`. */
  env?: string;
  /** Deployment version string, e.g. a release tag or commit. */
  serviceVersion?: string;
  /** Log SDK errors and warnings to the console. Default `false`. */
  debug?: boolean;
  /** Flush period of queued telemetry, ms. Default `2000`. */
  flushIntervalMs?: number;
  /** Queue capacity; the oldest items are dropped when it is full. Default `1000`. */
  maxQueueSize?: number;
  /** Timeout of one OTLP request, ms. Default `5000`. */
  requestTimeoutMs?: number;
  /** Warn on non-canonical metric names; only has an effect together with `debug: true`. Default `false`. */
  validateSemanticMetrics?: boolean;
  /** Patch the global `fetch` so every request is traced. Default `true`. */
  instrumentGlobalFetch?: boolean;
  /**
   * Base URL under which `/otlp/v1/*` and `/ingest/replay/*` are posted: an absolute `http(s)` URL
   * (`https://ingest.example.com`) or a same-origin path prefix (`/svc`). Default `''`: the page's own origin.
   */
  ingestUrl?: string;
  /** Session replay options. */
  replay?: ReplayOptions;
  /** Web Vitals options. */
  vitals?: VitalsOptions;
  /** Trace propagation options. */
  propagation?: PropagationOptions;
}

/** Resolved `replay.sampling.*`. */
export interface ResolvedReplaySampling {
  readonly mousemove: boolean | number;
  readonly scroll: number;
  readonly input: 'all' | 'last';
}

/** Resolved `replay.*`. */
export interface ResolvedReplayConfig {
  readonly enabled: boolean;
  readonly flushIntervalMs: number;
  readonly maxChunkBytes: number;
  readonly captureNetworkRecipes: boolean;
  readonly sessionStorageKey: string;
  readonly blockClass: string;
  readonly maskTextClass: string;
  readonly maskAllInputs: boolean;
  readonly sampling: ResolvedReplaySampling;
  readonly workerUrl?: string | undefined;
}

/** Resolved `vitals.*`. */
export interface ResolvedVitalsConfig {
  readonly enabled: boolean;
  readonly reportAllChanges: boolean;
}

/** Resolved `propagation.*`. */
export interface ResolvedPropagationConfig {
  readonly enabled: boolean;
  readonly headerName: string;
  readonly sessionHeaderName: string;
  /** Origins (normalised, e.g. `https://api.example.com`) and patterns that also receive the headers. */
  readonly origins: ReadonlyArray<string | RegExp>;
}

/**
 * The configuration the SDK runs with: every option present and valid, deeply frozen.
 *
 * `apiKey` and `serviceName` have no default, so they stay `undefined` when missing or invalid; the SDK then sends
 * nothing rather than guessing an identity.
 */
export interface ResolvedConfig {
  readonly apiKey: string | undefined;
  readonly serviceName: string | undefined;
  readonly tenantId: string | undefined;
  readonly projectId: string | undefined;
  readonly appId: string | undefined;
  readonly env: string | undefined;
  readonly serviceVersion: string | undefined;
  readonly debug: boolean;
  readonly flushIntervalMs: number;
  readonly maxQueueSize: number;
  readonly requestTimeoutMs: number;
  readonly validateSemanticMetrics: boolean;
  readonly instrumentGlobalFetch: boolean;
  /** `''` (same origin), an absolute `http(s)` URL or a path prefix; never ends with `/`. */
  readonly ingestUrl: string;
  readonly replay: ResolvedReplayConfig;
  readonly vitals: ResolvedVitalsConfig;
  readonly propagation: ResolvedPropagationConfig;
}

/** The options that have a default: everything except the identity strings. */
export type ConfigDefaults = Omit<
  ResolvedConfig,
  'apiKey' | 'serviceName' | 'tenantId' | 'projectId' | 'appId' | 'env' | 'serviceVersion'
>;
