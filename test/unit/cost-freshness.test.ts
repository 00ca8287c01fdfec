import { describe, expect, it } from 'vitest';
import { dataFreshness, STALE_AFTER_MS, type ConnectionSync } from '../../server/src/cost/reports/freshness';

const NOW = Date.UTC(2026, 2, 11, 12, 0, 0);
const HOUR = 3_600_000;

const connection = (id: string, sync: Partial<ConnectionSync> = {}): ConnectionSync => ({
  id,
  provider: 'aws',
  name: null,
  last_success_ms: NOW,
  last_status: 'succeeded',
  last_error: null,
  last_finished_ms: NOW,
  next_run_ms: NOW + 24 * HOUR,
  failures: 0,
  ...sync,
});

describe('data freshness', () => {
  it('is stale after a daily sync and 12 hours of retries, and never before', () => {
    expect(STALE_AFTER_MS).toBe(36 * HOUR);
    expect(dataFreshness([connection('a', { last_success_ms: NOW - 36 * HOUR })], NOW).status).toBe('fresh');
    expect(dataFreshness([connection('a', { last_success_ms: NOW - 36 * HOUR - 1 })], NOW)).toMatchObject({
      status: 'stale',
      providers: [{ status: 'stale' }],
    });
  });

  it('judges the age of the last success, and shows the last run error beside it', () => {
    const failedAfter = connection('a', {
      last_success_ms: NOW - 20 * HOUR,
      last_status: 'failed',
      last_error: 'access denied',
      last_finished_ms: NOW - HOUR,
      failures: 2,
    });
    expect(dataFreshness([failedAfter], NOW)).toMatchObject({
      status: 'fresh',
      providers: [
        {
          status: 'fresh',
          last_error: { message: 'access denied', at: new Date(NOW - HOUR).toISOString() },
          consecutive_failures: 2,
        },
      ],
    });
  });

  it('has no data until one connection synced; one connection without data makes the whole stale', () => {
    const neverRan = connection('b', { last_success_ms: null, last_status: null, last_finished_ms: null });
    expect(dataFreshness([neverRan], NOW)).toMatchObject({
      status: 'no_data',
      message: 'The first sync has not finished yet: there is no cost data so far.',
      providers: [{ last_error: null }],
    });
    expect(dataFreshness([connection('a'), neverRan], NOW)).toMatchObject({
      status: 'stale',
      providers: [{ status: 'fresh' }, { status: 'no_data' }],
    });
  });
});
