import type { DebugLog, Originals } from './core';

/** Prefix of every line the SDK prints, so its output is recognisable in the console. */
export const DEBUG_PREFIX = '[svc]';

/**
 * The SDK's diagnostics. They go through the console as it was before the SDK patched it, which is what keeps them
 * out of console capture; with `debug` off nothing is printed at all.
 */
export function createDebugLog(enabled: boolean, console: Originals['console']): DebugLog {
  const print =
    (method: 'warn' | 'error') =>
    (message: string, error?: unknown): void => {
      if (!enabled) return;
      try {
        if (error === undefined) console[method](`${DEBUG_PREFIX} ${message}`);
        else console[method](`${DEBUG_PREFIX} ${message}`, error);
      } catch {
        // A console that throws must not turn a diagnostic into an application error.
      }
    };
  return { warn: print('warn'), error: print('error') };
}

/** Kinds of misconfiguration already reported on this page. */
const reported = new Set<string>();

/**
 * A misconfiguration the developer must hear of even without `debug`: printed once per `kind` per page, through the
 * console as it was before the SDK patched it (so console capture never records it).
 */
export function warnOnce(console: Pick<Console, 'warn'>, kind: string, message: string): void {
  if (reported.has(kind)) return;
  reported.add(kind);
  try {
    console.warn(`${DEBUG_PREFIX} ${message}`);
  } catch {
    // See createDebugLog.
  }
}
