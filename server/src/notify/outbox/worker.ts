import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../clock';
import type { DialectName } from '../../db/connect';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import type { GuardedHttp } from '../http/guarded-http';
import type { IntegrationStore } from '../integrations/store';
import type { KindRegistry } from '../kinds/registry';
import {
  isIssueNotice,
  type ChannelType,
  type IncidentNotice,
  type Notice,
  type SendOutcome,
  type ThreadRef,
} from '../kinds/types';

export type DeliveryRow = Selectable<Database['deliveries']>;

export interface OutboxDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  clock: Clock;
  box: SecretBox;
  http: GuardedHttp;
  kinds: KindRegistry;
  integrations: IntegrationStore;
  /**
   * The notice of an incident delivery, built at its first attempt (later attempts resend the same). Test and issue
   * deliveries are written with their notice.
   */
  noticeFor: (delivery: DeliveryRow) => Promise<IncidentNotice | undefined>;
  log: (line: string) => void;
}

export interface OutboxOptions {
  /** How often due work is looked for when nothing woke the worker. Default 1 s. */
  pollMs?: number;
  /** Attempts in flight at once. Default 32. */
  concurrency?: number;
  /** A claimed delivery another process may take over after this long (a crashed worker's). Default 60 s. */
  leaseMs?: number;
}

