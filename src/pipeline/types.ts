import type { ResolvedConfig } from '../config/types';
import type { DebugLog } from '../core/core';
import type { PipelineClock } from './clock';
import type { TelemetryItem } from './items';
import type { SessionResource } from './otlp-json';
import type { RetryPolicy } from './retry';

/** What `createPipeline` needs; everything browser-specific is passed in so the pipeline also runs under Node. */
export interface PipelineOptions {
  /** Without `persistence` (as in tests under Node), nothing is persisted: failing records stay queued. */
  readonly config: Pick<
    ResolvedConfig,
    | 'apiKey'
    | 'serviceName'
    | 'appId'
    | 'env'
    | 'serviceVersion'
    | 'flushIntervalMs'
    | 'maxQueueSize'
    | 'requestTimeoutMs'
  > &
    Partial<Pick<ResolvedConfig, 'persistence'>>;
  /**
   * Resource attributes besides `service.name`, `service.version`, `deployment.environment` and `session.id` (e.g.
   * `telemetry.sdk.name`); they cannot override those four.
   */
  readonly resource: Readonly<Record<string, string>>;
  /** Resource attributes of one session (its sampling decision), added to its resource in every request. */
  readonly sessionResource?: SessionResource | undefined;
  /** The unpatched fetch; without one nothing is sent (and nothing is queued). */
  readonly fetch: typeof fetch | undefined;
  /** `navigator.sendBeacon` bound to navigator, when it exists. */
  readonly sendBeacon: ((url: string, data: BodyInit) => boolean) | undefined;
  /** Absolute URL of an ingest path. */
  readonly ingestUrl: (path: string) => string;
  readonly debug: DebugLog;
  /** Where misconfiguration warnings go even without `debug`: the original console (captured now by default). */
  readonly console?: Pick<Console, 'warn'> | undefined;
  /** Time, timers and jitter; the real ones by default. Tests inject a virtual clock. */
  readonly clock?: PipelineClock | undefined;
  /** Backoff numbers; `DEFAULT_RETRY_POLICY` by default. */
  readonly retryPolicy?: RetryPolicy | undefined;
}

/** The one bounded queue, its batcher, the OTLP/JSON encoder and the transport. */
export interface Pipeline {
  /** Queues one record; when the queue is full the oldest record is dropped and counted. Never throws. */
  enqueue(item: TelemetryItem): void;
  /**
   * Sends everything queued now (unless a retry wait is running and not `force`: then it resolves at once and the
   * timer sends later); resolves when those requests have settled (delivered, refused, or re-queued for retry), each
   * within `requestTimeoutMs`. Never rejects.
   */
  flush(force?: boolean): Promise<void>;
  /**
   * Under @svc/playwright: takes every waiting record (and the drop reports due) as `[path, body]` requests of at most
   * ~60 KB, uncompressed, for the fixture to post. The page is done with them: they are not sent from here again.
   */
  drain(): Array<[path: string, body: string]>;
  /**
   * Page hidden or unloading: starts sending everything queued at once with `fetch(keepalive)` inside the 64 KiB
   * budget, splitting into requests of at most ~60 KB, falling back to `sendBeacon`. Synchronous on purpose: the page
   * may be frozen right after the event handler returns. Records that could not be handed over stay queued and go as
   * soon as a keepalive request completes, if the page is still alive.
   */
  flushForUnload(): void;
  /**
   * Posts a JSON body that is not OTLP (replay chunks, recipes) with the same transport rules: key header, timeout,
   * retry with backoff on network errors, 408, 429 and 5xx (up to 4 attempts). With `unloading`, one keepalive/beacon
   * hand-over as in flushForUnload. Resolves true once delivered (or handed to the browser), false when it was refused,
   * gave up, or the SDK cannot send. Never rejects.
   */
  postJson(path: string, body: string, unloading?: boolean): Promise<boolean>;
  /** Stops the timer and sends what is queued, once, even during a retry wait. Later records are ignored. */
  shutdown(): Promise<void>;
  /** Records dropped because the queue was full, since start. */
  readonly dropped: number;
  /**
   * Requests answered since start (OTLP, replay chunks and recipes; not those of the unload path, whose answers a
   * closing page may never see): `[with a 2xx, otherwise]`. A retried request counts once per attempt.
   */
  readonly answers: readonly [sent: number, failed: number];
}
