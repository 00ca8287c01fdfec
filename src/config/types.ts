/**
 * Public configuration types of the browser SDK (SPEC 2.9 "Configuration options").
 *
 * `BrowserSDKConfig` is what users write; `ResolvedConfig` is what the SDK runs with after `resolveConfig` has
 * filled in defaults and replaced invalid values. They are separate types so that the rest of the SDK never has to
 * re-check an option.
 */

import type { IntegrationsOption } from '../core/integration';
import type { LogItem, SpanItem } from '../pipeline/items';

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
  /**
   * Share (0–1) of sampled sessions recorded in full from their start. Default `1`. Decided once per session and kept
   * with the session id, so every tab and page load of a session agrees.
   */
  sampleRate?: number;
  /**
   * Share (0–1) of the sessions not recorded in full that keep the last 60 s of replay in memory and send it, then go
   * on recording, only when an error is captured (buffer mode). A session without an error sends no replay. Default `0`.
   */
  onErrorSampleRate?: number;
  /**
   * Request and response bodies in network recipes: `redacted` (default) keeps them with secrets removed by key name
   * and by value (emails, phone numbers, card numbers, JWTs, bearer tokens, long random strings); `none` keeps no body.
   */
  networkBodies?: 'redacted' | 'none';
  /**
   * Cross-origin URLs whose bodies may be recorded: an origin or URL prefix string, or a RegExp tested against the full
   * URL. Default `[]`: only same-origin bodies are recorded.
   */
  networkBodyUrls?: ReadonlyArray<string | RegExp>;
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

/** The signed-in user, from {@link BrowserSDK.setUser}. Only `id` is sent unless `sendUserPii` is `true`. */
export interface User {
  /** Stable id of the user in your system (not an email). Sent as `user.id`. */
  id: string;
  /** Sent as `user.email` only with `sendUserPii: true`. */
  email?: string;
  /** Sent as `user.name` only with `sendUserPii: true`. */
  username?: string;
}

/** An error (an exception log record), a log record or a span, as `beforeSend` sees it. */
export type BeforeSendItem = (Omit<LogItem, 'kind'> & { readonly kind: 'error' | 'log' }) | SpanItem;

/**
 * Called with each error, log record and span before it is queued: return the item (changed or not) to send it, or
 * `null` to drop it. A hook that throws sends the item unchanged (reported when `debug`).
 */
export type BeforeSend = (item: BeforeSendItem) => BeforeSendItem | null;

/** A string (matched as a substring) or a RegExp. */
export type Pattern = string | RegExp;

/** Error logs that are not exceptions but may become issues: `console.error` output, failed requests. */
export type IssueSource = 'console' | 'requests';

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
  /**
   * Share (0–1) of sessions that send anything. Default `1`. Decided once per session and kept with the session id; the
   * decision travels as the resource attributes `svc.sample_rate` and `svc.replay.mode`.
   */
  sampleRate?: number;
  /** Send `user.email` and `user.name` given to `setUser`. Default `false`: only `user.id` is sent. */
  sendUserPii?: boolean;
  /** Edits or drops (`null`) each error, log record and span before it is queued. */
  beforeSend?: BeforeSend;
  /** Errors to drop, matched against `"<type>: <message>"` (strings as substrings, or RegExps). Default `[]`. */
  ignoreErrors?: ReadonlyArray<Pattern>;
  /**
   * Errors thrown by scripts whose URL matches are dropped. Default `[]`. Frames of browser extensions
   * (`chrome-extension://`, `moz-extension://`, `safari-web-extension://`) are always dropped.
   */
  denyUrls?: ReadonlyArray<Pattern>;
  /** When not empty, only errors thrown by scripts whose URL matches are kept. Default `[]`. */
  allowUrls?: ReadonlyArray<Pattern>;
  /**
   * Besides exceptions, which error logs become issues on the server: `'console'` (`console.error` output) and
   * `'requests'` (fetches that got no answer or a 5xx). Default `[]`: they are logs and breadcrumbs only, so one
   * mistake makes one issue (the exception), not one more for the failed request and one for the app's message about
   * it. Those chosen are sent with `svc.issue: true` (docs/sdk.md, docs/issues.md "What becomes an issue").
   */
  issuesFrom?: ReadonlyArray<IssueSource>;
  /**
   * Keep telemetry that cannot be sent (ingest unreachable or failing, or over the keepalive quota at page leave) in
   * IndexedDB (at most 2 MB or 500 batches, oldest dropped and counted) and send it on the next page load of the same
   * origin. Default `true`.
   */
  persistence?: boolean;
  /**
   * The integrations the SDK starts: by default `errors`, `console`, `fetch`, `xhr`, `documentLoad`,
   * `interactions`, `vitals` and `navigation`, each the signal of the same name. An array is added to the
   * defaults (replacing a default of the same name); a function receives the defaults and returns the list to start,
   * e.g. `integrations: (defaults) => defaults.filter((integration) => integration.name !== 'console')`.
   * Duplicates (the later one is kept) and entries that are not `{ name, setup(core) }` are reported with `debug`.
   */
  integrations?: IntegrationsOption;
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
  readonly sampleRate: number;
  readonly onErrorSampleRate: number;
  readonly networkBodies: 'redacted' | 'none';
  readonly networkBodyUrls: ReadonlyArray<Pattern>;
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
  readonly sampleRate: number;
  readonly sendUserPii: boolean;
  readonly beforeSend: BeforeSend | undefined;
  readonly ignoreErrors: ReadonlyArray<Pattern>;
  readonly denyUrls: ReadonlyArray<Pattern>;
  readonly allowUrls: ReadonlyArray<Pattern>;
  readonly issuesFrom: ReadonlyArray<IssueSource>;
  readonly persistence: boolean;
  readonly integrations: IntegrationsOption | undefined;
}

/** The options that have a default: everything except the identity strings. */
export type ConfigDefaults = Omit<
  ResolvedConfig,
  | 'apiKey'
  | 'serviceName'
  | 'tenantId'
  | 'projectId'
  | 'appId'
  | 'env'
  | 'serviceVersion'
  | 'beforeSend'
  | 'integrations'
>;
