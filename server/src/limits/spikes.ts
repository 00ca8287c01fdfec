import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { LIMIT_SIGNALS, type LimitSignal, type SignalLimits } from './signals';
import { limitsDb } from './tables';
import { BUCKET_MS, DAY_MS } from './usage';

/** Spike protection's settings (SVC_SPIKE_MULTIPLE, SVC_SPIKE_MINUTES). */
export interface SpikeSettings {
  /** A project sending more than this many times its usual rate is throttled to it; 0 turns spike protection off. */
  multiple: number;
  /** How long a spike is throttled. */
  minutes: number;
}

export const DEFAULT_SPIKES: SpikeSettings = { multiple: 10, minutes: 60 };

/** A spike found, as stored and notified. */
export interface Spike {
  projectId: string;
  signal: LimitSignal;
  startedMs: number;
  untilMs: number;
  baselinePerMinute: number;
  observedPerMinute: number;
}

export interface SpikeWatch {
  /**
   * The throttle in force for a project's signal while it spikes, as bucket limits (never above the project's own
   * burst); undefined when none.
   */
  throttle(projectId: string, signal: LimitSignal, own: SignalLimits): SignalLimits | undefined;
  /** Compares each project's last minutes with its day before, and starts or ends throttles; returns spikes begun. */
  check(): Promise<Spike[]>;
}

/** The minutes whose rate is compared: the last complete bucket and the one filling. */
const RECENT_MS = 2 * BUCKET_MS;
/** A spike must also be worth throttling: at least this share of a key's rate, sustained for a minute. */
const FLOOR_SHARE_OF_RATE = 0.01;

/**
 * Units accepted per project and signal in [countFromMs, toMs), and the first bucket with usage since `fromMs`: when
 * that is before `countFromMs`, the project was counted over the whole span.
 */
const usageBetween = (db: Kysely<Database>, fromMs: number, countFromMs: number, toMs: number) =>
  limitsDb(db)
    .selectFrom('ingest_usage')
    .select(['project_id', 'signal'])
    .select((eb) => [
      eb.fn.sum<number | string>(sql`case when bucket_ms >= ${countFromMs} then accepted else 0 end`).as('accepted'),
      eb.fn.min<number>('bucket_ms').as('first'),
    ])
    .where('bucket_ms', '>=', fromMs)
    .where('bucket_ms', '<', toMs)
    .groupBy(['project_id', 'signal'])
    .execute();

/**
 * Stores each spike with what it notifies, in one transaction; only the process whose insert wins notifies, so each
 * spike is notified once, and never lost between the two.
 */
async function recordSpikes(
  db: Kysely<Database>,
  spikes: Spike[],
  onSpike: (trx: Transaction<Database>, spike: Spike) => Promise<void>,
): Promise<Spike[]> {
  const begun: Spike[] = [];
  for (const spike of spikes) {
    await db.transaction().execute(async (trx) => {
      const inserted = await limitsDb(trx)
        .insertInto('ingest_spikes')
        .values({
          project_id: spike.projectId,
          signal: spike.signal,
          started_ms: spike.startedMs,
          until_ms: spike.untilMs,
          baseline_per_minute: spike.baselinePerMinute,
          observed_per_minute: spike.observedPerMinute,
        })
        .onConflict((oc) => oc.columns(['project_id', 'signal']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;
      await onSpike(trx, spike);
      begun.push(spike);
    });
  }
  return begun;
}

/** The spikes being throttled at `now`, by project and signal. */
async function activeSpikes(db: Kysely<Database>, now: number): Promise<Map<string, Spike>> {
  const rows = await limitsDb(db).selectFrom('ingest_spikes').selectAll().where('until_ms', '>', now).execute();
  return new Map(
    rows.map((r) => [
      `${r.project_id}\u0000${r.signal}`,
      {
        projectId: r.project_id,
        signal: r.signal as LimitSignal,
        startedMs: Number(r.started_ms),
        untilMs: Number(r.until_ms),
        baselinePerMinute: Number(r.baseline_per_minute),
        observedPerMinute: Number(r.observed_per_minute),
      },
    ]),
  );
}

/**
 * Spike protection (docs/governance.md, "Spikes"): a project whose units a minute over the last five to ten minutes
 * exceed `multiple` times its average over the day before is throttled to that multiple for `minutes`. The day before
 * must be fully known (the project counted usage for over a day), so a new project is never throttled for starting.
 * The spike's row is the shared state: replicas each check, the one whose insert wins reports it (and so notifies
 * once), and every replica applies the throttles it reads.
 */
export function createSpikeWatch(deps: {
  db: Kysely<Database>;
  clock: Clock;
  settings: SpikeSettings;
  limitsOf: (projectId: string) => Promise<Record<LimitSignal, SignalLimits>>;
  onSpike: (trx: Transaction<Database>, spike: Spike) => Promise<void>;
}): SpikeWatch {
  const { clock, settings } = deps;
  let active = new Map<string, Spike>();

  const detect = async (now: number): Promise<Spike[]> => {
    const recentFrom = now - (now % BUCKET_MS) - BUCKET_MS;
    const recentMinutes = (now - recentFrom) / 60_000;
    const recent = await usageBetween(deps.db, recentFrom, recentFrom, recentFrom + RECENT_MS);
    if (recent.length === 0) return [];
    const day = await usageBetween(deps.db, recentFrom - 2 * DAY_MS, recentFrom - DAY_MS, recentFrom);
    const baselines = new Map(day.map((r) => [`${r.project_id}\u0000${r.signal}`, r]));
    const found: Spike[] = [];
    for (const row of recent) {
      const signal = row.signal as LimitSignal;
      if (!LIMIT_SIGNALS.includes(signal) || active.has(`${row.project_id}\u0000${signal}`)) continue;
      const before = baselines.get(`${row.project_id}\u0000${signal}`);
      // The day before is fully known only when usage was counted before it began.
      if (!before || Number(before.first) >= recentFrom - DAY_MS) continue;
      const baselinePerMinute = Number(before.accepted) / (DAY_MS / 60_000);
      const observedPerMinute = Number(row.accepted) / recentMinutes;
      const own = (await deps.limitsOf(row.project_id))[signal];
      const floor = own.rate * 60 * FLOOR_SHARE_OF_RATE;
      if (observedPerMinute <= settings.multiple * baselinePerMinute || observedPerMinute < floor) continue;
      const untilMs = now + settings.minutes * 60_000;
      found.push({ projectId: row.project_id, signal, startedMs: now, untilMs, baselinePerMinute, observedPerMinute });
    }
    return found;
  };

  return {
    throttle(projectId, signal, own) {
      const spike = active.get(`${projectId}\u0000${signal}`);
      if (!spike || spike.untilMs <= clock.now()) return undefined;
      const rate = Math.max(1, Math.ceil((spike.baselinePerMinute * settings.multiple) / 60));
      return { rate, burst: Math.min(own.burst, rate * 10), daily: 0 };
    },
    async check() {
      if (settings.multiple === 0) return [];
      const now = clock.now();
      await limitsDb(deps.db).deleteFrom('ingest_spikes').where('until_ms', '<=', now).execute();
      active = await activeSpikes(deps.db, now);
      const begun = await recordSpikes(deps.db, await detect(now), deps.onSpike);
      active = await activeSpikes(deps.db, now);
      return begun;
    },
  };
}
