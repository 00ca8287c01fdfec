import type { Refusal } from './counter';

/** At most one line per project and reason in this window; the next line says how many were not logged. */
const LOG_WINDOW_MS = 60_000;

/**
 * Logs refused ingest requests in the server's output, rate-limited per project and reason, so a misconfigured page
 * sending every two seconds is one line a minute, not thirty, and a flood of bad keys cannot fill the log.
 */
export function refusalLogger(log: (line: string) => void): (refusal: Refusal) => void {
  const windows = new Map<string, { startMs: number; suppressed: number }>();
  return (refusal) => {
    const key = `${refusal.projectId}\u0000${refusal.reason}`;
    const window = windows.get(key);
    if (window && refusal.atMs - window.startMs < LOG_WINDOW_MS) {
      window.suppressed += 1;
      return;
    }
    const more = window && window.suppressed > 0 ? ` (${window.suppressed} more of these in the last minute)` : '';
    windows.set(key, { startMs: refusal.atMs, suppressed: 0 });
    const { example: e } = refusal;
    const whose = refusal.projectId ? `project ${refusal.projectId}` : 'no project (missing or unknown key)';
    const from = [e.origin && `origin ${e.origin}`, e.user_agent && `user agent ${JSON.stringify(e.user_agent)}`]
      .filter(Boolean)
      .join(', ');
    log(
      `ingest refused ${e.method} ${e.path} with ${e.status} ${refusal.reason} for ${whose}${from ? ` from ${from}` : ''}: ${e.message}${more}`,
    );
  };
}
