import { getSDK } from '../sdk/init';
import type { User } from '../config/types';
import type { BrowserSDK, CallContext, LogLevel } from '../core/types';

/**
 * Module-level helpers for components: they act on the running SDK without anyone passing it around, and do
 * nothing (never throw) before the SDK is started or where it cannot run, as during server rendering.
 */

/** Runs `use` with the running SDK, if any (one test, where `getSDK()?.` in each helper is spelled out in ES2018). */
function withSDK(use: (sdk: BrowserSDK) => void): void {
  const sdk = getSDK();
  if (sdk) use(sdk);
}

/** Structured log through the running SDK. */
export function log(level: LogLevel, message: string, context?: CallContext): void {
  withSDK((sdk) => sdk.log(level, message, context));
}

/** Reports an error (name, message, stack) at `error` level. */
export function captureException(error: unknown, context?: CallContext): void {
  withSDK((sdk) => sdk.captureException(error, context));
}

/** Alias of {@link captureException}. */
export const captureError = captureException;

/** Records a numeric value. */
export function metric(name: string, value: number, unit?: string, context?: CallContext): void {
  withSDK((sdk) => sdk.metric(name, value, unit, context));
}

/** Adds a custom event to the replay timeline. */
export function captureReplayEvent(type: string, payload?: unknown): void {
  withSDK((sdk) => sdk.captureReplayEvent(type, payload));
}

/** Sends the buffered replay events now. */
export function flushReplay(): Promise<void> {
  const sdk = getSDK();
  return sdk ? sdk.flushReplay() : Promise.resolve();
}

/** Identifies the signed-in user on every later record (see `BrowserSDK.setUser`). */
export function setUser(user: User): void {
  withSDK((sdk) => sdk.setUser(user));
}

/** Forgets the user (at sign-out). */
export function clearUser(): void {
  withSDK((sdk) => sdk.clearUser());
}

/** Adds session attributes to every later record (see `BrowserSDK.setAttributes`). */
export function setAttributes(attributes: Record<string, unknown>): void {
  withSDK((sdk) => sdk.setAttributes(attributes));
}

/** The current session id, or `undefined` before the SDK started. */
export function getSessionId(): string | undefined {
  const sdk = getSDK();
  return sdk && sdk.sessionId;
}
