import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/schema';
import { afterPosition, encodeSortedCursor, readSortedCursor, type KeysetSort, type SortOrder } from '../shared/keyset';
import type { SessionSort } from './schemas';

/**
 * Order and keyset paging of the sessions listing (shared/keyset.ts). Every sort is a column with an index of the form
 * (project_id, column, session_id) (migration 0016), and a page continues after the (column value, session id) of the
 * last row, so each page is one index range scan however deep it is.
 */
export type SortColumn = keyof Pick<Database['sessions'], 'last_ms' | 'first_ms' | 'duration_ms' | 'error_count'>;
export type { SortOrder };

export const SORT_COLUMN: Record<SessionSort, SortColumn> = {
  last_seen: 'last_ms',
  first_seen: 'first_ms',
  duration: 'duration_ms',
  errors: 'error_count',
};

/** Cursors from before sorting existed have no sort and were newest-first by last activity. */
const keyset = (sort: SessionSort, order: SortOrder): KeysetSort => ({
  sort,
  order,
  value: 'integer',
  defaultSort: 'last_seen',
});

export function encodeSessionCursor(sort: SessionSort, order: SortOrder, value: number, sessionId: string): string {
  return encodeSortedCursor(keyset(sort, order), { t: value, k: sessionId });
}

/** The `cursor` parameter for this sort and order (a cursor of another order is refused: it would skip or repeat rows). */
export function readSessionCursor(
  raw: string | undefined,
  sort: SessionSort,
  order: SortOrder,
): { t: number | string; k: string } | undefined {
  return readSortedCursor(raw, keyset(sort, order));
}

/** Rows after the cursor in the listing's order: the (value, session id) pair beyond the cursor's. */
export function afterCursor(
  column: SortColumn,
  order: SortOrder,
  cursor: { t: number | string; k: string },
): RawBuilder<SqlBool> {
  return afterPosition({ order, value: 'integer' }, sql.ref(`s.${column}`), sql.ref('s.session_id'), cursor);
}
