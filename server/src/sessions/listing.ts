import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/schema';
import { badRequest } from '../http/errors';
import { MAX_TIME_MS } from '../query/params';
import type { SessionSort } from '../query/schemas';

/**
 * Order and keyset paging of the sessions listing. Every sort is a column with an index of the form (project_id,
 * column, session_id) (migration 0016), and a page continues after the (column value, session id) of the last row, so
 * each page is one index range scan however deep it is.
 */
export type SortColumn = keyof Pick<Database['sessions'], 'last_ms' | 'first_ms' | 'duration_ms' | 'error_count'>;
export type SortOrder = 'asc' | 'desc';

export const SORT_COLUMN: Record<SessionSort, SortColumn> = {
  last_seen: 'last_ms',
  first_seen: 'first_ms',
  duration: 'duration_ms',
  errors: 'error_count',
};

/** Where the next page starts: the sort and order it belongs to, and the last row's sort value and session id. */
interface SessionCursor {
  s: string;
  t: number;
  k: string;
}

/** The cursor's `s`; cursors from before sorting existed have none and were newest-first by last activity. */
const sortTag = (sort: SessionSort, order: SortOrder) => `${sort}.${order}`;
const DEFAULT_TAG = sortTag('last_seen', 'desc');

export function encodeSessionCursor(sort: SessionSort, order: SortOrder, value: number, sessionId: string): string {
  return Buffer.from(JSON.stringify({ s: sortTag(sort, order), t: value, k: sessionId } satisfies SessionCursor)).toString('base64url');
}

/**
 * The `cursor` parameter, decoded and checked like any parameter (a client can forge one), for this sort and order:
 * a cursor from a listing in another order would skip or repeat rows, so it is refused rather than read.
 */
export function readSessionCursor(raw: string | undefined, sort: SessionSort, order: SortOrder): { t: number; k: string } | undefined {
  if (raw === undefined || raw === '') return undefined;
  let v: Partial<SessionCursor> | null = null;
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<SessionCursor> | null;
  } catch {
    // answered below
  }
  const t = v?.t;
  const k = v?.k;
  const valid = typeof t === 'number' && Number.isSafeInteger(t) && Math.abs(t) <= MAX_TIME_MS && typeof k === 'string' && !k.includes('\u0000');
  if (!valid) throw badRequest('cursor is not a cursor this API returned (use next_cursor from the previous page)', { field: 'cursor' });
  const tag = v?.s ?? DEFAULT_TAG;
  if (tag !== sortTag(sort, order)) {
    throw badRequest(`cursor belongs to a listing sorted by ${tag.replace('.', ' ')}, not ${sort} ${order}: page on with the same sort and order`, { field: 'cursor' });
  }
  return { t, k };
}

/** Rows after the cursor in the listing's order: the (value, session id) pair beyond the cursor's. */
export function afterCursor(column: SortColumn, order: SortOrder, cursor: { t: number; k: string }): RawBuilder<SqlBool> {
  const op = sql.raw(order === 'desc' ? '<' : '>');
  return sql<SqlBool>`(${sql.ref(`s.${column}`)}, s.session_id) ${op} (${cursor.t}, ${cursor.k})`;
}
