import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import type { GroupRow } from '../../incidents/detect/groups';
import { errorEvidence, type IncidentView } from '../../incidents/types';
import { notFound } from '../../shared/domain-errors';

/** An issue as stored (a detection group) with its app's name and its assignee's account (null when unassigned). */
export type IssueRow = GroupRow & { app: string; assignee_email: string | null; assignee_name: string | null };

/** A project's issues (`g`) as {@link IssueRow}s: every read of whole issues starts here. */
export const issuesOf = (db: Kysely<Database>, projectId: string) =>
  db
    .selectFrom('detection_groups as g')
    .innerJoin('apps', 'apps.id', 'g.app_id')
    .leftJoin('users as assignee', 'assignee.id', 'g.assignee_id')
    .selectAll('g')
    .select(['apps.name as app', 'assignee.email as assignee_email', 'assignee.name as assignee_name'])
    .where('g.project_id', '=', projectId);

/**
 * One issue of a project with its app's name; undefined when the project has no issue with that id. An id merged into
 * another issue (issues/merge.ts) answers as that one: links and pages made before the merge keep working.
 */
export async function findIssueRow(db: Kysely<Database>, projectId: string, id: string): Promise<IssueRow | undefined> {
  const row = await issuesOf(db, projectId).where('g.fingerprint', '=', id).executeTakeFirst();
  if (row) return row;
  const merge = await db
    .selectFrom('issue_merges')
    .select('into_fingerprint')
    .where('project_id', '=', projectId)
    .where('from_fingerprint', '=', id)
    .executeTakeFirst();
  return merge && issuesOf(db, projectId).where('g.fingerprint', '=', merge.into_fingerprint).executeTakeFirst();
}

/** The issue, or the not_found refusal of an id that is no issue of the project. */
export async function requireIssueRow(db: Kysely<Database>, projectId: string, id: string): Promise<IssueRow> {
  const row = await findIssueRow(db, projectId, id);
  if (!row) throw notFound(`no issue ${id} in this project`);
  return row;
}

/** What a search result shows of the issue with exactly this id (a merged id is not followed); undefined if none. */
export function issueHeadline(db: Kysely<Database>, projectId: string, id: string) {
  return db
    .selectFrom('detection_groups')
    .select(['fingerprint', 'error_type', 'sample_message', 'last_seen_ms'])
    .where('project_id', '=', projectId)
    .where('fingerprint', '=', id)
    .executeTakeFirst();
}

/** The issues of a project among these ids (those it has), in no particular order. */
export function findIssueRows(db: Kysely<Database>, projectId: string, ids: readonly string[]): Promise<IssueRow[]> {
  return issuesOf(db, projectId).where('g.fingerprint', 'in', ids).execute();
}

/** The issue a detected incident grew from (incidents are keyed by their issue's fingerprint), while it exists. */
export async function issueOfIncident(
  db: Kysely<Database>,
  projectId: string,
  incident: IncidentView,
): Promise<IssueRow | undefined> {
  const fingerprint = errorEvidence(incident.evidence)?.fingerprint;
  return fingerprint === undefined ? undefined : findIssueRow(db, projectId, fingerprint);
}

const newestIncidentOf = (db: Kysely<Database>, issue: IssueRow) =>
  db
    .selectFrom('incidents')
    .where('project_id', '=', issue.project_id)
    .where('fingerprint', '=', issue.fingerprint)
    .orderBy('detected_ms', 'desc')
    .limit(1);

/** The evidence (JSON) of the issue's newest incident; undefined when it has none, null when that one has none. */
export async function newestIncidentEvidence(
  db: Kysely<Database>,
  issue: IssueRow,
): Promise<string | null | undefined> {
  return (await newestIncidentOf(db, issue).select('evidence').executeTakeFirst())?.evidence;
}

/** The root-cause sentence of the issue's newest incident; undefined when it has none. */
export async function newestIncidentRootCause(db: Kysely<Database>, issue: IssueRow): Promise<string | undefined> {
  return (await newestIncidentOf(db, issue).select('root_cause_summary').executeTakeFirst())?.root_cause_summary;
}
