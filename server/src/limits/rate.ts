import type pg from 'pg';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { SignalLimits } from './signals';

/** Where the token buckets live: in this process (SQLite, one server), or in PostgreSQL, shared by every replica. */
export type BucketStore = { kind: 'memory' } | { kind: 'postgres'; pool: pg.Pool };

/** A take from a bucket: granted, or refused with the milliseconds until enough units are back. */
export type Take = { granted: true } | { granted: false; retryAfterMs: number };

export interface RateBuckets {
  /** Takes `units` from the bucket `key` (an ingest key and a signal) with the limits `limits`. */
  take(key: string, units: number, limits: SignalLimits): Promise<Take>;
  /** Gives back units a request took but did not use (a later limit refused it, or storage failed). */
  giveBack(key: string, units: number, limits: SignalLimits): Promise<void>;
}

/**
 * Token buckets from rate-limiter-flexible: its BurstyRateLimiter, a window of `rate` units a second backed by a
 * second window of `burst` units over `burst / rate` seconds, which behaves as a bucket refilled at `rate` holding
 * `burst`. With PostgreSQL a take is one upsert on `ingest_rate_buckets`; a bucket found empty is remembered in
 * memory until it refills (`inMemoryBlockOnConsumed`), so a key flooding the server costs the database nothing.
 */
export function createRateBuckets(store: BucketStore): RateBuckets {
  const limiters = new Map<string, { bucket: BurstyRateLimiter; main: RateLimiterAbstract }>();

  const window = (prefix: string, points: number, duration: number): RateLimiterAbstract =>
    store.kind === 'memory'
      ? new RateLimiterMemory({ keyPrefix: prefix, points, duration })
      : new RateLimiterPostgres({
          storeClient: store.pool,
          storeType: 'pool',
          tableName: 'ingest_rate_buckets',
          tableCreated: true,
          keyPrefix: prefix,
          points,
          duration,
          inMemoryBlockOnConsumed: points,
        });

  // One limiter per setting, so a project whose limits change starts from a full bucket of the new size.
  const limiterOf = ({ rate, burst }: SignalLimits) => {
    const id = `${rate}/${burst}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const main = window(`r${id}`, rate, 1);
      const bucket = new BurstyRateLimiter(main, window(`b${id}`, burst, Math.max(1, Math.ceil(burst / rate))));
      limiter = { bucket, main };
      limiters.set(id, limiter);
    }
    return limiter;
  };

  return {
    async take(key, units, limits) {
      if (limits.rate === 0) return { granted: true };
      try {
        await limiterOf(limits).bucket.consume(key, units);
        return { granted: true };
      } catch (refusal) {
        if (refusal instanceof RateLimiterRes) return { granted: false, retryAfterMs: refusal.msBeforeNext };
        throw refusal;
      }
    },
    async giveBack(key, units, limits) {
      if (limits.rate === 0) return;
      // Every take is counted in the main window first; a refund there is what lets the next one in.
      await limiterOf(limits).main.reward(key, units);
    },
  };
}
