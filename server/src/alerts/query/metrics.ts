import { sql, type SqlBool } from 'kysely';
import { nearestRank } from '../../vitals/summary';
import { percentileOf, type AlertQuery } from '../rule';
import {
  meanOf,
  METRIC_POINTS_NEWEST,
  recordFilters,
  scopeConditions,
  type SignalContext,
  sumOf,
  type Window,
} from './context';
import { newestValues } from './read';
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
  const values = await newestValues(ctx, 'metric_points', sql.ref('r.value'), where, METRIC_POINTS_NEWEST);
  switch (query.aggregate) {
    case 'sum':
      return sumOf(values);
    case 'rate': {
      const sum = sumOf(values);
      return sum === null ? null : sum / ((w.toMs - w.fromMs) / 1000);
    }
    case 'avg':
      return meanOf(values);
    default:
      return nearestRank(values, percentileOf(query.aggregate) ?? 50);
  }
}
