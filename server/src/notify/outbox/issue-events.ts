import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { ISSUE_SEVERITY, type IssueEventKind, type IssueNotice } from '../kinds/types';
import { channelsByRules, insertDeliveries } from './schedule';

/** An issue event, handed to the notification scheduler inside the transaction that made it (docs/notifications.md). */
export interface IssueEvent {
  projectId: string;
  /** The issue's id (its fingerprint). */
  issueId: string;
  event: IssueEventKind;
  /**
   * When the regression happened, as stored with the issue: with the issue id it is the event's identity, so a retried
   * transaction, or a second process detecting the same regression, schedules nothing more.
   */
  atMs: number;
  env: string;
  services: string[];
  /** The issue's assignee (user id), which rules may route by; null when unassigned. */
  assigneeId: string | null;
  /** The issue's type and message, as its headline. */
  title: string;
  /** What went wrong where: the root-cause summary of the payload. */
  summary: string;
  /** The issue's page. */
  url: string;
}

/**
 * The deliveries an issue event causes, written in the event's transaction: the project's rules are evaluated as for
 * `incident.created` (conditions on env, services, the issue's assignee, and severity, which is `warning` for every
 * issue event), one delivery per channel at the earliest matching rule's delay. Each carries its notice, since there
 * is no incident to build it from when it is sent; the outbox worker sends it with the channel kind's retries.
 * Nothing cancels the later steps: an issue is not acknowledged from a message.
 */
export async function scheduleIssueDeliveries(trx: Transaction<Database>, event: IssueEvent): Promise<void> {
  const notice = JSON.stringify(issueNotice(event));
  const due = await channelsByRules(
    trx,
    event.projectId,
    { severity: ISSUE_SEVERITY, env: event.env, services: event.services, assigneeId: event.assigneeId },
    event.atMs,
  );
  await insertDeliveries(trx, event.projectId, due, event.atMs, (channelId) => ({
    incident_id: null,
    event: event.event,
    trigger: 'issue',
    // Issue ids are fingerprints, which another project may share; incident ids are random, issue ids are not.
    dedupe_key: `${event.event}:${event.projectId}:${event.issueId}:${event.atMs}:${channelId}`,
    notice,
  }));
}

function issueNotice(event: IssueEvent): IssueNotice {
  return {
    payload: {
      event: event.event,
      issue_id: event.issueId,
      severity: ISSUE_SEVERITY,
      title: event.title,
      services: event.services,
      env: event.env,
      root_cause_summary: event.summary,
      dashboard_url: event.url,
    },
    status: 'regressed',
    detected_at: new Date(event.atMs).toISOString(),
    test: false,
  };
}
