import type { Transaction } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import type { DatabaseHandle } from '../db/connect';
import { createLimitsCache, type LimitsCache } from './cache';
import { createIngestGuard, type IngestGuard } from './guard';
import { createRateBuckets } from './rate';
import { DEFAULT_LIMITS, type LimitDefaults } from './signals';
import { createSpikeWatch, DEFAULT_SPIKES, type Spike, type SpikeSettings } from './spikes';
import { createUsageCounter, type UsageCounter } from './usage';

/** How often each process looks for spikes (after writing its usage counts). */
const SPIKE_CHECK_MS = 60_000;

export interface LimitServices {
  guard: IngestGuard;
  /** Each project's limits in force, cached; the routes that change them forget a project's. */
  limits: LimitsCache;
  usage: UsageCounter;
  /** The server's defaults (SVC_LIMIT_<SIGNAL>). */
  defaults: LimitDefaults;
  /** Writes the usage counts and looks for spikes now (the timer does it every minute); returns the spikes begun. */
  checkSpikes(): Promise<Spike[]>;
  stop(): Promise<void>;
}

/**
 * Ingest limits for this process (docs/governance.md, "Limits"): buckets in memory with SQLite, in PostgreSQL with
 * it (shared by replicas); usage counted in memory and written every few seconds; spikes looked for every minute and
 * handed to `onSpike` (which notifies) once across replicas.
 */
export function startLimits(
  database: DatabaseHandle,
  clock: Clock,
  log: (line: string) => void,
  options: {
    limits?: LimitDefaults;
    spikes?: SpikeSettings;
    /** Schedules a spike's notifications, in the transaction that records it. */
    onSpike: (trx: Transaction<Database>, spike: Spike) => Promise<void>;
    /** Called once spikes begun are committed (the outbox sends their notifications). */
    afterSpikes: () => void;
  },
): LimitServices {
  const { db } = database;
  const defaults = options.limits ?? DEFAULT_LIMITS;
  const usage = createUsageCounter(db, log);
  const limits = createLimitsCache(db, clock, defaults);
  const spikes = createSpikeWatch({
    db,
    clock,
    settings: options.spikes ?? DEFAULT_SPIKES,
    limitsOf: limits.of,
    onSpike: options.onSpike,
  });
  const buckets = createRateBuckets(database.pool ? { kind: 'postgres', pool: database.pool } : { kind: 'memory' });
  const guard = createIngestGuard({ clock, limits, buckets, usage, spikes });
  const checkSpikes = async () => {
    await usage.flush();
    const begun = await spikes.check();
    if (begun.length > 0) options.afterSpikes();
    return begun;
  };
  let checking: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    checking = checkSpikes().catch((err: unknown) =>
      log(`spike check failed (tried again in a minute): ${err instanceof Error ? err.message : String(err)}`),
    );
  }, SPIKE_CHECK_MS);
  timer.unref();
  return {
    guard,
    limits,
    usage,
    defaults,
    checkSpikes,
    async stop() {
      clearInterval(timer);
      await checking;
      await usage.stop();
    },
  };
}
