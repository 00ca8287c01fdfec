import { sql, type Expression, type SqlBool } from 'kysely';
import { STATUS_ERROR } from '../../traces/summary';
import { percentileOf, type AlertFilter, type AlertQuery } from '../rule';
import { recordFilters, scopeConditions, type SignalContext, type Window } from './context';
import { anyIn, countIn, percentileIn, shareIn, type Rows } from './measure';
import { jsonText, matches } from './sql';

/**
 * A span's route: its `http.route` or `url.path` attribute, else the path of its URL (`url.full`, `http.url`, as the
 * SDK's fetch and XHR spans carry), matched with any origin in front.
 */
function routeMatches(ctx: SignalContext, pattern: string): Expression<SqlBool> {
  const attr = (name: string) => jsonText(ctx.dialect, 'r.attributes', name);
  const path = sql`coalesce(${attr('http.route')}, ${attr('url.path')})`;
  const url = sql`coalesce(${attr('url.full')}, ${attr('http.url')})`;
  return sql<SqlBool>`(${matches(path, pattern)} or ${matches(url, `*://*${pattern}`)})`;
}

function spanRows(ctx: SignalContext, filter: AlertFilter | undefined): Rows {
  const where = [...scopeConditions(ctx), ...recordFilters(ctx, filter)];
  if (filter?.name !== undefined) where.push(sql<SqlBool>`r.name = ${filter.name}`);
  if (filter?.route !== undefined) where.push(routeMatches(ctx, filter.route));
  return { table: 'spans', where };
}

/**
 * Spans: how many, the share with status ERROR (0..1), or the p50/p95/p99 of their duration in ms by nearest rank.
 * Reads the index by project and time.
 */
export async function spansValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  const rows = spanRows(ctx, query.filter);
  if (query.aggregate === 'count') {
    const count = await countIn(ctx, rows, w);
    return count > 0 || (await anyIn(ctx, { table: 'spans', where: scopeConditions(ctx) }, w)) ? count : null;
  }
  if (query.aggregate === 'error_rate') return shareIn(ctx, rows, sql<SqlBool>`r.status_code = ${STATUS_ERROR}`, w);
  return percentileIn(ctx, rows, sql.ref('r.duration_ms'), percentileOf(query.aggregate) ?? 50, w);
}
