import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../../db/connect';
import { DEFAULT_ENV, TEST_ENV } from '../../otlp/environment';
import { likeContains } from '../../shared/like';

/**
 * The SQL pieces the signal queries share, for both dialects: reading one attribute out of a record's JSON columns
 * (`attributes` is a flat object, `resource` holds its attributes under `attributes`), the environment as
 * otlp/environment.ts decides it, and `*` patterns.
 */

/** The text of attribute `name` of a JSON column (`resource`: of its `attributes`), or null. */
export function jsonText(dialect: DialectName, column: string, name: string): RawBuilder<string | null> {
  const inResource = column.endsWith('resource');
  if (dialect === 'postgres')
    return sql`(${sql.ref(column)}::jsonb ${sql.raw(inResource ? "-> 'attributes' ->>" : '->>')} ${name})`;
  const path = inResource ? `$.attributes."${name}"` : `$."${name}"`;
  return sql`cast(json_extract(${sql.ref(column)}, ${path}) as text)`;
}

/** A record's environment from its resource column, as the ingest decides it (a test run's records are `test`). */
export function envOf(dialect: DialectName, resource: string): RawBuilder<string> {
  const attr = (name: string) => sql`nullif(${jsonText(dialect, resource, name)}, '')`;
  return sql`case when ${attr('test.run.id')} is not null then ${TEST_ENV}
    else coalesce(${attr('deployment.environment.name')}, ${attr('deployment.environment')}, ${DEFAULT_ENV}) end`;
}

/**
 * Not test traffic, read cheaply: the ingest writes the resource with JSON.stringify, so a test run's resource holds
 * the key `"test.run.id"` verbatim; a text match spares parsing every record's JSON when no environment is named.
 */
export const notTestResource = (resource: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`${sql.ref(resource)} not like ${'%"test.run.id":%'}`;

/**
 * A LIKE pattern from a rule's pattern: `*` matches any run of characters, and so does a `:name` segment (the Web
 * Vitals page names pages so: `/products/:id`); everything else matches itself.
 */
export const likePattern = (pattern: string) =>
  pattern
    .replace(/(^|\/):[A-Za-z_]\w*/g, '$1*')
    .replace(/[\\%_]/g, (c) => `\\${c}`)
    .replaceAll('*', '%');

/** `value LIKE pattern` with `\` escaping: case-sensitive on PostgreSQL, not for ASCII letters on SQLite (its LIKE). */
export const matches = (value: Expression<unknown>, pattern: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`${value} like ${likePattern(pattern)} escape '\\'`;

/** `value` contains `text`, case-insensitively in both dialects. */
export function containsText(dialect: DialectName, value: Expression<unknown>, text: string): RawBuilder<SqlBool> {
  const escaped = likeContains(text);
  return dialect === 'postgres'
    ? sql<SqlBool>`${value} ilike ${escaped} escape '\\'`
    : sql<SqlBool>`${value} like ${escaped} escape '\\'`;
}

/** Some element of the JSON array in `column` satisfies `pattern`. */
export function anyElementMatches(dialect: DialectName, column: string, pattern: string): RawBuilder<SqlBool> {
  const like = likePattern(pattern);
  return dialect === 'postgres'
    ? sql<SqlBool>`exists (select 1 from jsonb_array_elements_text(${sql.ref(column)}::jsonb) as e(v) where v like ${like} escape '\\')`
    : sql<SqlBool>`exists (select 1 from json_each(${sql.ref(column)}) where value like ${like} escape '\\')`;
}

/** Each `attributes` filter as a condition on the JSON column: the attribute's text equals the value. */
export const attributeConditions = (
  dialect: DialectName,
  column: string,
  attributes: Readonly<Record<string, string>> | undefined,
): Array<RawBuilder<SqlBool>> =>
  Object.entries(attributes ?? {}).map(([name, value]) => sql<SqlBool>`${jsonText(dialect, column, name)} = ${value}`);

/** `value IN (list)`. */
export const inList = (value: Expression<unknown>, list: readonly string[]): RawBuilder<SqlBool> =>
  sql<SqlBool>`${value} in (${sql.join(list)})`;
