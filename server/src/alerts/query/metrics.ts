import { sql, type SqlBool } from 'kysely';
import { percentileOf, type AlertQuery } from '../rule';
import { recordFilters, scopeConditions, type SignalContext, type Window } from './context';
import { percentile, sumAndCount } from './read';
import { matches } from './sql';

/**
 * An app's metric (by name): the sum of its points' values, that sum per second of the window (`rate`), their mean,
 * or a percentile by nearest rank. A point's value is what the metric listing shows (a gauge's or a sum's number; a
 * histogram's sum): points without one are left out. Reads the index by project, name and time.
 */
export async function metricsValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  const where = [
    ...scopeConditions(ctx, w),
    sql<SqlBool>`r.name = ${query.metric ?? ''}`,
    sql<SqlBool>`r.value is not null`,
    ...recordFilters(ctx, query.filter, true),
  ];
  if (query.filter?.route !== undefined) where.push(matches(sql.ref('r.route'), query.filter.route));
  const percent = percentileOf(query.aggregate);
  if (percent !== undefined) return percentile(ctx, 'metric_points', sql.ref('r.value'), where, percent);
  const { sum, n } = await sumAndCount(ctx, 'metric_points', sql.ref('r.value'), where);
  if (n === 0) return null;
  if (query.aggregate === 'rate') return sum / ((w.toMs - w.fromMs) / 1000);
  return query.aggregate === 'avg' ? sum / n : sum;
}
