import type { SyncRow } from '../store/providers';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * A connection's sync as the API shows it. `state`: `running`; `due` (waiting for a worker: a new connection, a manual
 * trigger, or a run whose time has come); `scheduled` (the last run succeeded; the next is at `next_run_at`);
 * `retrying` (the last run failed; it runs again at `next_run_at`).
 */
export function syncJson(row: SyncRow, nowMs: number) {
  const running = row.lease_until_ms !== null && row.lease_until_ms > nowMs;
  const state = running ? 'running' : row.next_run_ms <= nowMs ? 'due' : row.failures > 0 ? 'retrying' : 'scheduled';
  return {
    state,
    next_run_at: iso(row.next_run_ms),
    last_success_at: iso(row.last_success_ms),
    consecutive_failures: row.failures,
    last_run:
      row.last_status === null
        ? null
        : {
            started_at: iso(row.last_started_ms),
            finished_at: iso(row.last_finished_ms),
            status: row.last_status,
            line_items: row.last_rows,
            periods: row.last_periods === null ? null : (JSON.parse(row.last_periods) as string[]),
            error: row.last_error,
          },
  };
}
