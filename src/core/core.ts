import type { ResolvedConfig } from '../config/types';
import type { TelemetryItem } from '../pipeline/items';
import type { RecipeStep } from '../../wire/replay';

/**
 * What every signal module receives from `initBrowserSDK`: the resolved configuration and the shared services.
 * Signals are functions `start(core)` that register their listeners and patches through `core.teardown`, so that
 * `shutdown()` can remove all of them without each signal keeping its own list.
 */
export interface SdkCore {
  readonly config: ResolvedConfig;
  readonly debug: DebugLog;
  readonly session: SessionTracker;
  readonly teardown: Teardown;
  /** Browser APIs as they were before the SDK patched anything; the SDK's own traffic and output go through them. */
  readonly originals: Originals;
  /** Puts one record on the bounded queue (never throws; drops the oldest item when full). */
  enqueue(item: TelemetryItem): void;
  /** The replay timeline: custom, network and navigation events, and recipe steps. */
  readonly replay: ReplaySink;
  /** Absolute URL of an ingest path such as `/otlp/v1/logs`. */
  ingestUrl(path: string): string;
  /** True for URLs under the ingest base: the SDK never traces, propagates into or records its own requests. */
  isIngestUrl(url: string): boolean;
}

/** The SDK's own diagnostics: printed (prefixed `[svc]`) through the original console only when `debug` is on. */
export interface DebugLog {
  warn(message: string, error?: unknown): void;
  error(message: string, error?: unknown): void;
}

/** Current session id, kept in local storage (memory when storage is blocked) and rotated on inactivity or age. */
export interface SessionTracker {
  /** The current id; rotates it first when the session expired. Counts as activity. */
  id(): string;
  /** Called with the new id after a rotation. Returns an unsubscribe function. */
  onRotate(listener: (sessionId: string) => void): () => void;
}

/** Disposers run by `shutdown()`, last registered first. */
export interface Teardown {
  add(dispose: () => void): void;
  /** `target.addEventListener` with automatic removal at shutdown; the listener is guarded. */
  listen(target: EventTarget, type: string, listener: (event: Event) => void, options?: AddEventListenerOptions): void;
}

export interface Originals {
  /** `globalThis.fetch` bound to `globalThis`, or undefined where fetch does not exist. */
  readonly fetch: typeof fetch | undefined;
  readonly console: Pick<Console, 'debug' | 'info' | 'warn' | 'error' | 'log'>;
}

/** Replay timeline hooks. Until the replay recorder runs, events are buffered (bounded) and sent as chunks. */
export interface ReplaySink {
  /** A timeline event: `network`, `network_error`, `navigation` or a custom type from `captureReplayEvent`. */
  event(type: string, payload: unknown): void;
  /** A recorded HTTP exchange (`replay.captureNetworkRecipes`). */
  recipe(step: RecipeStep): void;
  /** Id of the current recording, attached to spans as `replay_id`. */
  readonly replayId: string;
  /** Sends buffered events now. */
  flush(): Promise<void>;
}
