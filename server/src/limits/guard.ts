import type { Clock } from '../clock';
import type { Caller } from '../http/env';
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
   * Before the key is checked or the body read: the 429 for a presented key whose bucket for `signal` this process
   * found empty and that has not refilled since, with the caller that emptied it (for the refusal's count), so a
   * flood is refused without a database lookup, decompression or parsing. Undefined when the request may go on.
   */
  refuseEarly(presented: string, signal: LimitSignal): Promise<{ caller: Caller; refusal: DomainError } | undefined>;
  /**
   * Takes the request's units from the project's daily quotas, the spike throttle and the key's buckets, or throws
   * the 429 of the first limit it is over (nothing taken then). `stored` counts the units as accepted. `presented`
   * is the key as the request carried it, which an early refusal recognises.
   */
  admit(caller: Caller, presented: string, demands: readonly Demand[]): Promise<{ stored(): void }>;
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
  /** For a key's own bucket: the presented key and signal an early refusal looks up. */
  early?: string;
}

/** The buckets a demand takes from: the key's, and the project's spike throttle while it spikes. */
function takesOf(
  { projectId, keyId, presented }: { projectId: string; keyId: string; presented: string },
  { signal, units }: Demand,
  own: SignalLimits,
  spikes: SpikeWatch,
) {
  const rate: BucketTake = {
    key: `${keyId}:${signal}`,
    units,
    limits: own,
    refusal: (ms) => rateRefusal(signal, own, ms),
    early: earlyKey(presented, signal),
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

const earlyKey = (presented: string, signal: LimitSignal) => `${presented}\u0000${signal}`;

export function createIngestGuard(deps: {
  clock: Clock;
  limits: LimitsCache;
  buckets: RateBuckets;
  usage: UsageCounter;
  spikes: SpikeWatch;
}): IngestGuard {
  const { clock, buckets, usage, spikes } = deps;
  /**
   * Keys' buckets found empty, by presented key and signal, until they refill, with the limits they were found empty
   * under and the caller. Bounded by the keys that exist: an unknown key is refused by the key check, never here.
   */
  const emptyUntil = new Map<string, { untilMs: number; limits: SignalLimits; caller: Caller }>();

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
  const takeAll = async (takes: readonly BucketTake[], caller: Caller) => {
    for (const [i, take] of takes.entries()) {
      const result = await buckets.take(take.key, take.units, take.limits);
      if (result.granted) continue;
      for (const done of takes.slice(0, i)) await buckets.giveBack(done.key, done.units, done.limits);
      const untilMs = clock.now() + result.retryAfterMs;
      if (take.early) emptyUntil.set(take.early, { untilMs, limits: take.limits, caller });
      throw take.refusal(result.retryAfterMs);
    }
  };

  return {
    async refuseEarly(presented, signal) {
      const key = earlyKey(presented, signal);
      const empty = emptyUntil.get(key);
      if (empty === undefined) return undefined;
      const now = clock.now();
      // A bucket refilled, or limits changed since (a new bucket): the request goes on to be checked and counted.
      const limits = (await deps.limits.of(empty.caller.projectId))[signal];
      const changed = empty.limits.rate !== limits.rate || empty.limits.burst !== limits.burst;
      if (empty.untilMs > now && !changed)
        return { caller: empty.caller, refusal: rateRefusal(signal, limits, empty.untilMs - now) };
      emptyUntil.delete(key);
      return undefined;
    },
    async admit(caller, presented, demands) {
      const { projectId } = caller;
      const keyId = caller.actor.kind === 'key' ? caller.actor.key.id : '';
      const limits = await deps.limits.of(projectId);
      const wanted = demands.filter((d) => d.units > 0);
      for (const demand of wanted) await checkQuota(projectId, demand, limits[demand.signal]);
      const takes = wanted.flatMap((demand) =>
        takesOf({ projectId, keyId, presented }, demand, limits[demand.signal], spikes),
      );
      try {
        await takeAll(takes, caller);
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
