import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import { unindexed } from '../db/unindexed';
import { invalid } from '../shared/domain-errors';
import { pagesCondition, type PagesMatch } from './pages';
import { ATTRIBUTE_KEY, SESSION_FACT_LIMITS } from '../otlp/session-facts';

/** `attr.<key>=<value>`: a session attribute filter, repeatable. */
export const ATTRIBUTE_PARAM = 'attr.';
/** Most attribute filters one request may combine. */
export const MAX_ATTRIBUTE_FILTERS = 8;

export interface AttributeFilter {
  key: string;
  value: string;
}

/**
 * Every `attr.<key>=<value>` of the query (each parameter with all its values), checked: keys as the SDK's attributes
 * allow, values bounded, at most 8.
 */
export function readAttributeFilters(query: Record<string, readonly string[]>): AttributeFilter[] {
  const filters: AttributeFilter[] = [];
  for (const [param, values] of Object.entries(query)) {
    if (!param.startsWith(ATTRIBUTE_PARAM)) continue;
    const key = param.slice(ATTRIBUTE_PARAM.length);
    if (!ATTRIBUTE_KEY.test(key)) {
      throw invalid(
        `${param}: the attribute key must be 1 to ${SESSION_FACT_LIMITS.maxKeyChars} letters, digits, "_", ".", ":" or "-"`,
        'invalid_request',
        { field: param },
      );
    }
    for (const value of values) {
      if (value === '' || value.length > SESSION_FACT_LIMITS.maxValueChars) {
        throw invalid(`${param} must be 1 to ${SESSION_FACT_LIMITS.maxValueChars} characters`, 'invalid_request', {
          field: param,
        });
      }
      filters.push({ key, value });
    }
  }
  if (filters.length > MAX_ATTRIBUTE_FILTERS) {
    throw invalid(
      `at most ${MAX_ATTRIBUTE_FILTERS} attr.<key> filters per request (got ${filters.length})`,
      'invalid_request',
      {
        field: ATTRIBUTE_PARAM,
      },
    );
  }
  return filters;
}

/**
 * The JSON texts a stored attribute may have to equal `value`: the string itself, and the number or boolean it spells
 * (`attr.tier=3` matches 3 and "3"; `attr.beta=true` matches true and "true").
 */
function jsonCandidates(value: string): string[] {
  const literal = value === 'true' || value === 'false' || String(Number(value)) === value;
  return literal ? [JSON.stringify(value), value] : [JSON.stringify(value)];
}

/**
 * `s.attributes` (a JSON text column) has `key` equal to `value`. Each database extracts the member's JSON text its
 * own way; keys are limited to characters neither path syntax gives a meaning to.
 */
export function attributeMatches(dialect: DialectName, filter: AttributeFilter): RawBuilder<SqlBool> {
  const member =
    dialect === 'postgres'
      ? sql`(s.attributes::jsonb -> ${filter.key})::text`
      : sql`(s.attributes -> ${`$."${filter.key}"`})`;
  return sql<SqlBool>`${member} in (${sql.join(jsonCandidates(filter.value))})`;
}

/** The listing's filters on session facts, as the query schema read them (attributes and app are resolved apart). */
export interface SessionFilters {
  appId?: string;
  user_id?: string;
  from?: number;
  to?: number;
  env?: string;
  release?: string;
  browser?: string;
  test_run?: string;
  test_id?: string;
  /** What `url=<text>` found (sessions/pages.ts). */
  pages?: PagesMatch;
  has_errors?: boolean;
  min_duration_ms?: number;
  max_duration_ms?: number;
}

/**
 * A column a filter compares without its index on SQLite (db/unindexed.ts): `env = 'prod'` would otherwise be read
 * through (project_id, env) and sorted whole. The user filter keeps its index (a handful of sessions).
 */
const scanned = (dialect: DialectName, column: string) => unindexed(dialect, `s.${column}`);

/** The conditions of every filter given, on `sessions as s`; a session is in range when its activity overlaps [from, to). */
export function sessionConditions(
  dialect: DialectName,
  f: SessionFilters,
  attributes: readonly AttributeFilter[],
): RawBuilder<SqlBool>[] {
  const conditions: RawBuilder<SqlBool>[] = attributes.map((filter) => attributeMatches(dialect, filter));
  const equal = (column: string, value: string | undefined) => {
    if (value !== undefined) conditions.push(sql<SqlBool>`${scanned(dialect, column)} = ${value}`);
  };
  equal('app_id', f.appId);
  equal('env', f.env);
  equal('release', f.release);
  equal('browser', f.browser);
  if (f.user_id !== undefined) conditions.push(sql<SqlBool>`s.user_id = ${f.user_id}`);
  // A run's sessions are a few among all: sessions_project_test finds them.
  if (f.test_run !== undefined) conditions.push(sql<SqlBool>`s.test_run_id = ${f.test_run}`);
  if (f.test_id !== undefined) conditions.push(sql<SqlBool>`s.test_id = ${f.test_id}`);
  if (f.from !== undefined) conditions.push(sql<SqlBool>`s.last_ms >= ${f.from}`);
  if (f.to !== undefined) conditions.push(sql<SqlBool>`s.first_ms < ${f.to}`);
  if (f.pages !== undefined) conditions.push(pagesCondition(f.pages));
  const errors = scanned(dialect, 'error_count');
  if (f.has_errors !== undefined)
    conditions.push(f.has_errors ? sql<SqlBool>`${errors} > 0` : sql<SqlBool>`${errors} = 0`);
  // Duration bounds keep their index: "longer than half an hour" is a few sessions in thousands.
  if (f.min_duration_ms !== undefined) conditions.push(sql<SqlBool>`s.duration_ms >= ${f.min_duration_ms}`);
  if (f.max_duration_ms !== undefined) conditions.push(sql<SqlBool>`s.duration_ms <= ${f.max_duration_ms}`);
  return conditions;
}
