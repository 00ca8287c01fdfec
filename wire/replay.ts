/**
 * Body schemas of the replay ingest endpoints (`POST /ingest/replay/chunk` and `POST /ingest/replay/recipes`).
 * Both are JSON (`application/json`, or `text/plain` from `sendBeacon`), gzipped with `Content-Encoding: gzip` when
 * the SDK can compress. The reference server validates them with the limits below; docs/ingest.md is the user-facing
 * description.
 */

/** Limits the server enforces on replay bodies (the SDK keeps within them). */
export const REPLAY_LIMITS = {
  /** Longest session or replay id. */
  maxIdLength: 128,
  /**
   * Largest decoded (decompressed) chunk payload, bytes. The SDK flushes at `replay.maxChunkBytes` (480000 by
   * default) but one event, a full snapshot of a large DOM, can exceed that on its own: the SDK never records an
   * event above `maxEventBytes`, so every chunk it sends fits.
   */
  maxChunkBytes: 5_000_000,
  /** Largest single recorded event (JSON characters) the SDK keeps; a bigger full snapshot stops the recording. */
  maxEventBytes: 4_000_000,
  /** Most events in one chunk: the SDK seals a chunk at this count, ingest refuses more (413). */
  maxChunkEvents: 10_000,
  /** Most steps in one recipes request. */
  maxRecipeSteps: 200,
  /** Largest request or response body kept in one recipe step, characters. */
  maxRecipeBodyChars: 65_536,
} as const;

/**
 * One replay chunk: a contiguous, ordered slice of a replay's rrweb events, either inline ({@link ReplayChunkEvents}) or
 * as a `data` payload ({@link ReplayChunkData}: the SDK's worker sends base64 gzip, its fallback and page-leave path
 * inline events).
 */
export type ReplayChunk = ReplayChunkFields &
  (ReplayChunkEvents | ReplayChunkData) & {
    /** `delta` when the events' node ids are delta-encoded ({@link undoIdDeltas}). */
    ids?: 'delta';
  };

/** What every chunk says of itself. */
export interface ReplayChunkFields {
  /** App name or alias, as `service.name` on OTLP resources; aliases are stored under the canonical name. */
  serviceName: string;
  /** Browser session id (the SDK's `sessionId`). */
  sessionId: string;
  /** Id of one recording within the session (a new one after a full reload or a session rotation). */
  replayId: string;
  /** 0-based position of this chunk within the replay. A repeated (replayId, seq) replaces nothing and is ignored. */
  seq: number;
  /** Timestamp of the first and last event, Unix epoch milliseconds; `endTs >= startTs`. */
  startTs: number;
  endTs: number;
  /** Number of rrweb events in the chunk. */
  eventCount: number;
}

/** The events themselves, as a JSON array in the body (compressed with the body when the sender can). */
export interface ReplayChunkEvents {
  events: unknown[];
  encoding?: never;
  data?: never;
}

export interface ReplayChunkData {
  /**
   * `gzip`: `data` is the base64 of the gzip of the JSON array of events (CompressionStream output).
   * `json`: `data` is the JSON array of events as a string.
   */
  encoding: 'gzip' | 'json';
  data: string;
  events?: never;
}

/** The fields of rrweb node ids, the numbers that make most of a compressed chunk. */
const ID_FIELDS = /^(?:id|parentId|nextId|previousId)$/;

/**
 * Restores the node ids of a chunk sent with `ids: 'delta'`, in place. In the full and incremental snapshot events
 * (types 2 and 3), each integer under an id field was replaced by its difference with the previous integer under the
 * same field name in the same event, in the order of a depth-first walk of the JSON (keys in their order): the ids of
 * consecutive added nodes differ by one, so the deltas compress to almost nothing (a chunk of the DOM-churn workload
 * shrinks to a third). Exact for integers below 2^53 (rrweb's ids are far below). The SDK's worker does the reverse
 * (src/replay/compression-worker.ts) with the same walk.
 */
export function undoIdDeltas(events: readonly unknown[]): void {
  for (const event of events) {
    const { type } = event as { type?: unknown };
    if (type === 2 || type === 3) undoDeltas(event, {});
  }
}

function undoDeltas(value: unknown, last: Record<string, number>): void {
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  for (const key in o) {
    const x = o[key];
    if (Number.isInteger(x) && ID_FIELDS.test(key)) o[key] = last[key] = (x as number) + (last[key] || 0);
    else undoDeltas(x, last);
  }
}

/** Fixed-length mask the SDK records for masked input values and text: the length of a secret is not leaked. */
export const MASK = '********';

/** What replaces a credential (header value, body field) in a recipe step. */
export const REDACTED = '[REDACTED]';

/** What a recipe step records instead of a body it does not keep as text. */
export type BodyPlaceholderKind = 'binary' | 'stream' | 'event stream' | 'unreadable body';

/** `[binary 123 bytes]`, `[event stream]`...: the body the step stands for was not recorded. */
export function bodyPlaceholder(kind: BodyPlaceholderKind, bytes?: number | string | null): string {
  return `[${kind}${bytes == null ? '' : ` ${bytes} bytes`}]`;
}

/** True when a recorded body is a {@link bodyPlaceholder}, not the body itself. */
export function isBodyPlaceholder(body: string): boolean {
  return /^\[(?:binary|stream|event stream|unreadable body)(?: \d+ bytes)?\]$/.test(body);
}

/**
 * SDK timeline events are rrweb custom events (`type` 5) with `data: { tag, payload }`. These tags are the SDK's own;
 * any other tag is an application event from `captureReplayEvent(type, payload)`.
 */
export const RRWEB_CUSTOM_EVENT = 5;
export const REPLAY_EVENT_TAGS = {
  /** `{ method, url, status, durationMs, traceId, error? }` for every fetch and XHR. */
  network: 'network',
  /** The same payload, for a request that failed (no response, or status >= 500). */
  networkError: 'network_error',
  /** `{ url, title, trigger }` for pushState, replaceState, popstate and hashchange. */
  navigation: 'navigation',
  /** `{ reason, ... }` when the SDK stopped or degraded the recording (see docs/sdk-replay.md). */
  recordingStopped: 'svc.recording_stopped',
} as const;

/** One recorded HTTP exchange that can be replayed as a test step. Credentials are redacted by the SDK. */
export interface RecipeStep {
  /** When the request started, Unix epoch milliseconds. */
  ts: number;
  method: string;
  /** Absolute http(s) URL. */
  url: string;
  requestHeaders: Record<string, string>;
  /** Request body as text, capped at `maxRecipeBodyChars`; `requestBodyTruncated` tells whether it was cut. */
  requestBody?: string | null;
  requestBodyTruncated?: boolean;
  /** HTTP status; 0 when the request failed without a response. */
  status: number;
  responseHeaders: Record<string, string>;
  responseBody?: string | null;
  responseBodyTruncated?: boolean;
  durationMs: number;
  /** W3C traceparent sent with the request, when one was. */
  traceparent?: string | null;
  /** Network error message when `status` is 0. */
  error?: string | null;
}

/** Body of `POST /ingest/replay/recipes`. */
export interface RecipeBatch {
  serviceName: string;
  sessionId: string;
  replayId: string;
  steps: RecipeStep[];
}
