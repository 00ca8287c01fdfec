import type { DialectName } from './connect';

/**
 * The ON CONFLICT value of a JSON array column holding a bounded list of distinct texts: the stored values followed by
 * the incoming row's new ones, at most `max`, as a JSON array. Stored order first, so a value keeps the place it was
 * first seen in, and a full list keeps its first `max` values. Each database has its own JSON functions; both evaluate
 * the expression on the row as it was before the update.
 */
export function mergedJsonList(dialect: DialectName, table: string, column: string, max: number): string {
  const stored = `${table}.${column}`;
  const incoming = `excluded.${column}`;
  if (dialect === 'sqlite') {
    return `(select json_group_array(value order by src, pos) from (
      select value, 0 as src, key as pos from json_each(${stored})
      union all
      select value, 1, key from json_each(${incoming}) where value not in (select value from json_each(${stored}))
      order by src, pos limit ${max}))`;
  }
  // jsonb_agg of no rows is null, not an empty array.
  return `coalesce((select jsonb_agg(value order by src, pos)::text from (
      select value, 0 as src, pos from jsonb_array_elements_text(${stored}::jsonb) with ordinality as a(value, pos)
      union all
      select value, 1, pos from jsonb_array_elements_text(${incoming}::jsonb) with ordinality as b(value, pos)
        where value not in (select jsonb_array_elements_text(${stored}::jsonb))
      order by src, pos limit ${max}) as merged), '[]')`;
}
