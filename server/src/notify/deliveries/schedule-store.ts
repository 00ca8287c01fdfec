/**
 * The scheduling side of the deliveries store: what notify/outbox/schedule.ts reads and writes inside the transaction
 * of the event that causes the deliveries, so they are written with it or not at all.
 */
import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';

type Trx = Transaction<Database>;

/** The project's channels among `ids` that still exist (a rule may name a deleted one), with their kind. */
export function existingChannels(trx: Trx, projectId: string, ids: readonly string[]) {
  return trx
    .selectFrom('notification_channels')
    .select(['id', 'type'])
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
}

/** Writes scheduled deliveries; one whose dedupe key is already written (a retried transaction) is left out. */
export async function insertScheduled(trx: Trx, rows: Insertable<Database['deliveries']>[]): Promise<void> {
  await trx
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .execute();
}

/** Cancels the incident's deliveries still to be attempted (steps scheduled, retries waiting) as of `atMs`. */
export async function cancelPending(trx: Trx, incidentId: string, atMs: number): Promise<void> {
  await trx
    .updateTable('deliveries')
    .set({
      state: 'cancelled',
      next_attempt_ms: null,
      lease_owner: null,
      lease_until_ms: null,
      completed_ms: atMs,
      updated_ms: atMs,
    })
    .where('incident_id', '=', incidentId)
    .where('state', 'in', ['scheduled', 'retrying'])
    .execute();
}

/** The channels the incident's `incident.created` reached (its delivery was sent or delivered). */
export async function notifiedChannels(trx: Trx, incidentId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('deliveries')
    .select('channel_id')
    .where('incident_id', '=', incidentId)
    .where('event', '=', 'incident.created')
    .where('state', 'in', ['sent', 'delivered'])
    .execute();
  return rows.map((r) => r.channel_id);
}
