import { sql } from 'kysely';
import { VITALS } from '../../vitals/summary';
import { isVital, percentileOf, type AlertQuery } from '../rule';
import { recordFilters, scopeConditions, type SignalContext, type Window } from './context';
import { percentileIn } from './measure';
import { matches } from './sql';

/**
 * Web Vitals: the p75 or p90 of one vital's points (the SDK's `web_vital_*` metric points), by nearest rank as the Web
 * Vitals page computes them; `route` matches the points' page (`url.path`). Reads the index by project, name and time.
 */
export async function vitalsValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  if (!isVital(query.metric)) return null;
  const where = [
    ...scopeConditions(ctx),
    sql<boolean>`r.name = ${VITALS[query.metric].metric}`,
    sql<boolean>`r.value is not null`,
    ...recordFilters(ctx, query.filter, true),
  ];
  if (query.filter?.route !== undefined) where.push(matches(sql.ref('r.route'), query.filter.route));
  const rows = { table: 'metric_points', where };
  return percentileIn(ctx, rows, sql.ref('r.value'), percentileOf(query.aggregate) ?? 75, w);
}
