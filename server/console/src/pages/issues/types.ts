import type { InferResponseType } from 'hono/client';
import type { IssueStatus } from '../../../../src/api-types';
import type { analysisClient, githubClient, issuesClient } from '../../api/typed';

/**
 * The answers of `/control-plane/issues` the issue pages read, as the server's schemas declare them, through the typed
 * clients.
 */

export type { IssueStatus };
/** The status filter's choices, in the order the console offers them. */
export const ISSUE_STATUSES = [
  'unresolved',
  'regressed',
  'resolved',
  'ignored',
] as const satisfies readonly IssueStatus[];

type OneIssue = (typeof issuesClient)[':id'];
export type Issue = InferResponseType<OneIssue['$patch'], 200>;
export type IssueDetail = InferResponseType<OneIssue['$get'], 200>;
/** A row of the listing: the issue with its trend over the period asked for. */
export type IssueListItem = InferResponseType<typeof issuesClient.index.$get, 200>['data'][number];
export type IssueTrend = IssueListItem['trend'];
export type IssueBreakdown = IssueDetail['breakdown'];
export type Seen = Issue['first_seen'];
export type Analysis = NonNullable<InferResponseType<(typeof analysisClient)[':id']['analysis']['$get'], 200>>;
type PullRequestRoute = (typeof githubClient)['issues'][':id']['pull-request'];
/** `GET`/`POST /issues/{id}/pull-request`: the one recorded, or the one just opened. */
export type PullRequest =
  | NonNullable<InferResponseType<PullRequestRoute['$get'], 200>>
  | InferResponseType<PullRequestRoute['$post'], 200 | 201>;
