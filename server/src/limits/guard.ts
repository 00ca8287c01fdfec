import type { Clock } from '../clock';
import { DomainError } from '../shared/domain-errors';
import type { LimitsCache } from './cache';
import type { RateBuckets } from './rate';
import { UNIT_TEXT, type LimitSignal, type SignalLimits } from './signals';
import type { SpikeWatch } from './spikes';
import { DAY_MS, type UsageCounter } from './usage';

/** What one request asks of a signal's limits. */
export interface Demand {
  signal: LimitSignal;
  units: number;
}

export interface IngestGuard {
  /**
   * Before the body is read: refuses at once a key whose bucket for `signal` this process found empty and that has
   * not refilled since, so a flood is refused without reading, decompressing or parsing what it sends.
   */
  refuseEarly(projectId: string, keyId: string, signal: LimitSignal): Promise<void>;
  /**
   * Takes the request's units from the project's daily quotas, the spike throttle and the key's buckets, or throws
   * the 429 of the first limit it is over (nothing taken then). `stored` counts the units as accepted.
   */
  admit(projectId: string, keyId: string, demands: readonly Demand[]): Promise<{ stored(): void }>;
}

/** The 429 of a limit, naming it; `Retry-After` in whole seconds, at least one. */
function overLimit(
  code: 'rate_limited' | 'quota_exceeded' | 'spike_throttled',
  signal: LimitSignal,
  message: string,
  limit: number,
  retryAfterMs: number,
): DomainError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new DomainError(
    'busy',
    code,
    `${message}; nothing was stored, send it again after ${seconds} s`,
    { field: signal, limit, retry_after_seconds: seconds },
    seconds,
  );
}

/** The 429 of a key's bucket. */
const rateRefusal = (signal: LimitSignal, { rate, burst }: SignalLimits, retryAfterMs: number) =>
  overLimit(
    'rate_limited',
    signal,
    `this ingest key is over its rate of ${rate} ${UNIT_TEXT[signal]} a second (burst ${burst})`,
    rate,
    retryAfterMs,
  );

/** One bucket a request takes from, and the refusal it gets when the bucket is empty. */
interface BucketTake {
  key: string;
  units: number;
  limits: SignalLimits;
  refusal: (retryAfterMs: number) => DomainError;
}

/** The buckets a demand takes from: the key's, and the project's spike throttle while it spikes. */
function takesOf(projectId: string, keyId: string, { signal, units }: Demand, own: SignalLimits, spikes: SpikeWatch) {
  const rate: BucketTake = {
    key: `${keyId}:${signal}`,
    units,
    limits: own,
    refusal: (ms) => rateRefusal(signal, own, ms),
  };
  const spike = spikes.throttle(projectId, signal, own);
  if (!spike) return [rate];
  const throttle: BucketTake = {
    key: `spike:${projectId}:${signal}`,
    units,
    limits: spike,
    refusal: (ms) =>
      overLimit(
        'spike_throttled',
        signal,
        `the project's ${UNIT_TEXT[signal]} are throttled to ${spike.rate} a second after a spike over its usual rate`,
        spike.rate,
        ms,
      ),
  };
  return [rate, throttle];
}

export function createIngestGuard(deps: {
  clock: Clock;
  limits: LimitsCache;
  buckets: RateBuckets;
  usage: UsageCounter;
  spikes: SpikeWatch;
}): IngestGuard {
  const { clock, buckets, usage, spikes } = deps;
  /** Buckets found empty, until they refill, with the limits they were found empty under. */
  const emptyUntil = new Map<string, { untilMs: number; limits: SignalLimits }>();

  const checkQuota = async (projectId: string, { signal, units }: Demand, limits: SignalLimits) => {
    if (limits.daily === 0) return;
    const now = clock.now();
    const used = await usage.acceptedToday(projectId, signal, now);
    if (used + units <= limits.daily) return;
    usage.add(projectId, signal, { throttled: units }, now);
    throw overLimit(
      'quota_exceeded',
      signal,
      `the project's daily quota of ${limits.daily} ${UNIT_TEXT[signal]} is used up (${used} accepted today, UTC)`,
      limits.daily,
      DAY_MS - (now % DAY_MS),
    );
  };

  /** Takes from each bucket in turn; on a refusal, gives back what the earlier ones gave. */
  const takeAll = async (takes: readonly BucketTake[]) => {
    for (const [i, take] of takes.entries()) {
      const result = await buckets.take(take.key, take.units, take.limits);
      if (result.granted) continue;
      for (const done of takes.slice(0, i)) await buckets.giveBack(done.key, done.units, done.limits);
      emptyUntil.set(take.key, { untilMs: clock.now() + result.retryAfterMs, limits: take.limits });
      throw take.refusal(result.retryAfterMs);
    }
  };

  return {
    async refuseEarly(projectId, keyId, signal) {
      const key = `${keyId}:${signal}`;
      const empty = emptyUntil.get(key);
      if (empty === undefined) return;
      const now = clock.now();
      // A bucket refilled, or limits changed since (a new bucket): the request goes on to be counted.
      const limits = (await deps.limits.of(projectId))[signal];
      const changed = empty.limits.rate !== limits.rate || empty.limits.burst !== limits.burst;
      if (empty.untilMs <= now || changed) emptyUntil.delete(key);
      else throw rateRefusal(signal, limits, empty.untilMs - now);
    },
    async admit(projectId, keyId, demands) {
      const limits = await deps.limits.of(projectId);
      const wanted = demands.filter((d) => d.units > 0);
      for (const demand of wanted) await checkQuota(projectId, demand, limits[demand.signal]);
      const takes = wanted.flatMap((demand) => takesOf(projectId, keyId, demand, limits[demand.signal], spikes));
      try {
        await takeAll(takes);
      } catch (err) {
        const now = clock.now();
        for (const { signal, units } of wanted) usage.add(projectId, signal, { throttled: units }, now);
        throw err;
      }
      return {
        stored() {
          const now = clock.now();
          for (const { signal, units } of wanted) usage.add(projectId, signal, { accepted: units }, now);
        },
      };
    },
  };
}
