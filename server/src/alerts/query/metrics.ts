import { sql, type SqlBool } from 'kysely';
import { percentileOf, type AlertQuery } from '../rule';
import { recordFilters, scopeConditions, type SignalContext, type Window } from './context';
import { percentileIn, sumIn } from './measure';
import { matches } from './sql';

/**
 * An app's metric (by name): the sum of its points' values, that sum per second of the window (`rate`), their mean,
 * or a percentile by nearest rank. A point's value is what the metric listing shows (a gauge's or a sum's number; a
 * histogram's sum): points without one are left out. Reads the index by project, name and time.
 */
export async function metricsValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  const where = [
    ...scopeConditions(ctx),
    sql<SqlBool>`r.name = ${query.metric ?? ''}`,
    sql<SqlBool>`r.value is not null`,
    ...recordFilters(ctx, query.filter, true),
  ];
  if (query.filter?.route !== undefined) where.push(matches(sql.ref('r.route'), query.filter.route));
  const percent = percentileOf(query.aggregate);
  const rows = { table: 'metric_points', where };
  if (percent !== undefined) return percentileIn(ctx, rows, sql.ref('r.value'), percent, w);
  const { sum, n } = await sumIn(ctx, rows, sql.ref('r.value'), w);
  if (n === 0) return null;
  if (query.aggregate === 'rate') return sum / ((w.toMs - w.fromMs) / 1000);
  return query.aggregate === 'avg' ? sum / n : sum;
}
