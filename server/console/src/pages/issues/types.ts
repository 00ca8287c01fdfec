import type { z } from 'zod';
import type { Analysis as AnalysisSchema } from '../../../../src/ai/schemas';
import type { IssueStatus } from '../../../../src/incidents/detect/tables';
import type { IssueDetailSchema, IssueListItemSchema, IssueSchema } from '../../../../src/issues/schemas';

/**
 * The answers of `/control-plane/issues` the issue pages read: the server's schemas (server/src/issues/schemas.ts,
 * ai/schemas.ts), imported as types only, so a renamed field breaks this build. The schemas declare `status` as a
 * string (listing its values for the OpenAPI document); the console narrows it to the server's statuses.
 */

export type { IssueStatus };
/** The status filter's choices, in the order the console offers them. */
export const ISSUE_STATUSES = [
  'unresolved',
  'regressed',
  'resolved',
  'ignored',
] as const satisfies readonly IssueStatus[];

type WithStatus<T> = Omit<T, 'status'> & { status: IssueStatus };
export type Issue = WithStatus<z.output<typeof IssueSchema>>;
export type IssueDetail = WithStatus<z.output<typeof IssueDetailSchema>>;
/** A row of the listing: the issue with its trend over the period asked for. */
export type IssueListItem = WithStatus<z.output<typeof IssueListItemSchema>>;
export type IssueTrend = IssueListItem['trend'];
export type IssueBreakdown = IssueDetail['breakdown'];
export type Seen = Issue['first_seen'];
export type Analysis = z.output<typeof AnalysisSchema>;

/** `GET`/`POST /issues/{id}/pull-request` (server/src/github/routes.ts, whose schema is the route's own). */
export interface PullRequest {
  repository: string;
  number: number;
  url: string;
  branch: string;
  commit_sha: string;
  recorded_at?: string;
  created?: boolean;
}
