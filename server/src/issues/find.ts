import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { IssueRow } from './json';

/** One issue of a project with its app's name; undefined when the project has no issue with that id. */
export function findIssueRow(db: Kysely<Database>, projectId: string, id: string): Promise<IssueRow | undefined> {
  return db
    .selectFrom('detection_groups as g')
    .innerJoin('apps', 'apps.id', 'g.app_id')
    .selectAll('g')
    .select('apps.name as app')
    .where('g.project_id', '=', projectId)
    .where('g.fingerprint', '=', id)
    .executeTakeFirst();
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
