import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../../db/connect';
import type { Database } from '../../db/schema';
import { afterPosition, type KeysetSort, type Position } from '../../shared/keyset';
import type { Notice, SendOutcome } from '../kinds/types';
import type { DeliveryState } from '../outbox/backoff';

/** The deliveries (the outbox): what the worker claims and records, the log the API lists. */
export type DeliveryRow = Selectable<Database['deliveries']>;

/** A claim of due deliveries: by `owner`, as of `nowMs`, for `leaseMs`. */
export interface Lease {
  owner: string;
  nowMs: number;
  leaseMs: number;
}

/**
 * Claims up to `limit` due deliveries (scheduled first attempts and retries whose lease is free or ran out) for the
 * lease's owner, in one conditional UPDATE — with `FOR UPDATE SKIP LOCKED` on PostgreSQL — so processes sharing a
 * database never claim the same attempt twice.
 */
export function claimDue(
  db: Kysely<Database>,
  dialect: DialectName,
  lease: Lease,
  limit: number,
): Promise<DeliveryRow[]> {
  const now = lease.nowMs;
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
        () => (dialect === 'postgres' ? due.forUpdate().skipLocked() : due),
      )
      .updateTable('deliveries')
      .set({ lease_owner: lease.owner, lease_until_ms: now + lease.leaseMs })
      .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
      // Checked again on the row being updated: a row another process claimed meanwhile is left alone.
      .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', now)]))
      .where('state', 'in', ['scheduled', 'retrying'])
      .returningAll()
      .execute()
  );
}

/** Keeps the notice an incident delivery was first sent with: later attempts resend the same. */
export async function saveNotice(db: Kysely<Database>, deliveryId: string, notice: Notice): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ notice: JSON.stringify(notice) })
    .where('id', '=', deliveryId)
    .execute();
}

/** One finished attempt and what it leaves the delivery in (outbox/backoff.ts). */
export interface FinishedAttempt {
  attempt: number;
  startedMs: number;
  latencyMs: number;
  outcome: SendOutcome;
  state: DeliveryState;
  retryInMs: number | undefined;
  nowMs: number;
}

/**
 * Records an attempt: the delivery's new state, if the lease is still `owner`'s, and the attempt in the log in any case
 * (once per number). False when the delivery was cancelled (acknowledged meanwhile) or taken over after the lease ran
 * out.
 */
export function recordAttempt(
  db: Kysely<Database>,
  owner: string,
  deliveryId: string,
  finished: FinishedAttempt,
): Promise<boolean> {
  const { outcome, retryInMs, nowMs: now } = finished;
  const failure = outcome.state === 'retry' || outcome.state === 'failed' ? outcome : undefined;
  const answer = {
    status: outcome.status ?? null,
    error_class: failure?.errorClass ?? null,
    error_message: failure?.message ?? null,
  };
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('deliveries')
      .set({
        state: finished.state,
        attempt: finished.attempt,
        next_attempt_ms: retryInMs === undefined ? null : now + retryInMs,
        lease_owner: null,
        lease_until_ms: null,
        last_status: answer.status,
        last_response: outcome.body ?? null,
        error_class: answer.error_class,
        error_message: answer.error_message,
        latency_ms: finished.latencyMs,
        provider_ref: outcome.state === 'delivered' || outcome.state === 'sent' ? (outcome.providerRef ?? null) : null,
        updated_ms: now,
        completed_ms: retryInMs === undefined ? now : null,
      })
      .where('id', '=', deliveryId)
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    await trx
      .insertInto('delivery_attempts')
      .values({
        delivery_id: deliveryId,
        attempt: finished.attempt,
        started_ms: finished.startedMs,
        latency_ms: finished.latencyMs,
        outcome: outcome.state,
        response: outcome.body ?? null,
        ...answer,
      })
      .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
      .execute();
    return Number(updated.numUpdatedRows) > 0;
  });
}

/** The thread (chat `ts`, …) an incident's messages on a channel continue, if one was started. */
export async function incidentThread(
  db: Kysely<Database>,
  channelId: string,
  incidentId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('notification_threads')
    .select('ref')
    .where('channel_id', '=', channelId)
    .where('incident_id', '=', incidentId)
    .executeTakeFirst();
  return row?.ref;
}

export async function saveIncidentThread(
  db: Kysely<Database>,
  channelId: string,
  incidentId: string,
  ref: string,
): Promise<void> {
  await db
    .insertInto('notification_threads')
    .values({ channel_id: channelId, incident_id: incidentId, ref })
    .onConflict((oc) => oc.columns(['channel_id', 'incident_id']).doUpdateSet({ ref }))
    .execute();
}

/** What the delivery log is filtered and sorted by. */
export interface DeliveryFilter {
  channelId?: string;
  incidentId?: string;
  state?: string;
  ks: KeysetSort & { sort: 'created' | 'latency' };
  after?: Position;
  /** Rows read: the page's size and one more, to tell whether there is a next page. */
  limit: number;
}

/**
 * What each order sorts by (ties by id). A delivery not attempted yet has no latency: it counts as -1, below every
 * latency, so that both databases put it in the same place (last when descending).
 */
export const LATENCY_SQL = 'coalesce(latency_ms, -1)';
const SORT_VALUE = { created: sql<number>`created_ms`, latency: sql<number>`${sql.raw(LATENCY_SQL)}` } as const;

/** The sort value of a delivery as the log's cursors carry it. */
export const deliveryPosition = (sort: DeliveryFilter['ks']['sort'], row: DeliveryRow): Position => ({
  t: sort === 'latency' ? (row.latency_ms ?? -1) : row.created_ms,
  k: row.id,
});

/** A page of the project's delivery log. */
export function listDeliveries(
  db: Kysely<Database>,
  projectId: string,
  filter: DeliveryFilter,
): Promise<DeliveryRow[]> {
  const { ks } = filter;
  let query = db.selectFrom('deliveries').selectAll().where('project_id', '=', projectId);
  if (filter.channelId) query = query.where('channel_id', '=', filter.channelId);
  if (filter.incidentId) query = query.where('incident_id', '=', filter.incidentId);
  if (filter.state) query = query.where('state', '=', filter.state);
  if (filter.after) query = query.where(afterPosition(ks, SORT_VALUE[ks.sort], sql.ref('id'), filter.after));
  return query.orderBy(SORT_VALUE[ks.sort], ks.order).orderBy('id', ks.order).limit(filter.limit).execute();
}

export async function insertDelivery(
  db: Kysely<Database>,
  delivery: Insertable<Database['deliveries']>,
): Promise<void> {
  await db.insertInto('deliveries').values(delivery).execute();
}

export function deliveryById(db: Kysely<Database>, id: string): Promise<DeliveryRow> {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
