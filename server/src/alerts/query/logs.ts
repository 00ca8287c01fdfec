import { sql, type SqlBool } from 'kysely';
import type { AlertQuery } from '../rule';
import { recordFilters, scopeConditions, type SignalContext, type Window } from './context';
import { severityRange } from './log-severity';
import { anyIn, countIn } from './measure';
import { containsText, jsonText, matches } from './sql';

/**
 * Logs: how many records match; `severity` by OpenTelemetry severity number, `text` a case-insensitive match in the
 * body (as stored: JSON text), `name` the event name, `route` the record's page (`url.path`, which the SDK sets).
 * Counts over the index by project and time.
 */
export async function logsValue(ctx: SignalContext, query: AlertQuery, w: Window): Promise<number | null> {
  const { filter } = query;
  const where = [...scopeConditions(ctx), ...recordFilters(ctx, filter)];
  if (filter?.severity !== undefined) {
    const ranges = filter.severity.map((s) => {
      const [lowest, highest] = severityRange(s);
      return sql<SqlBool>`r.severity_number between ${lowest} and ${highest}`;
    });
    where.push(sql<SqlBool>`(${sql.join(ranges, sql` or `)})`);
  }
  if (filter?.text !== undefined) where.push(containsText(ctx.dialect, sql.ref('r.body'), filter.text));
  if (filter?.name !== undefined) where.push(sql<SqlBool>`r.event_name = ${filter.name}`);
  if (filter?.route !== undefined) where.push(matches(jsonText(ctx.dialect, 'r.attributes', 'url.path'), filter.route));
  const count = await countIn(ctx, { table: 'logs', where }, w);
  return count > 0 || (await anyIn(ctx, { table: 'logs', where: scopeConditions(ctx) }, w)) ? count : null;
}
