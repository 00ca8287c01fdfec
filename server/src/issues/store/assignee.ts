import type { Kysely } from 'kysely';
import { assignmentColumns, type AssignmentChange } from '../../assignment/tables';
import type { Database } from '../../db/schema';
import { requireIssueRow, type IssueRow } from './issues';

/**
 * Sets an issue's assignee in one UPDATE of the assignment columns only, so it never undoes the detector's counting or
 * a status change made meanwhile; the issue as it is then.
 */
export async function setIssueAssignee(
  db: Kysely<Database>,
  issue: IssueRow,
  change: AssignmentChange,
): Promise<IssueRow> {
  await db
    .updateTable('detection_groups')
    .set(assignmentColumns(change))
    .where('project_id', '=', issue.project_id)
    .where('fingerprint', '=', issue.fingerprint)
    .execute();
  return requireIssueRow(db, issue.project_id, issue.fingerprint);
}
