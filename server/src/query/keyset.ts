import { z } from '@hono/zod-openapi';
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { badRequest } from '../http/errors';

/**
 * Keyset paging of a listing that can be sorted several ways (sessions, traces, incidents, deliveries). A page continues
 * after the (sort value, id) of its last row, so ties on the value are broken by the id and no row is skipped or
 * repeated however deep the paging goes. The cursor also names the sort and order it was made under: read under
 * another, its position would mean nothing, so it is refused rather than read.
 */

export const SORT_ORDERS = ['desc', 'asc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** The `order` parameter of a sortable listing; `description` says what desc puts first. */
export const orderQuery = (description: string) => z.enum(SORT_ORDERS).default('desc').openapi({ description });

/**
 * What a sort's values are: integers (epoch ms, counts, nanoseconds; carried as decimal text when beyond 2^53) or
 * fractional numbers (a latency). A forged cursor can carry nothing else into the query.
 */
export type SortValueKind = 'integer' | 'number';

/** One request's sort. */
export interface KeysetSort {
  sort: string;
  order: SortOrder;
  value: SortValueKind;
  /** The listing's default sort: cursors without a sort (made before the listing could be sorted) are of it, descending. */
  defaultSort: string;
}

/** The last row of a page: its sort value and its id. */
export interface Position {
  t: number | string;
  k: string;
}

interface WireCursor {
  s?: unknown;
  t?: unknown;
  k?: unknown;
}

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

function validValue(t: unknown, kind: SortValueKind): t is number | string {
  if (kind === 'number') return typeof t === 'number' && Number.isFinite(t);
  if (typeof t === 'number') return Number.isSafeInteger(t);
  if (typeof t !== 'string' || !/^-?\d{1,19}$/.test(t)) return false;
  const n = BigInt(t);
  return n >= INT64.min && n <= INT64.max;
}

const tagOf = (sort: string, order: SortOrder) => `${sort}.${order}`;

export function encodeSortedCursor(ks: KeysetSort, p: Position): string {
  return Buffer.from(JSON.stringify({ s: tagOf(ks.sort, ks.order), t: p.t, k: p.k })).toString('base64url');
}

/** The `cursor` parameter, decoded and checked like any parameter (a client can forge one), for this sort and order. */
export function readSortedCursor(raw: string | undefined, ks: KeysetSort): Position | undefined {
  if (raw === undefined || raw === '') return undefined;
  let v: WireCursor | null = null;
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as WireCursor | null;
  } catch {
    // answered below
  }
  const t = v?.t;
  const k = v?.k;
  const tag = v?.s ?? tagOf(ks.defaultSort, 'desc');
  // The sort first: another sort's value may not be of this one's kind, and the answer should say why it is refused.
  if (typeof tag === 'string' && /^\w+\.(asc|desc)$/.test(tag) && tag !== tagOf(ks.sort, ks.order)) {
    throw badRequest(
      `cursor belongs to a listing sorted by ${tag.replace('.', ' ')}, not ${ks.sort} ${ks.order}: page on with the same sort and order`,
      {
        field: 'cursor',
      },
    );
  }
  if (tag !== tagOf(ks.sort, ks.order) || !validValue(t, ks.value) || typeof k !== 'string' || k.includes('\u0000')) {
    throw badRequest('cursor is not a cursor this API returned (use next_cursor from the previous page)', {
      field: 'cursor',
    });
  }
  return { t, k };
}

/**
 * Rows after `p` in the listing's order: the (value, id) pair beyond the cursor's. The value is cast to the type of its
 * kind, so that PostgreSQL compares it as a number whatever the column (an integer column would refuse a bigint
 * parameter), and SQLite reads decimal text as the integer it is.
 */
export function afterPosition(
  ks: Pick<KeysetSort, 'order' | 'value'>,
  value: Expression<unknown>,
  id: Expression<unknown>,
  p: Position,
): RawBuilder<SqlBool> {
  const op = sql.raw(ks.order === 'desc' ? '<' : '>');
  const type = sql.raw(ks.value === 'integer' ? 'bigint' : 'double precision');
  return sql<SqlBool>`(${value}, ${id}) ${op} (cast(${p.t} as ${type}), ${p.k})`;
}

/** A page from the `limit + 1` rows a keyset query read: the first `limit` as JSON, and the cursor after the last when there are more. */
export function sortedPage<R, J>(
  rows: readonly R[],
  limit: number,
  ks: KeysetSort,
  toJson: (row: R) => J,
  position: (row: R) => Position,
) {
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return {
    data: kept.map(toJson),
    next_cursor: rows.length > limit && last ? encodeSortedCursor(ks, position(last)) : null,
  };
}
