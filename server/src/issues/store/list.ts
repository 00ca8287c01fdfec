import { sql, type Kysely } from 'kysely';
import type { AssigneeFilter } from '../../assignment/assignee';
import type { Database } from '../../db/schema';
import { TEST_ENV } from '../../otlp/environment';
import type { IssueStatus } from '../../incidents/detect/tables';
import type { Cursor } from '../../shared/keyset';
import { issuesOf, type IssueRow } from './issues';

/** The listing's orders, each newest or largest first, and the column behind each. */
export const ISSUE_SORTS = {
  last_seen: 'last_seen_ms',
  first_seen: 'first_seen_ms',
  events: 'total_count',
  sessions: 'session_count',
} as const;
export type IssueSort = keyof typeof ISSUE_SORTS;

/** Where the listed issues were seen: production (every env but `test`), test runs, or either. */
export const SEEN_IN = ['production', 'tests', 'any'] as const;
export type SeenIn = (typeof SEEN_IN)[number];

export interface IssueFilter {
  appId?: string;
  /** `test` (TEST_ENV) asks for the issues seen in test runs, whose groups are in the production environment. */
  env?: string;
  /** Production unless `env` is `test`. */
  seenIn?: SeenIn;
  /** Issues seen in this release (at any time). */
  release?: string;
  status?: IssueStatus;
  /** Text in the type or the message, case-insensitive. */
  q?: string;
  /** Last seen at or after (epoch ms). */
  from?: number;
  /** Last seen before. */
  to?: number;
  /** Issues that affected a session whose (latest) user is this one. */
  userId?: string;
  /** Issues assigned to one person, or to no one. */
  assignee?: AssigneeFilter;
}

/** `q` as a LIKE pattern that matches it literally anywhere (`\` escapes the wildcards). */
const containing = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of a project's issues plus one row (to tell whether more follow), after `cursor` in `sort` order. */
export async function listIssues(
  db: Kysely<Database>,
  projectId: string,
  filter: IssueFilter,
  page: { sort: IssueSort; limit: number; cursor?: Cursor & { k: string } },
): Promise<IssueRow[]> {
  const column = `g.${ISSUE_SORTS[page.sort]}` as const;
  let q = issuesOf(db, projectId);
  if (filter.appId !== undefined) q = q.where('g.app_id', '=', filter.appId);
  const { assignee } = filter;
  if (assignee !== undefined)
    q = 'userId' in assignee ? q.where('g.assignee_id', '=', assignee.userId) : q.where('g.assignee_id', 'is', null);
  const tests = filter.env === TEST_ENV;
  if (filter.env !== undefined && !tests) q = q.where('g.env', '=', filter.env);
  // Test traffic is counted apart (incidents/detect/test-sightings.ts): an issue seen only in tests has no production errors.
  const seenIn = filter.seenIn ?? (tests ? 'tests' : 'production');
  if (seenIn === 'production') q = q.where('g.total_count', '>', 0);
  if (seenIn === 'tests' || tests) q = q.where('g.test_count', '>', 0);
  if (filter.status !== undefined) q = q.where('g.status', '=', filter.status);
  if (filter.from !== undefined) q = q.where('g.last_seen_ms', '>=', filter.from);
  if (filter.to !== undefined) q = q.where('g.last_seen_ms', '<', filter.to);
  const { release, q: text } = filter;
  if (release !== undefined) {
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('issue_releases as r')
          .select('r.release')
          .whereRef('r.project_id', '=', 'g.project_id')
          .whereRef('r.fingerprint', '=', 'g.fingerprint')
          .where('r.release', '=', release),
      ),
    );
  }
  const { userId } = filter;
  if (userId !== undefined) {
    // From the user's sessions (sessions_project_user) to their issues (issue_sessions_session).
    q = q.where('g.fingerprint', 'in', (eb) =>
      eb
        .selectFrom('sessions as s')
        .innerJoin('issue_sessions as i', (join) =>
          join.onRef('i.project_id', '=', 's.project_id').onRef('i.session_id', '=', 's.session_id'),
        )
        .select('i.fingerprint')
        .where('s.project_id', '=', projectId)
        .where('s.user_id', '=', userId),
    );
  }
  if (text !== undefined) {
    const pattern = containing(text);
    // lower() on both sides: PostgreSQL's LIKE is case-sensitive, SQLite's only outside ASCII.
    const matches = (col: 'g.error_type' | 'g.sample_message' | 'g.message') =>
      sql<boolean>`lower(${sql.ref(col)}) like ${pattern} escape '\\'`;
    q = q.where((eb) => eb.or([matches('g.error_type'), matches('g.sample_message'), matches('g.message')]));
  }
  const { cursor } = page;
  if (cursor)
    q = q.where((eb) =>
      eb.or([eb(column, '<', cursor.t), eb.and([eb(column, '=', cursor.t), eb('g.fingerprint', '<', cursor.k)])]),
    );
  return q
    .orderBy(column, 'desc')
    .orderBy('g.fingerprint', 'desc')
    .limit(page.limit + 1)
    .execute();
}
