import type { RunRecord } from '../store/sync-jobs';

/** SPEC 8: cost data is synced daily. */
export const SYNC_INTERVAL_MS = 24 * 3_600_000;
/** After a failed run: 5 min, 30 min, 2 h, 6 h, then once a day until it works. */
export const RETRY_DELAYS_MS = [5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000] as const;

export const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).slice(0, 2000);

/** What a run read: line items and the billing periods replaced. */
export interface RunResult {
  rows: number;
  periods: string[];
}

/** A run that read and stored its periods: the next one a day after this one started. */
export function succeeded(result: RunResult, startedMs: number, nowMs: number): RunRecord {
  return {
    next_run_ms: startedMs + SYNC_INTERVAL_MS,
    failures: 0,
    last_status: 'succeeded',
    last_rows: result.rows,
    last_periods: JSON.stringify(result.periods),
    last_error: null,
    last_success_ms: nowMs,
  };
}

/** A failed run, the job's `failures`-th in a row: retried after the backoff for that count; the data kept. */
export function failed(failures: number, error: unknown, nowMs: number): { record: RunRecord; delayMs: number } {
  const delayMs = RETRY_DELAYS_MS[failures - 1] ?? SYNC_INTERVAL_MS;
  return {
    delayMs,
    record: {
      next_run_ms: nowMs + delayMs,
      failures,
      last_status: 'failed',
      last_rows: null,
      last_periods: null,
      last_error: errorText(error),
    },
  };
}

/** A run the server's stop interrupted: not the connection's failure, so due again at once (at the next start). */
export const interrupted = (nowMs: number): RunRecord => ({ next_run_ms: nowMs });