export interface Outbox {
  /** Work may be due now (a new incident, a test): look at once instead of at the next poll. */
  wake(): void;
  /** Runs every delivery due now, and waits for them: for tests with a manual clock. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

const storedNotice = (row: DeliveryRow): Notice | undefined =>
  row.notice === null ? undefined : (JSON.parse(row.notice) as Notice);

const TERMINAL = { delivered: 'delivered', sent: 'sent', failed: 'failed' } as const;

/**
 * The delivery worker: takes due deliveries from the outbox table (scheduled first attempts and retries), sends them
 * through their channel's kind and records each attempt. A delivery is claimed with a lease (owner and expiry) in one
 * conditional UPDATE — with `FOR UPDATE SKIP LOCKED` on PostgreSQL — so processes sharing a database never send the
 * same attempt twice; a process killed mid-attempt leaves a lease that expires and another process (or the restarted
 * one) retries, with the same delivery id (`webhook-id`), which receivers use to drop the duplicate.
 */
export function startOutbox(deps: OutboxDeps, options: OutboxOptions = {}): Outbox {
  const pollMs = options.pollMs ?? 1000;
  const concurrency = options.concurrency ?? 32;
  const leaseMs = options.leaseMs ?? 60_000;
  const owner = `w_${randomBytes(6).toString('hex')}`;
  const { db, clock } = deps;
  let inFlight = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticking: Promise<number> | undefined;
  const running = new Set<Promise<void>>();

  const claim = async (limit: number): Promise<DeliveryRow[]> => {
    const now = clock.now();
    const due = db
      .selectFrom('deliveries')
      .select('id')
      .where('next_attempt_ms', '<=', now)
      .where('state', 'in', ['scheduled', 'retrying'])
      .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', now)]))
      .orderBy('next_attempt_ms')
      .limit(limit);
    // Materialized first: PostgreSQL may otherwise run the LIMIT subquery once per row it updates (the inner side of a
    // nested loop), each run locking further rows, and claim far more than `limit` (test/integration/notify-durability).
    return (
      db
        .with(
          (cte) => cte('due').materialized(),
          () => (deps.dialect === 'postgres' ? due.forUpdate().skipLocked() : due),
        )
        .updateTable('deliveries')
        .set({ lease_owner: owner, lease_until_ms: now + leaseMs })
        .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
        // Checked again on the row being updated: a row another process claimed meanwhile is left alone.
        .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', now)]))
        .where('state', 'in', ['scheduled', 'retrying'])
        .returningAll()
        .execute()
    );
  };

  // A test or issue delivery has no incident to keep a thread with: its memory lives in this process, for its retries.
  const testThreads = new Map<string, string>();
  const threadOf = (delivery: DeliveryRow): ThreadRef => {
    const { channel_id: channelId, incident_id: incidentId } = delivery;
    if (incidentId === null) {
      return {
        get: async () => testThreads.get(delivery.id),
        set: async (value) => void testThreads.set(delivery.id, value),
      };
    }
    return {
      get: async () =>
        (
          await db
            .selectFrom('notification_threads')
            .select('ref')
            .where('channel_id', '=', channelId)
            .where('incident_id', '=', incidentId)
            .executeTakeFirst()
        )?.ref,
      set: async (ref) => {
        await db
          .insertInto('notification_threads')
          .values({ channel_id: channelId, incident_id: incidentId, ref })
          .onConflict((oc) => oc.columns(['channel_id', 'incident_id']).doUpdateSet({ ref }))
          .execute();
      },
    };
  };

  // When each channel may next be sent to (RetryPolicy.minIntervalMs), in this process. A paced attempt waits while
  // holding its lease: at most `concurrency` × the interval (32 s for chat), well inside the 60 s lease.
  const nextSlot = new Map<string, number>();
  const pace = async (channelId: string, minIntervalMs: number | undefined): Promise<void> => {
    if (!minIntervalMs) return;
    const now = Date.now();
    const slot = Math.max(now, nextSlot.get(channelId) ?? 0);
    nextSlot.set(channelId, slot + minIntervalMs);
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
  };

  const attempt = async (delivery: DeliveryRow): Promise<void> => {
    const number = delivery.attempt + 1;
    let started = clock.now();
    let outcome: SendOutcome;
    let latencyMs = 0;
    const channel = await db
      .selectFrom('notification_channels')
      .selectAll()
      .where('id', '=', delivery.channel_id)
      .executeTakeFirst();
    const kind = deps.kinds[delivery.channel_type as ChannelType];
    let notice: Notice | undefined = storedNotice(delivery);
    if (notice === undefined) {
      notice = await deps.noticeFor(delivery);
      if (notice !== undefined)
        await db
          .updateTable('deliveries')
          .set({ notice: JSON.stringify(notice) })
          .where('id', '=', delivery.id)
          .execute();
    }
    if (!channel || !kind) {
      outcome = {
        state: 'failed',
        errorClass: 'channel_unavailable',
        message: channel ? `no ${delivery.channel_type} kind in this server` : 'the channel was deleted',
      };
    } else if (notice === undefined) {
      outcome = { state: 'failed', errorClass: 'incident_missing', message: 'the incident no longer exists' };
    } else {
      await pace(channel.id, kind.retry.minIntervalMs);
      started = clock.now();
      const clockStart = performance.now();
      try {
        outcome = await kind.send({
          config: JSON.parse(channel.config) as unknown,
          secrets: deps.box.open(channel.secrets),
          notice,
          deliveryId: delivery.id,
          attempt: number,
          http: deps.http,
          clock,
          thread: threadOf(delivery),
          integrations: deps.integrations.of(channel.project_id),
        });
      } catch (error) {
        // A kind must not throw; if one does, the attempt is recorded as retryable rather than lost.
        outcome = {
          state: 'retry',
          errorClass: 'internal',
          message: error instanceof Error ? error.message : String(error),
        };
        deps.log(`notification kind ${delivery.channel_type} threw on delivery ${delivery.id}: ${outcome.message}`);
      }
      latencyMs = performance.now() - clockStart;
    }
    await record(delivery, number, started, latencyMs, outcome, kind?.retry.delaysMs ?? []);
  };

  const record = async (
    delivery: DeliveryRow,
    number: number,
    started: number,
    latencyMs: number,
    outcome: SendOutcome,
    delaysMs: readonly number[],
  ) => {
    const now = clock.now();
    const failure = outcome.state === 'retry' || outcome.state === 'failed' ? outcome : undefined;
    const retryIn =
      outcome.state === 'retry' && number <= delaysMs.length
        ? Math.max(delaysMs[number - 1]!, outcome.retryAfterMs ?? 0)
        : undefined;
    const state = outcome.state === 'retry' ? (retryIn === undefined ? 'failed' : 'retrying') : TERMINAL[outcome.state];
    await db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('deliveries')
        .set({
          state,
          attempt: number,
          next_attempt_ms: retryIn === undefined ? null : now + retryIn,
          lease_owner: null,
          lease_until_ms: null,
          last_status: outcome.status ?? null,
          last_response: outcome.body ?? null,
          error_class: failure?.errorClass ?? null,
          error_message: failure?.message ?? null,
          latency_ms: latencyMs,
          provider_ref:
            outcome.state === 'delivered' || outcome.state === 'sent' ? (outcome.providerRef ?? null) : null,
          updated_ms: now,
          completed_ms: retryIn === undefined ? now : null,
        })
        .where('id', '=', delivery.id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      // Cancelled (acknowledged meanwhile) or taken over after the lease ran out: the attempt is still logged.
      await trx
        .insertInto('delivery_attempts')
        .values({
          delivery_id: delivery.id,
          attempt: number,
          started_ms: started,
          latency_ms: latencyMs,
          outcome: outcome.state,
          status: outcome.status ?? null,
          response: outcome.body ?? null,
          error_class: failure?.errorClass ?? null,
          error_message: failure?.message ?? null,
        })
        .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
        .execute();
      if (retryIn === undefined) testThreads.delete(delivery.id);
      if (Number(updated.numUpdatedRows) === 0)
        deps.log(`delivery ${delivery.id}: attempt ${number} finished after the delivery was cancelled or taken over`);
    });
  };

