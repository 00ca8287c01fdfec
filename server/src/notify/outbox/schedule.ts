import { randomBytes } from 'node:crypto';
import type { Insertable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { IncidentEvent } from '../../incidents/rows';
import { cancelPending, existingChannels, insertScheduled, notifiedChannels } from '../deliveries/schedule-store';
import { ruleMatches, type RuleConditions, type RuleSubject } from '../rules/match';
import { rulesInOrder } from '../rules/store';

export const newDeliveryId = () => `dlv_${randomBytes(10).toString('hex')}`;

type DeliveryInsert = Insertable<Database['deliveries']>;

/** A delivery waiting for its first attempt at `dueMs`; nothing about attempts filled in yet. */
export function scheduledDelivery(
  fields: Pick<
    DeliveryInsert,
    | 'id'
    | 'project_id'
    | 'channel_id'
    | 'channel_type'
    | 'incident_id'
    | 'event'
    | 'trigger'
    | 'rule_id'
    | 'dedupe_key'
    | 'notice'
  >,
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

/** When each channel is due and the rule that sent it there (null for an update that follows earlier deliveries). */
export type DueChannels = Map<string, { atMs: number; ruleId: string | null }>;

/**
 * The channels the project's rules send a new event to: every rule is evaluated in order and every matching rule fires
 * (SPEC 4, rules 1 and 2), each for its channels `delay_seconds` after the event; a channel several rules reach is due
 * once, at the earliest of their times.
 */
export async function channelsByRules(
  trx: Transaction<Database>,
  projectId: string,
  subject: RuleSubject,
  atMs: number,
): Promise<DueChannels> {
  const due: DueChannels = new Map();
  for (const rule of await rulesInOrder(trx, projectId)) {
    if (!ruleMatches(JSON.parse(rule.conditions) as RuleConditions, subject)) continue;
    const dueMs = atMs + rule.delay_seconds * 1000;
    for (const channelId of JSON.parse(rule.channels) as string[]) {
      const earlier = due.get(channelId);
      if (earlier === undefined || dueMs < earlier.atMs) due.set(channelId, { atMs: dueMs, ruleId: rule.id });
    }
  }
  return due;
}

/** What a delivery says beyond where it goes: the event, why, its dedupe key on that channel and its notice. */
type DeliveryContent = Pick<DeliveryInsert, 'incident_id' | 'event' | 'trigger' | 'dedupe_key' | 'notice'>;

/**
 * One scheduled delivery per due channel that still exists in the project (a rule may name a deleted channel); a
 * delivery whose dedupe key is already written (a retried transaction, the same event twice) is not written again.
 */
export async function insertDeliveries(
  trx: Transaction<Database>,
  projectId: string,
  due: DueChannels,
  nowMs: number,
  content: (channelId: string) => DeliveryContent,
): Promise<void> {
  if (due.size === 0) return;
  const channels = await existingChannels(trx, projectId, [...due.keys()]);
  if (channels.length === 0) return;
  const rows = channels.map((channel) => {
    const { atMs, ruleId } = due.get(channel.id)!;
    const destination = {
      id: newDeliveryId(),
      project_id: projectId,
      channel_id: channel.id,
      channel_type: channel.type,
      rule_id: ruleId,
    };
    return scheduledDelivery({ ...destination, ...content(channel.id) }, atMs, nowMs);
  });
  await insertScheduled(trx, rows);
}

/**
 * The deliveries an incident event causes (docs/notifications.md, "Rules"), written in the event's transaction:
 *
 * - `incident.created`: to the channels of the matching rules ({@link channelsByRules}). Later steps of an escalation
 *   chain are rows waiting in state `scheduled`.
 * - `incident.escalated`, `incident.acknowledged`, `incident.resolved`: at once, to every channel that was already
 *   notified of the incident (its `incident.created` delivery was sent or delivered), so whoever heard of it hears how
 *   it goes; acknowledging or resolving cancels the steps still scheduled, and the retries of earlier events.
 */
export async function scheduleDeliveries(trx: Transaction<Database>, event: IncidentEvent): Promise<void> {
  const due =
    event.event === 'incident.created'
      ? await channelsByRules(trx, event.projectId, event, event.atMs)
      : await channelsToUpdate(trx, event);
  await insertDeliveries(trx, event.projectId, due, event.atMs, (channelId) => ({
    incident_id: event.incidentId,
    event: event.event,
    trigger: 'incident',
    dedupe_key: `${event.incidentId}:${event.event}:${channelId}`,
    notice: null,
  }));
}

/** The channels a later incident event goes to at once; acknowledging or resolving first cancels what is pending. */
async function channelsToUpdate(trx: Transaction<Database>, event: IncidentEvent): Promise<DueChannels> {
  if (event.event !== 'incident.escalated') await cancelPending(trx, event.incidentId, event.atMs);
  const notified = await notifiedChannels(trx, event.incidentId);
  return new Map(notified.map((channelId) => [channelId, { atMs: event.atMs, ruleId: null }]));
}
