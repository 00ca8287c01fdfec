import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { ISSUE_SEVERITY, type ProjectEventKind, type ProjectNotice } from '../kinds/types';
import { channelsByRules, insertDeliveries } from './schedule';

/** A project event, handed to the notification scheduler inside the transaction that recorded it. */
export interface ProjectEvent {
  projectId: string;
  event: ProjectEventKind;
  /** With the project and `part`, the event's identity: a second process recording it schedules nothing more. */
  atMs: number;
  /** What the event is about within the project (a spike's signal). */
  part: string;
  title: string;
  summary: string;
  /** The page that shows it (the usage page). */
  url: string;
}

/**
 * The deliveries a project event causes, written in the event's transaction: the project's rules are evaluated as
 * for an issue event (severity `warning`, no env, services or assignee, so rules with such conditions pass it by),
 * one delivery per channel at the earliest matching rule's delay.
 */
export async function scheduleProjectDeliveries(trx: Transaction<Database>, event: ProjectEvent): Promise<void> {
  const notice: ProjectNotice = {
    payload: {
      event: event.event,
      project_id: event.projectId,
      severity: ISSUE_SEVERITY,
      title: event.title,
      services: [],
      env: '',
      root_cause_summary: event.summary,
      dashboard_url: event.url,
    },
    status: 'throttled',
    detected_at: new Date(event.atMs).toISOString(),
    test: false,
  };
  const subject = { severity: ISSUE_SEVERITY, env: '', services: [], assigneeId: null };
  const due = await channelsByRules(trx, event.projectId, subject, event.atMs);
  await insertDeliveries(trx, event.projectId, due, event.atMs, (channelId) => ({
    incident_id: null,
    event: event.event,
    trigger: 'project',
    dedupe_key: `${event.event}:${event.projectId}:${event.part}:${event.atMs}:${channelId}`,
    notice: JSON.stringify(notice),
  }));
}
