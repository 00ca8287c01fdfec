import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { invalid } from './domain-errors';
import { MAX_TIME_MS } from './time';

/**
 * Keyset paging. A newest-first listing continues after the (time, id) of its last row ({@link Cursor}). A listing
 * that can be sorted several ways (sessions, traces, incidents, deliveries). A page continues
 * after the (sort value, id) of its last row, so ties on the value are broken by the id and no row is skipped or
 * repeated however deep the paging goes. The cursor also names the sort and order it was made under: read under
 * another, its position would mean nothing, so it is refused rather than read.
 */

export const SORT_ORDERS = ['desc', 'asc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

const NOT_A_CURSOR = 'cursor is not a cursor this API returned (use next_cursor from the previous page)';
const notACursor = () => invalid(NOT_A_CURSOR, 'invalid_request', { field: 'cursor' });

/** Position after the last row of a page: newest-first order is (time desc, tiebreak desc). */
export interface Cursor {
  t: number;
  k: number | string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

/**
 * A `cursor` parameter: a position this API returned. Its key is a row id (`'number'`) or a text key (`'string'`)
 * depending on the listing; decoded, it is checked like any parameter, since a client can forge one.
 */
export function decodeCursor(raw: string | undefined, key: 'number'): (Cursor & { k: number }) | undefined;
export function decodeCursor(raw: string | undefined, key: 'string'): (Cursor & { k: string }) | undefined;
export function decodeCursor(raw: string | undefined, key?: 'number' | 'string'): Cursor | undefined;
export function decodeCursor(raw: string | undefined, key?: 'number' | 'string'): Cursor | undefined {
  if (raw === undefined || raw === '') return undefined;
  let v: Partial<Cursor> | null = null;
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor> | null;
  } catch {
    // answered below
  }
  const t = v?.t;
  const k = v?.k;
  const timeOk = typeof t === 'number' && Number.isSafeInteger(t) && Math.abs(t) <= MAX_TIME_MS;
  const keyOk = typeof k === 'number' ? Number.isSafeInteger(k) : typeof k === 'string' && !k.includes('\u0000');
  if (timeOk && keyOk && (key === undefined || typeof k === key)) return { t, k: k as number | string };
  throw notACursor();
}

/**
 * A newest-first page from the `limit + 1` rows a keyset query read: the first `limit` as JSON, and the cursor after
 * the last of them when there are more.
 */
export function keysetPage<R, J>(
  rows: readonly R[],
  limit: number,
  toJson: (row: R) => J,
  position: (row: R) => Cursor,
): { data: J[]; next_cursor: string | null } {
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return { data: kept.map(toJson), next_cursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}

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
    throw invalid(
      `cursor belongs to a listing sorted by ${tag.replace('.', ' ')}, not ${ks.sort} ${ks.order}: page on with the same sort and order`,
      'invalid_request',
      { field: 'cursor' },
    );
  }
  if (tag !== tagOf(ks.sort, ks.order) || !validValue(t, ks.value) || typeof k !== 'string' || k.includes('\u0000')) {
    throw notACursor();
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
