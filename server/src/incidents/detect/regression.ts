import { scheduleIssueDeliveries } from '../../notify/outbox/issue-events';
import { issuePageUrl } from '../links';
import type { ErrorOccurrence } from './error-records';
import type { DetectionTrx, GroupRow, RecordContext } from './groups';
import { headline, incidentTitle, quoteSourceLine } from './root-cause';
import type { FrameSource } from './tables';

/** Who the status history names for a regression. */
const DETECTOR_ACTOR = 'detector';

/**
 * The errors that reopen a resolved issue: those the server received after it was resolved (one ingested before but
 * counted after is not news), and with "in next release" only those from another release than the one current when
 * it was resolved (errors of that release were expected until the fix ships).
 */
function reopening(group: GroupRow, occurrences: ErrorOccurrence[]): ErrorOccurrence[] {
  const resolvedMs = group.status_changed_ms ?? -Infinity;
  return occurrences.filter(
    (o) => o.receivedMs > resolvedMs && !(group.in_next_release && o.release === group.resolved_release),
  );
}

/** `TypeError: … at lineTotal (src/cart/total.ts:2:28). The line: `…`. Resolved at …; it occurred again 2 times (release 5.1).` */
function regressionSummary(group: GroupRow, errors: ErrorOccurrence[]): string {
  const where = group.top_frame ? ` at ${group.top_frame}` : '';
  const quote = quoteSourceLine(group.top_source === null ? undefined : (JSON.parse(group.top_source) as FrameSource));
  const resolved =
    group.status_changed_ms === null ? 'Resolved' : `Resolved at ${new Date(group.status_changed_ms).toISOString()}`;
  const expected = group.in_next_release
    ? ` for the release after ${group.resolved_release ?? 'the one then current'}`
    : '';
  const releases = [...new Set(errors.map((o) => o.release ?? 'none'))].join(', ');
  const again = `${resolved}${expected}; it occurred again ${errors.length} ${errors.length === 1 ? 'time' : 'times'} (release ${releases}).`;
  return [`${headline({ errorType: group.error_type, sampleMessage: group.sample_message })}${where}.`, quote, again]
    .filter(Boolean)
    .join(' ');
}

/**
 * Moves a resolved issue that occurs again to `regressed` and schedules its `issue.regressed` notifications, in the
 * counting transaction: each error is counted once across every detector process, and the move is conditional on the
 * stored status, so a regression notifies once. Ignored issues stay ignored; unresolved and regressed ones stay as they
 * are.
 */
export async function regressIfResolved(
  trx: DetectionTrx,
  group: GroupRow,
  occurrences: ErrorOccurrence[],
  context: RecordContext,
): Promise<void> {
  if (group.status !== 'resolved') return;
  const errors = reopening(group, occurrences);
  if (errors.length === 0) return;
  const moved = await trx
    .updateTable('detection_groups')
    .set({ status: 'regressed', status_changed_ms: context.now, status_by: DETECTOR_ACTOR })
    .where('project_id', '=', group.project_id)
    .where('fingerprint', '=', group.fingerprint)
    .where('status', '=', 'resolved')
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) === 0) return;
  const app = await trx.selectFrom('apps').select('name').where('id', '=', group.app_id).executeTakeFirst();
  await scheduleIssueDeliveries(trx, {
    projectId: group.project_id,
    issueId: group.fingerprint,
    event: 'issue.regressed',
    atMs: context.now,
    env: group.env,
    services: [app?.name ?? group.app_id],
    assigneeId: group.assignee_id,
    title: incidentTitle({ errorType: group.error_type, sampleMessage: group.sample_message, topFile: group.top_file }),
    summary: regressionSummary(group, errors),
    // The keyless page, signed now: whoever gets the notice has no control key (docs/issues.md, "The issue page").
    url: issuePageUrl(context.box, context.publicUrl, context.now, group.project_id, group.fingerprint),
  });
}