  const run = (delivery: DeliveryRow) => {
    inFlight++;
    const task = attempt(delivery)
      .catch((error: unknown) =>
        deps.log(`delivery ${delivery.id} failed to record: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        inFlight--;
        running.delete(task);
        if (!stopped) wake();
      });
    running.add(task);
  };

  const tick = async (): Promise<number> => {
    let started = 0;
    while (!stopped && inFlight < concurrency) {
      const claimed = await claim(concurrency - inFlight);
      if (claimed.length === 0) break;
      for (const delivery of claimed) run(delivery);
      started += claimed.length;
    }
    return started;
  };

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(wake, ms);
  };

  /** A wake that came while a tick ran: that tick's claim may have run before the work was committed. */
  let wokenDuringTick = false;
  function wake(): void {
    if (stopped) return;
    if (ticking) {
      wokenDuringTick = true;
      return;
    }
    ticking = tick()
      .catch((error: unknown) => {
        deps.log(`notification worker: ${error instanceof Error ? error.message : String(error)}`);
        return 0;
      })
      .finally(() => {
        ticking = undefined;
        schedule(wokenDuringTick ? 0 : pollMs);
        wokenDuringTick = false;
      });
  }

  schedule(0);
  return {
    wake,
    async drain() {
      let total = 0;
      for (;;) {
        await ticking;
        const started = await tick();
        await Promise.all(running);
        total += started;
        // A background tick (a finished attempt wakes one) may have claimed the rest while ours found nothing, its
        // attempts not yet in `running` when we waited: done only when no tick runs and nothing is under way.
        if (started === 0 && ticking === undefined && running.size === 0) return total;
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await Promise.all(running);
    },
  };
}

export const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The issue an issue delivery is about, from its notice (written with the delivery); null for incident deliveries. */
function issueIdOf(row: DeliveryRow): string | null {
  if (row.trigger !== 'issue') return null;
  const notice = storedNotice(row);
  return notice !== undefined && isIssueNotice(notice) ? notice.payload.issue_id : null;
}

/** A delivery as the API returns it (SPEC 2.7). */
export function deliveryJson(row: DeliveryRow) {
  return {
    id: row.id,
    channel_id: row.channel_id,
    channel_type: row.channel_type,
    incident_id: row.incident_id,
    issue_id: issueIdOf(row),
    event: row.event,
    trigger: row.trigger,
    rule_id: row.rule_id,
    state: row.state,
    attempt: row.attempt,
    next_attempt_at: isoOrNull(row.next_attempt_ms),
    latency_ms: row.latency_ms === null ? null : Math.round(row.latency_ms),
    response:
      row.last_status === null && row.last_response === null
        ? null
        : { status: row.last_status, body: row.last_response },
    error_class: row.error_class,
    error_message: row.error_message,
    provider_ref: row.provider_ref,
    created_at: new Date(row.created_ms).toISOString(),
    updated_at: new Date(row.updated_ms).toISOString(),
    completed_at: isoOrNull(row.completed_ms),
  };
}
