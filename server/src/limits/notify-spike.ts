import type { Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { scheduleProjectDeliveries } from '../notify/outbox/project-events';
import { UNIT_TEXT } from './signals';
import type { Spike } from './spikes';

const perMinute = (n: number) => Math.round(n).toLocaleString('en-US');

/** Schedules the `ingest.spike` notification of a spike through the project's rules, in the spike's transaction. */
export function notifySpike(trx: Transaction<Database>, spike: Spike, publicUrl: string): Promise<void> {
  const units = UNIT_TEXT[spike.signal];
  const times = spike.baselinePerMinute > 0 ? spike.observedPerMinute / spike.baselinePerMinute : Infinity;
  return scheduleProjectDeliveries(trx, {
    projectId: spike.projectId,
    event: 'ingest.spike',
    atMs: spike.startedMs,
    part: spike.signal,
    title: `${units} spiked to ${perMinute(spike.observedPerMinute)} a minute, ${Number.isFinite(times) ? `${Math.round(times)}x` : 'far over'} the usual`,
    summary:
      `The project sent ${perMinute(spike.observedPerMinute)} ${units} a minute against ${perMinute(spike.baselinePerMinute)} ` +
      `a minute over the day before. Ingest of ${units} is throttled until ${new Date(spike.untilMs).toISOString()}; ` +
      `what is over the throttle gets 429 with Retry-After, and SDKs send it later.`,
    url: `${publicUrl}/usage`,
  });
}
