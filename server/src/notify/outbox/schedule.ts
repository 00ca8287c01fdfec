import { randomBytes } from 'node:crypto';
import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { IncidentEvent } from '../../incidents/store';
import { ruleMatches, type RuleConditions } from '../rules/match';

export const newDeliveryId = () => `dlv_${randomBytes(10).toString('hex')}`;

type DeliveryInsert = Insertable<Database['deliveries']>;

/** A delivery waiting for its first attempt at `dueMs`; nothing about attempts filled in yet. */
export function scheduledDelivery(
  fields: Pick<DeliveryInsert, 'id' | 'project_id' | 'channel_id' | 'channel_type' | 'incident_id' | 'event' | 'trigger' | 'rule_id' | 'dedupe_key' | 'notice'>,
  dueMs: number,
  nowMs: number,
): DeliveryInsert {
  return {
    ...fields,
    state: 'scheduled',
    attempt: 0,
    next_attempt_ms: dueMs,
    lease_owner: null,
    lease_until_ms: null,
    last_status: null,
    last_response: null,
    error_class: null,
    error_message: null,
    latency_ms: null,
    provider_ref: null,
    created_ms: nowMs,
    updated_ms: nowMs,
    completed_ms: null,
  };
}

/**
 * The deliveries an incident event causes (docs/notifications.md, "Rules"), written in the event's transaction:
 *
 * - `incident.created`: every rule is evaluated in order and every matching rule fires (SPEC 4, rules 1 and 2), each
 *   for its channels `delay_seconds` after the incident; a channel several rules reach gets one delivery, at the
 *   earliest of their times. Later steps of an escalation chain are rows waiting in state `scheduled`.
 * - `incident.escalated`, `incident.acknowledged`, `incident.resolved`: at once, to every channel that was already
 *   notified of the incident (its `incident.created` delivery was sent or delivered), so whoever heard of it hears how
 *   it goes; acknowledging or resolving cancels the steps still scheduled, and the retries of earlier events.
 */
export async function scheduleDeliveries(trx: Transaction<Database>, event: IncidentEvent): Promise<void> {
  const due = new Map<string, { atMs: number; ruleId: string | null }>();
  if (event.event === 'incident.created') {
    const rules = await trx.selectFrom('notification_rules').selectAll().where('project_id', '=', event.projectId).orderBy('position').orderBy('created_ms').orderBy('id').execute();
    for (const rule of rules) {
      if (!ruleMatches(JSON.parse(rule.conditions) as RuleConditions, event)) continue;
      const atMs = event.atMs + rule.delay_seconds * 1000;
      for (const channelId of JSON.parse(rule.channels) as string[]) {
        const earlier = due.get(channelId);
        if (earlier === undefined || atMs < earlier.atMs) due.set(channelId, { atMs, ruleId: rule.id });
      }
    }
  } else {
    if (event.event !== 'incident.escalated') {
      await trx
        .updateTable('deliveries')
        .set({ state: 'cancelled', next_attempt_ms: null, lease_owner: null, lease_until_ms: null, completed_ms: event.atMs, updated_ms: event.atMs })
        .where('incident_id', '=', event.incidentId)
        .where('state', 'in', ['scheduled', 'retrying'])
        .execute();
    }
    const notified = await trx
      .selectFrom('deliveries')
      .select('channel_id')
      .where('incident_id', '=', event.incidentId)
      .where('event', '=', 'incident.created')
      .where('state', 'in', ['sent', 'delivered'])
      .execute();
    for (const { channel_id } of notified) due.set(channel_id, { atMs: event.atMs, ruleId: null });
  }
  if (due.size === 0) return;
  // Only channels of the project that still exist: a rule may name a deleted channel.
  const channels = await trx
    .selectFrom('notification_channels')
    .select(['id', 'type'])
    .where('project_id', '=', event.projectId)
    .where('id', 'in', [...due.keys()])
    .execute();
  if (channels.length === 0) return;
  await trx
    .insertInto('deliveries')
    .values(
      channels.map((channel) => {
        const { atMs, ruleId } = due.get(channel.id)!;
        return scheduledDelivery(
          {
            id: newDeliveryId(),
            project_id: event.projectId,
            channel_id: channel.id,
            channel_type: channel.type,
            incident_id: event.incidentId,
            event: event.event,
            trigger: 'incident',
            rule_id: ruleId,
            dedupe_key: `${event.incidentId}:${event.event}:${channel.id}`,
            notice: null,
          },
          atMs,
          event.atMs,
        );
      }),
    )
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .execute();
}
