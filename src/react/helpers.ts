import { getSDK } from '../sdk/init';
import type { User } from '../config/types';
import type { CallContext, LogLevel } from '../core/types';

/**
 * Module-level helpers for components: they act on the running SDK without anyone passing it around, and do
 * nothing (never throw) before the SDK is started or where it cannot run, as during server rendering.
 */

/** Structured log through the running SDK. */
export function log(level: LogLevel, message: string, context?: CallContext): void {
  getSDK()?.log(level, message, context);
}

/** Reports an error (name, message, stack) at `error` level. */
export function captureException(error: unknown, context?: CallContext): void {
  getSDK()?.captureException(error, context);
}

/** Alias of {@link captureException}. */
export const captureError = captureException;

/** Records a numeric value. */
export function metric(name: string, value: number, unit?: string, context?: CallContext): void {
  getSDK()?.metric(name, value, unit, context);
}

/** Adds a custom event to the replay timeline. */
export function captureReplayEvent(type: string, payload?: unknown): void {
  getSDK()?.captureReplayEvent(type, payload);
}

/** Sends the buffered replay events now. */
export function flushReplay(): Promise<void> {
  return getSDK()?.flushReplay() ?? Promise.resolve();
}

/** Identifies the signed-in user on every later record (see `BrowserSDK.setUser`). */
export function setUser(user: User): void {
  getSDK()?.setUser(user);
}

/** Forgets the user (at sign-out). */
export function clearUser(): void {
  getSDK()?.clearUser();
}

/** Adds session attributes to every later record (see `BrowserSDK.setAttributes`). */
export function setAttributes(attributes: Record<string, unknown>): void {
  getSDK()?.setAttributes(attributes);
}

/** The current session id, or `undefined` before the SDK started. */
export function getSessionId(): string | undefined {
  return getSDK()?.sessionId;
}
