import type { Dimension } from './query';

/** One row of a grouped daily query. */
export interface CostRow {
  /** `YYYY-MM-DD`, the UTC usage day. */
  day: string;
  dimensions: Record<Dimension, string>;
  tags: Record<string, string>;
  cost: number;
  currency: string;
}

/**
 * The cost column is named after the summed column, which depends on the offer and API version (`Cost`, or
 * `PreTaxCost` for older EA and pay-as-you-go answers); the aggregation's alias is accepted too.
 */
const COST_COLUMNS = ['totalcost', 'cost', 'pretaxcost'];

/**
 * The rows of one Query API answer (`properties.columns` naming the positions in each of `properties.rows`). Columns
 * are found by name, never by position: the service orders them as it likes. Anything unexpected fails the sync instead
 * of storing a wrong total.
 */
export function parseQueryRows(body: unknown, dimensions: readonly Dimension[]): CostRow[] {
  const properties = (body as { properties?: unknown } | null)?.properties as
    | { columns?: unknown; rows?: unknown }
    | undefined;
  if (!properties || !Array.isArray(properties.columns) || !Array.isArray(properties.rows)) {
    throw new Error('Cost Management answered without properties.columns and properties.rows');
  }
  const names = properties.columns.map((c: unknown) => String((c as { name?: unknown })?.name ?? '').toLowerCase());
  const column = (name: string) => {
    const i = names.indexOf(name.toLowerCase());
    if (i < 0) throw new Error(`Cost Management answered without a ${name} column (columns: ${names.join(', ')})`);
    return i;
  };
  const costAt = names.findIndex((n) => COST_COLUMNS.includes(n));
  if (costAt < 0) throw new Error(`Cost Management answered without a cost column (columns: ${names.join(', ')})`);
  const dayAt = column('UsageDate');
  const currencyAt = column('Currency');
  const dimensionAt = dimensions.map((d) => [d, column(d)] as const);
  const tagsAt = names.indexOf('tags');

  return properties.rows.map((row: unknown, i: number): CostRow => {
    if (!Array.isArray(row) || row.length !== names.length)
      throw new Error(`Cost Management row ${i} does not match its columns`);
    const cost = typeof row[costAt] === 'string' ? Number(row[costAt]) : row[costAt];
    if (typeof cost !== 'number' || !Number.isFinite(cost))
      throw new Error(`Cost Management row ${i} has no numeric cost`);
    const dimensionValues = {} as Record<Dimension, string>;
    for (const [d, at] of dimensionAt) dimensionValues[d] = row[at] == null ? '' : String(row[at]);
    return {
      day: usageDay(row[dayAt], i),
      dimensions: dimensionValues,
      tags: tagsAt < 0 ? {} : parseTags(row[tagsAt]),
      cost,
      currency: String(row[currencyAt] ?? ''),
    };
  });
}

/** `UsageDate` is a number (`20240501`) in daily answers; the ISO form date columns take elsewhere is accepted too. */
function usageDay(v: unknown, row: number): string {
  const s = String(v ?? '');
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s) ?? /^(\d{4})-(\d{2})-(\d{2})(?:T|$)/.exec(s);
  if (!m) throw new Error(`Cost Management row ${row} has no usage date (${s})`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/**
 * The `Tags` column lists a resource's tags as `"key":"value"` strings (`["\"env\":\"prod\"", ...]`), each a JSON
 * object member without its braces.
 */
export function parseTags(v: unknown): Record<string, string> {
  const tags: Record<string, string> = {};
  if (!Array.isArray(v)) return tags;
  for (const entry of v) {
    if (typeof entry !== 'string') continue;
    try {
      const member: unknown = JSON.parse(`{${entry}}`);
      for (const [key, value] of Object.entries(member as Record<string, unknown>)) tags[key] = String(value ?? '');
    } catch {
      const colon = entry.indexOf(':');
      if (colon > 0) tags[unquote(entry.slice(0, colon))] = unquote(entry.slice(colon + 1));
    }
  }
  return tags;
}

function unquote(s: string): string {
  return s.trim().replace(/^"(.*)"$/, '$1');
}
