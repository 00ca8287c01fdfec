import { randomBytes } from 'node:crypto';
import type { DialectName } from '../../db/connect';
import { claimDue, type DeliveryRow } from '../deliveries/store';
import { attemptDelivery, type SendDeps } from './attempt';
import { startWorkLoop, type WorkLoop } from './loop';
import { createPacer, type Pace } from './pacer';
import { createThreads } from './threads';

export interface OutboxDeps extends SendDeps {
  dialect: DialectName;
}

export interface OutboxOptions {
  /** How often due work is looked for when nothing woke the worker. Default 1 s. */
  pollMs?: number;
  /** Attempts in flight at once. Default 32. */
  concurrency?: number;
  /** A claimed delivery another process may take over after this long (a crashed worker's). Default 60 s. */
  leaseMs?: number;
  /** Each channel's turn (its kind's minIntervalMs). Default: a pacer on the system clock and timers. */
  pace?: Pace;
}

/** `wake` when work may be due now (a new incident, a test); `drain` runs every delivery due now, for tests. */
export type Outbox = WorkLoop;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The delivery worker: takes due deliveries from the outbox table (scheduled first attempts and retries), sends them
 * through their channel's kind and records each attempt (attempt.ts). A delivery is claimed with a lease (owner and
 * expiry; deliveries/store.ts `claimDue`), so processes sharing a database never send the same attempt twice; a
 * process killed mid-attempt leaves a lease that expires and another process (or the restarted one) retries, with the
 * same delivery id (`webhook-id`), which receivers use to drop the duplicate.
 */
export function startOutbox(deps: OutboxDeps, options: OutboxOptions = {}): Outbox {
  const leaseMs = options.leaseMs ?? 60_000;
  const owner = `w_${randomBytes(6).toString('hex')}`;
  const context = { ...deps, owner, pace: options.pace ?? createPacer(), threads: createThreads(deps.db) };
  return startWorkLoop<DeliveryRow>({
    pollMs: options.pollMs ?? 1000,
    concurrency: options.concurrency ?? 32,
    claim: (limit) => claimDue(deps.db, deps.dialect, { owner, nowMs: deps.clock.now(), leaseMs }, limit),
    work: (delivery) =>
      attemptDelivery(context, delivery).catch((error: unknown) =>
        deps.log(`delivery ${delivery.id} failed to record: ${messageOf(error)}`),
      ),
    onClaimError: (error) => deps.log(`notification worker: ${messageOf(error)}`),
  });
}
