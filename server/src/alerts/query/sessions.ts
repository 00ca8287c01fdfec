import { sql, type Expression, type SqlBool } from 'kysely';
import { DEFAULT_ENV, TEST_ENV } from '../../otlp/environment';
import type { AlertQuery } from '../rule';
import { anyOf, type SignalContext, type Window } from './context';
import { anyRow, countRows, sumAndCount } from './read';
import { anyElementMatches, attributeConditions } from './sql';

/**
 * A session the SDK keeps ends 4 hours after it began (src/session/session.ts, as Datadog's): what splits the sessions
 * seen in a window into those that ended soon after it and the rare longer ones, so that neither read walks every
 * session since the window's start (a day's baseline a week back would otherwise read eight days of sessions).
 */
export const LONG_SESSION_MS = 4 * 3_600_000;

/**
 * Sessions seen in the window (begun before its end, active after its start), as two reads that never overlap: those
 * last active before `toMs + LONG_SESSION_MS` (the index by project and last time, bounded on both sides), and those
 * active later, which lasted longer than LONG_SESSION_MS (the index by project and duration; `+` keeps SQLite's
 * planner on it, read.ts).
 */
function seenIn(ctx: SignalContext, w: Window): Array<Array<Expression<SqlBool>>> {
  const project = [sql<SqlBool>`r.project_id = ${ctx.projectId}`];
  if (ctx.appIds !== undefined) project.push(anyOf(sql.ref('r.app_id'), ctx.appIds));
  const begunBefore = sql<SqlBool>`+r.first_ms < ${w.toMs}`;
  const until = w.toMs + LONG_SESSION_MS;
  return [
    [...project, sql<SqlBool>`r.last_ms >= ${w.fromMs}`, sql<SqlBool>`r.last_ms < ${until}`, begunBefore],
    [...project, sql<SqlBool>`r.duration_ms > ${LONG_SESSION_MS}`, sql<SqlBool>`+r.last_ms >= ${until}`, begunBefore],
  ];
}

/**
 * Sessions: how many were seen in the window, or the share of them without an error (0..1; a session's errors are
 * all it had so far). `route` matches any page the session visited, `attributes` its custom attributes; test runs'
 * sessions are left out unless `env` names `test`.
 */
export async function sessionsValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  const { filter } = query;
  const where: Array<Expression<SqlBool>> = [];
  // A test run's session is of the environment `test`, as its records are (otlp/environment.ts).
  const env = sql`case when r.test_run_id is not null then ${TEST_ENV} else coalesce(r.env, ${DEFAULT_ENV}) end`;
  if (filter?.env !== undefined) where.push(anyOf(env, filter.env));
  else where.push(sql<SqlBool>`r.test_run_id is null`);
  if (filter?.release !== undefined) where.push(anyOf(sql.ref('r.release'), filter.release));
  if (filter?.route !== undefined) where.push(anyElementMatches(ctx.dialect, 'r.urls', filter.route));
  where.push(...attributeConditions(ctx.dialect, 'r.attributes', filter?.attributes));
  const parts = seenIn(ctx, w);
  if (query.aggregate === 'count') {
    let count = 0;
    for (const part of parts) count += await countRows(ctx, 'sessions', [...part, ...where]);
    if (count > 0) return count;
    for (const part of parts) if (await anyRow(ctx, 'sessions', part)) return 0;
    return null;
  }
  let errorFree = 0;
  let n = 0;
  for (const part of parts) {
    const found = await sumAndCount(ctx, 'sessions', sql`case when r.error_count = 0 then 1 else 0 end`, [
      ...part,
      ...where,
    ]);
    errorFree += found.sum;
    n += found.n;
  }
  return n === 0 ? null : errorFree / n;
}
