import type { Context } from 'hono';
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { badRequest } from '../http/errors';
import { ATTRIBUTE_KEY, SESSION_FACT_LIMITS } from '../otlp/session-facts';

/** `attr.<key>=<value>`: a session attribute filter, repeatable. */
export const ATTRIBUTE_PARAM = 'attr.';
/** Most attribute filters one request may combine. */
export const MAX_ATTRIBUTE_FILTERS = 8;

export interface AttributeFilter {
  key: string;
  value: string;
}

/** Every `attr.<key>=<value>` of the query, checked: keys as the SDK's attributes allow, values bounded, at most 8. */
export function readAttributeFilters(c: Context): AttributeFilter[] {
  const filters: AttributeFilter[] = [];
  for (const [param, values] of Object.entries(c.req.queries())) {
    if (!param.startsWith(ATTRIBUTE_PARAM)) continue;
    const key = param.slice(ATTRIBUTE_PARAM.length);
    if (!ATTRIBUTE_KEY.test(key)) {
      throw badRequest(`${param}: the attribute key must be 1 to ${SESSION_FACT_LIMITS.maxKeyChars} letters, digits, "_", ".", ":" or "-"`, { field: param });
    }
    for (const value of values) {
      if (value === '' || value.length > SESSION_FACT_LIMITS.maxValueChars) {
        throw badRequest(`${param} must be 1 to ${SESSION_FACT_LIMITS.maxValueChars} characters`, { field: param });
      }
      filters.push({ key, value });
    }
  }
  if (filters.length > MAX_ATTRIBUTE_FILTERS) {
    throw badRequest(`at most ${MAX_ATTRIBUTE_FILTERS} attr.<key> filters per request (got ${filters.length})`, { field: ATTRIBUTE_PARAM });
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
    dialect === 'postgres' ? sql`(s.attributes::jsonb -> ${filter.key})::text` : sql`(s.attributes -> ${`$."${filter.key}"`})`;
  return sql<SqlBool>`${member} in (${sql.join(jsonCandidates(filter.value))})`;
}

/** The ids of the project's sessions whose latest user is `userId` (served by sessions_project_user). */
export function sessionsOfUser(db: Kysely<Database>, projectId: string, userId: string) {
  return db.selectFrom('sessions').select('session_id').where('project_id', '=', projectId).where('user_id', '=', userId);
}
