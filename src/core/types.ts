/**
 * Public types of the SDK object returned by `initBrowserSDK` (SPEC 2.9 "SDK object").
 */

import type { User } from '../config/types';

/** Severity of a structured log record. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** Attribute values the SDK sends; anything else given in `attrs` is converted to a string. */
export type AttributeValue = string | number | boolean | ReadonlyArray<string | number | boolean>;

/** Free key-value attributes of a record. */
export type Attributes = Record<string, AttributeValue>;

/** Optional context of every manual call. */
export interface CallContext {
  /** Session id; the SDK fills in its own, so set it only to attribute a record to another session. */
  sessionId?: string;
  /** Free key-value map added to the record's attributes. */
  attrs?: Record<string, unknown>;
}

/** The SDK object. Every method is safe to call at any time, including after `shutdown()`: it never throws. */
export interface BrowserSDK {
  /** Structured log at `level`; the session id (and the active trace, if any) is attached. */
  log(level: LogLevel, message: string, context?: CallContext): void;
  /** Logs the error's name, message and stack at `error` level with session and trace context. */
  captureException(error: unknown, context?: CallContext): void;
  /** Alias of {@link BrowserSDK.captureException}. */
  captureError(error: unknown, context?: CallContext): void;
  /** Records one numeric value (a gauge point) with an optional UCUM unit such as `ms`, `By` or `1`. */
  metric(name: string, value: number, unit?: string, context?: CallContext): void;
  /** A `fetch` with the same signature that traces each request, whether or not global fetch is patched. */
  instrumentFetch(): typeof fetch;
  /** Adds a custom event to the replay timeline. */
  captureReplayEvent(type: string, payload?: unknown): void;
  /** Sends the buffered replay events now. */
  flushReplay(): Promise<void>;
  /**
   * Identifies the signed-in user on every later record (`user.id`; `user.email` and `user.name` only with
   * `sendUserPii: true`), so the session can be found by user id. Call it again on each page load.
   */
  setUser(user: User): void;
  /** Forgets the user (at sign-out). */
  clearUser(): void;
  /**
   * Adds attributes to every later record and to the session, as `session.attributes.<key>` (e.g. a plan or a
   * tenant), searchable on the server. Merged with earlier calls; a `null` value removes the key.
   */
  setAttributes(attributes: Record<string, unknown>): void;
  /** Sends everything queued, then removes every patch and listener the SDK added. Idempotent. */
  shutdown(): Promise<void>;
  /** The current session id (rotated after inactivity or at the maximum session age). */
  readonly sessionId: string;
}
