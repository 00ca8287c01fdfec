import { SYNC_INTERVAL_MS } from '../sync/outcome';

/** A connection and its sync job, as the freshness of the reports is judged from them (epoch ms). */
export interface ConnectionSync {
  id: string;
  provider: string;
  name: string | null;
  last_success_ms: number | null;
  /** `succeeded` or `failed` for the last run; null before the first. */
  last_status: string | null;
  last_error: string | null;
  last_finished_ms: number | null;
  next_run_ms: number;
  failures: number;
}

export type FreshnessStatus = 'no_data' | 'fresh' | 'stale';

/**
 * Data older than this is stale: a daily sync (SPEC 8) that succeeds keeps it younger than a day; the 12 hours more
 * cover a run's retries (5 min to 6 h) before a missed day is called stale.
 */
export const STALE_AFTER_MS = SYNC_INTERVAL_MS + 12 * 3_600_000;

export interface ProviderFreshness {
  id: string;
  provider: string;
  name: string | null;
  /** `no_data` until a sync succeeds; `stale` when the last success is older than `stale_after_hours`. */
  status: FreshnessStatus;
  last_success_at: string | null;
  /** The error of the last run when it failed (cleared by a success), and when it ended. */
  last_error: { message: string; at: string | null } | null;
  consecutive_failures: number;
  next_sync_at: string;
}

/** How far a report can be trusted: every report (summary, by-service, estimate, recommendations) carries it as `data`. */
export interface DataFreshness {
  /** `no_data` when no connection has ever synced; `stale` when any connection's data is stale or missing; else `fresh`. */
  status: FreshnessStatus;
  /** What the status means for this project, in a sentence. */
  message: string;
  stale_after_hours: number;
  providers: ProviderFreshness[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The freshness of a project's cost data: without it a failed or never-run sync reads as a month without cost (zeros,
 * `currency: null`). Judged per connection by the age of its last successful sync, not by its last run: a run that
 * failed an hour after yesterday's success leaves day-old data, as fresh as a daily sync makes it, and the error shows.
 */
export function dataFreshness(connections: readonly ConnectionSync[], nowMs: number): DataFreshness {
  const providers = connections.map(
    (c): ProviderFreshness => ({
      id: c.id,
      provider: c.provider,
      name: c.name,
      status: c.last_success_ms === null ? 'no_data' : nowMs - c.last_success_ms > STALE_AFTER_MS ? 'stale' : 'fresh',
      last_success_at: iso(c.last_success_ms),
      last_error:
        c.last_status === 'failed' ? { message: c.last_error ?? 'unknown error', at: iso(c.last_finished_ms) } : null,
      consecutive_failures: c.failures,
      next_sync_at: iso(c.next_run_ms)!,
    }),
  );
  const hours = STALE_AFTER_MS / 3_600_000;
  const behind = providers.filter((p) => p.status !== 'fresh').length;
  const base = { stale_after_hours: hours, providers };
  if (providers.length === 0)
    return { status: 'no_data', message: 'No cost provider is connected: there is no cost data.', ...base };
  if (providers.every((p) => p.status === 'no_data')) {
    const failed = providers.some((p) => p.last_error !== null);
    const message = failed
      ? 'No sync has succeeded yet, so there is no cost data: see providers[].last_error.'
      : 'The first sync has not finished yet: there is no cost data so far.';
    return { status: 'no_data', message, ...base };
  }
  if (behind > 0) {
    return {
      status: 'stale',
      message: `The data of ${behind} of ${providers.length} connections is older than ${hours} hours or missing: see providers.`,
      ...base,
    };
  }
  return { status: 'fresh', message: `Every connection synced in the last ${hours} hours.`, ...base };
}
