import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from '../db/connect';

/**
 * SQL conditions on the JSON text columns records keep their attributes in, as each engine reads into JSON. Keys are
 * held to {@link ATTRIBUTE_KEY}'s characters before they get here, so the SQLite path needs no escaping.
 */
export function attributeIs(dialect: DialectName, column: string, key: string, value: string): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`(${sql.ref(column)}::jsonb ->> ${key}) = ${value}`
    : sql`cast(json_extract(${sql.ref(column)}, ${`$."${key}"`}) as text) = ${value}`;
}

/** The attribute `key` of a JSON column as text (null where absent). */
export function attributeText(dialect: DialectName, column: string, key: string): RawBuilder<string | null> {
  return dialect === 'postgres'
    ? sql<string | null>`(${sql.ref(column)}::jsonb ->> ${key})`
    : sql<string | null>`cast(json_extract(${sql.ref(column)}, ${`$."${key}"`}) as text)`;
}

/** Whether a text column contains `text` as it is (no pattern characters, unlike LIKE). */
export function contains(dialect: DialectName, column: string, text: string): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`strpos(${sql.ref(column)}, ${text}) > 0`
    : sql`instr(${sql.ref(column)}, ${text}) > 0`;
}

/** A condition true when any of `conditions` is (false for none). */
export const anyOf = (conditions: RawBuilder<unknown>[]): RawBuilder<unknown> =>
  conditions.length === 0 ? sql`1 = 0` : sql`(${sql.join(conditions, sql` or `)})`;
