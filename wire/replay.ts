/**
 * Body schemas of the replay ingest endpoints (`POST /ingest/replay/chunk` and `POST /ingest/replay/recipes`).
 * Both are JSON (`application/json`, or `text/plain` from `sendBeacon`). The reference server validates them with
 * the limits below; docs/ingest.md is the user-facing description.
 */

/** Limits the server enforces on replay bodies (the SDK keeps within them). */
export const REPLAY_LIMITS = {
  /** Longest session or replay id. */
  maxIdLength: 128,
  /** Largest decoded (decompressed) chunk payload, bytes. Twice the SDK's default 480000-byte flush threshold. */
  maxChunkBytes: 1_000_000,
  /** Most steps in one recipes request. */
  maxRecipeSteps: 200,
  /** Largest request or response body kept in one recipe step, characters. */
  maxRecipeBodyChars: 65_536,
} as const;

/** One replay chunk: a contiguous, ordered slice of a replay's rrweb events. */
export interface ReplayChunk {
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
  /**
   * `gzip`: `data` is the base64 of the gzip of the JSON array of events (CompressionStream output).
   * `json`: `data` is the JSON array of events as a string (fallback when compression is unavailable).
   */
  encoding: 'gzip' | 'json';
  data: string;
}

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
