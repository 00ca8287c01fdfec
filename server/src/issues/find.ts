import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { notFound } from '../shared/domain-errors';
import { sessionsWithReplay } from '../incidents/detect/evidence';
import type { IncidentView } from '../incidents/types';
import type { IssueRow } from './json';

const issuesOf = (db: Kysely<Database>, projectId: string) =>
  db
    .selectFrom('detection_groups as g')
    .innerJoin('apps', 'apps.id', 'g.app_id')
    .selectAll('g')
    .select('apps.name as app')
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
  const fingerprint = incident.evidence?.fingerprint;
  return fingerprint === undefined ? undefined : findIssueRow(db, projectId, fingerprint);
}

/** The query of the issue's newest incident, for the caller to pick its columns. */
export function newestIncidentOf(db: Kysely<Database>, issue: IssueRow) {
  return db
    .selectFrom('incidents')
    .where('project_id', '=', issue.project_id)
    .where('fingerprint', '=', issue.fingerprint)
    .orderBy('detected_ms', 'desc')
    .limit(1);
}

export interface AffectedSession {
  sessionId: string;
  /** When the issue's first and last error happened in the session. */
  firstMs: number;
  lastMs: number;
  hasReplay: boolean;
  /** The session's latest user (`user.id`); null when none was named or the session is no longer stored. */
  userId: string | null;
}

/** The issue's `limit` most recently affected sessions, newest first. */
export async function newestSessionsOf(
  db: Kysely<Database>,
  issue: IssueRow,
  limit: number,
): Promise<AffectedSession[]> {
  const rows = await db
    .selectFrom('issue_sessions as i')
    // Left: retention may have dropped the session while the issue still counts it.
    .leftJoin('sessions as s', (join) =>
      join.onRef('s.project_id', '=', 'i.project_id').onRef('s.session_id', '=', 'i.session_id'),
    )
    .select(['i.session_id', 'i.first_ms', 'i.last_ms', 's.user_id'])
    .where('i.project_id', '=', issue.project_id)
    .where('i.fingerprint', '=', issue.fingerprint)
    .orderBy('i.last_ms', 'desc')
    .limit(limit)
    .execute();
  const withReplay = await sessionsWithReplay(
    db,
    issue.project_id,
    rows.map((r) => r.session_id),
  );
  return rows.map((r) => ({
    sessionId: r.session_id,
    firstMs: Number(r.first_ms),
    lastMs: Number(r.last_ms),
    hasReplay: withReplay.has(r.session_id),
    userId: r.user_id ?? null,
  }));
}
