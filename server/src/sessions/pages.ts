import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { likeContains } from '../shared/like';

/**
 * The sessions page's `url` filter: a session that showed a page whose path contains the text, case-insensitively,
 * with LIKE's own characters escaped. The pattern is matched against the project's distinct paths (page_paths, a small
 * table); their sessions come from the pairs' index (session_pages), never from every session's list of pages. Paths
 * are percent-encoded ASCII as URLs give them, so ASCII case-insensitivity (SQLite's LIKE) is all there is to ignore.
 */

/**
 * Most sessions the filter names one by one. A rarer path's sessions are read by key and sorted; a commoner one is
 * tested on each session the listing's sort index walks, which finds a page of them early. Deciding here, not in the
 * planner: PostgreSQL's statistics cannot tell a path seen once from one seen everywhere behind `like '%…%'`, and it
 * took 2 s to walk 100,000 sessions for ten that showed a rare path (docs/benchmarks.md).
 */
export const LISTED_SESSIONS = 1000;

/** The project's paths that contain `text`, as a subquery. */
function pathsContaining(dialect: DialectName, projectId: string, text: string): RawBuilder<unknown> {
  const like = sql.raw(dialect === 'postgres' ? 'ilike' : 'like');
  return sql`select p.path from page_paths p where p.project_id = ${projectId} and p.path ${like} ${likeContains(text)} escape '\\'`;
}

/** The sessions that showed such a page, when they are at most {@link LISTED_SESSIONS}; undefined when more. */
export async function sessionsShowing(
  db: Kysely<Database>,
  dialect: DialectName,
  projectId: string,
  text: string,
): Promise<string[] | undefined> {
  const { rows } = await sql<{ session_id: string }>`select distinct sp.session_id from session_pages sp
    where sp.project_id = ${projectId} and sp.path in (${pathsContaining(dialect, projectId, text)})
    limit ${LISTED_SESSIONS + 1}`.execute(db);
  return rows.length > LISTED_SESSIONS ? undefined : rows.map((r) => r.session_id);
}

/**
 * The condition on `sessions as s`: membership in the listed sessions when {@link sessionsShowing} listed them, else a
 * test of each session against the matching paths.
 */
export function showingCondition(
  dialect: DialectName,
  projectId: string,
  text: string,
  listed: readonly string[] | undefined,
): RawBuilder<SqlBool> {
  if (listed === undefined)
    return sql<SqlBool>`s.session_id in (select sp.session_id from session_pages sp where sp.project_id = ${projectId} and sp.path in (${pathsContaining(dialect, projectId, text)}))`;
  return listed.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`s.session_id in (${sql.join(listed)})`;
}
