import { sql, type Expression, type SqlBool } from 'kysely';
import { DEFAULT_ENV, TEST_ENV } from '../../otlp/environment';
import type { AlertQuery } from '../rule';
import { anyOf, type SignalContext, type Window } from './context';
import { anyRow, countRows, shareOf } from './read';
import { anyElementMatches, attributeConditions } from './sql';

/** Sessions seen in the window: begun before its end and active after its start (the index by project and last time). */
function seenIn(ctx: SignalContext, w: Window): Array<Expression<SqlBool>> {
  const where = [
    sql<SqlBool>`r.project_id = ${ctx.projectId}`,
    sql<SqlBool>`r.last_ms >= ${w.fromMs}`,
    // `+`: the range on last_ms is what the index reads (read.ts); first_ms is checked on the rows it finds.
    sql<SqlBool>`+r.first_ms < ${w.toMs}`,
  ];
  if (ctx.appIds !== undefined) where.push(anyOf(sql.ref('r.app_id'), ctx.appIds));
  return where;
}

/**
 * Sessions: how many were seen in the window, or the share of them without an error (0..1; a session's errors are
 * all it had so far). `route` matches any page the session visited, `attributes` its custom attributes; test runs'
 * sessions are left out unless `env` names `test`.
 */
export async function sessionsValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  const { filter } = query;
  const where = seenIn(ctx, w);
  // A test run's session is of the environment `test`, as its records are (otlp/environment.ts).
  const env = sql`case when r.test_run_id is not null then ${TEST_ENV} else coalesce(r.env, ${DEFAULT_ENV}) end`;
  if (filter?.env !== undefined) where.push(anyOf(env, filter.env));
  else where.push(sql<SqlBool>`r.test_run_id is null`);
  if (filter?.release !== undefined) where.push(anyOf(sql.ref('r.release'), filter.release));
  if (filter?.route !== undefined) where.push(anyElementMatches(ctx.dialect, 'r.urls', filter.route));
  where.push(...attributeConditions(ctx.dialect, 'r.attributes', filter?.attributes));
  if (query.aggregate === 'count') {
    const count = await countRows(ctx, 'sessions', where);
    return count > 0 || (await anyRow(ctx, 'sessions', seenIn(ctx, w))) ? count : null;
  }
  return shareOf(ctx, 'sessions', sql<SqlBool>`r.error_count = 0`, where);
}
