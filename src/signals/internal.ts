import type { SdkCore } from '../core/core';

/**
 * How many SDK calls are on the stack right now. Console capture and error capture consult it, so that output or
 * errors produced while the SDK is recording something are never recorded again (no feedback loops, no duplicates).
 * Module state on purpose: there is one SDK per page, and the guard must hold across all signal modules.
 */
let depth = 0;

/** True while SDK code started through {@link runGuarded} is running. */
export function isInternal(): boolean {
  return depth > 0;
}

/**
 * Runs SDK work on behalf of the app: marked internal for the re-entrancy guard, and never throwing: a failure is
 * reported through `core.debug.error` as `${what} failed`.
 */
export function runGuarded(core: SdkCore, what: string, work: () => void): void {
  depth++;
  try {
    work();
  } catch (error) {
    try {
      core.debug.error(`${what} failed`, error);
    } catch {
      // Diagnostics must not turn into an application error either.
    }
  } finally {
    depth--;
  }
}
