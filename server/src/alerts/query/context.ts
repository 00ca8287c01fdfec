import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { DialectName } from '../../db/connect';
import { isPostgres } from '../../db/partitions';
import type { Database } from '../../db/schema';
import { TEST_ENV } from '../../otlp/environment';
import { resolveServiceNames } from '../../projects/apps-store';
import type { AlertFilter } from '../rule';
import { attributeConditions, envOf, inList, jsonText, notTestResource } from './sql';

/** What every signal query shares: the database, the rule's project and apps, and the window (docs/alerts.md, "Cost"). */

/** `[fromMs, toMs)`, by the records' own times. */
export interface Window {
  fromMs: number;
  toMs: number;
}

export interface SignalContext {
  db: Kysely<Database>;
  dialect: DialectName;
  projectId: string;
  /** The ids of the apps the filter names (unknown names match nothing); undefined: every app. */
  appIds: string[] | undefined;
  /** The evaluation's now: what decides which of a long window's slots have settled (slots.ts). */
  nowMs: number;
}

export async function signalContext(
  db: Kysely<Database>,
  projectId: string,
  filter: AlertFilter | undefined,
  nowMs: number,
): Promise<SignalContext> {
  const dialect = isPostgres(db) ? 'postgres' : 'sqlite';
  if (filter?.app === undefined) return { db, dialect, projectId, appIds: undefined, nowMs };
  const found = await resolveServiceNames(db, projectId, filter.app);
  return { db, dialect, projectId, appIds: [...new Set([...found.values()].map((a) => a.id))], nowMs };
}

const NOTHING = sql<SqlBool>`1 = 0`;

/** `column IN (list)`, or nothing matches for an empty list. */
export const anyOf = (column: Expression<unknown>, list: readonly string[]) =>
  list.length === 0 ? NOTHING : inList(column, list);

/** The project and the apps: the conditions every query of a record table starts with (the window is measure.ts's). */
export function scopeConditions(ctx: SignalContext): Array<Expression<SqlBool>> {
  const where = [sql<SqlBool>`r.project_id = ${ctx.projectId}`];
  if (ctx.appIds !== undefined) where.push(anyOf(sql.ref('r.app_id'), ctx.appIds));
  return where;
}

/**
 * The filters of a record table with a `resource` (spans, logs, metric points): environment (test traffic left out
 * unless named), release, service and attributes. `envColumn`: the table keeps the environment as a column.
 */
export function recordFilters(
  ctx: SignalContext,
  filter: AlertFilter | undefined,
  envColumn = false,
): Array<Expression<SqlBool>> {
  const { dialect } = ctx;
  const where: Array<Expression<SqlBool>> = [];
  const env = envColumn ? sql`r.env` : envOf(dialect, 'r.resource');
  if (filter?.env !== undefined) where.push(anyOf(env, filter.env));
  else if (envColumn) where.push(sql<SqlBool>`(r.env is null or r.env <> ${TEST_ENV})`);
  else where.push(notTestResource('r.resource'));
  if (filter?.release !== undefined)
    where.push(anyOf(jsonText(dialect, 'r.resource', 'service.version'), filter.release));
  if (filter?.service !== undefined)
    where.push(sql<SqlBool>`${jsonText(dialect, 'r.resource', 'service.name')} = ${filter.service}`);
  where.push(...attributeConditions(dialect, 'r.attributes', filter?.attributes));
  return where;
}
