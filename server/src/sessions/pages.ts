import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { likeContains } from '../shared/like';

/**
 * The sessions page's `url` filter: a session that showed a page whose path contains the text, case-insensitively,
 * with LIKE's own characters escaped. The pattern is matched against the project's distinct paths (page_paths, a small
 * table); their sessions come from the pairs' indexes (session_pages), never from every session's list of pages. Paths
 * are percent-encoded ASCII as URLs give them, so ASCII case-insensitivity (SQLite's LIKE) is all there is to ignore.
 *
 * Each step is its own statement so that neither database's planner chooses the order: SQLite has no statistics, and
 * PostgreSQL's cannot tell a path one session showed from one every session did behind `like '%…%'` (it walked
 * 100,000 sessions for ten, 2 s, docs/benchmarks.md).
 */

/** Most paths, and most sessions, the filter names one by one. */
export const LISTED = 1000;

/** What the filter found: the sessions when they are few, else the paths (or the pattern, for very many paths). */
export type PagesMatch = { sessions: string[] } | { paths: string[] } | { pattern: RawBuilder<unknown> };

/** The project's paths that contain `text`, as a subquery. */
function pathsContaining(dialect: DialectName, projectId: string, text: string): RawBuilder<unknown> {
  const like = sql.raw(dialect === 'postgres' ? 'ilike' : 'like');
  return sql`select p.path from page_paths p where p.project_id = ${projectId} and p.path ${like} ${likeContains(text)} escape '\\'`;
}

/** The paths containing `text`, then their sessions, each read up to {@link LISTED} + 1. */
export async function pagesMatching(
  db: Kysely<Database>,
  dialect: DialectName,
  projectId: string,
  text: string,
): Promise<PagesMatch> {
  const subquery = pathsContaining(dialect, projectId, text);
  const paths = (await sql<{ path: string }>`${subquery} limit ${LISTED + 1}`.execute(db)).rows.map((r) => r.path);
  if (paths.length > LISTED) return { pattern: subquery };
  if (paths.length === 0) return { sessions: [] };
  const { rows } = await sql<{ session_id: string }>`select distinct sp.session_id from session_pages sp
    where sp.project_id = ${projectId} and sp.path in (${sql.join(paths)}) limit ${LISTED + 1}`.execute(db);
  return rows.length > LISTED ? { paths } : { sessions: rows.map((r) => r.session_id) };
}

/**
 * The condition on `sessions as s`: a few sessions are read by key; else each session the listing's sort index walks
 * is looked up among its pages (the pairs' session index), and the walk stops after a page of them.
 */
export function pagesCondition(match: PagesMatch): RawBuilder<SqlBool> {
  if ('sessions' in match)
    return match.sessions.length === 0
      ? sql<SqlBool>`1 = 0`
      : sql<SqlBool>`s.session_id in (${sql.join(match.sessions)})`;
  const paths = 'paths' in match ? sql.join(match.paths) : match.pattern;
  return sql<SqlBool>`exists (select 1 from session_pages sp where sp.project_id = s.project_id and sp.session_id = s.session_id and sp.path in (${paths}))`;
}
