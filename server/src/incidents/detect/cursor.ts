import type { Selectable } from 'kysely';
import type { DetectionTrx } from './groups';
import type { DetectionSource, DetectionTables } from './tables';

type CursorRow = Selectable<DetectionTables['detection_cursors']>;

/** Rows `(from, to]` of a table are ready to count; `next` is the cursor to save once they are. */
export interface ReadRange {
  from: number;
  to: number;
  next: CursorRow;
  /** More rows may follow right away (the batch was full). */
  more: boolean;
}

/**
 * Takes a table's read cursor for the transaction. The first statement writes, so the transaction holds the lock from
 * the start: a row lock on PostgreSQL, and SQLite's write lock before anything is read (a read-then-write transaction
 * would fail with SQLITE_BUSY when ingest committed in between).
 */
export async function lockCursor(trx: DetectionTrx, source: DetectionSource): Promise<CursorRow> {
  return trx
    .updateTable('detection_cursors')
    .set((eb) => ({ last_id: eb.ref('last_id') }))
    .where('source', '=', source)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The next rows of `source` that can be counted without skipping any: ids are read in order up to the first missing
 * one. On PostgreSQL a missing id is usually an insert that has not committed yet (concurrent requests commit out of
 * id order), so the rows after it wait; an id still missing after `holeSettleMs` was rolled back and is passed over.
 */
export async function readRange(
  trx: DetectionTrx,
  source: DetectionSource,
  cursor: CursorRow,
  now: number,
  limits: { batchSize: number; holeSettleMs: number },
): Promise<ReadRange> {
  const from = cursor.last_id;
  const ids = (await trx.selectFrom(source).select('id').where('id', '>', from).orderBy('id').limit(limits.batchSize).execute()).map((r) => Number(r.id));
  if (ids.length === 0) {
    // SQLite reuses row ids once every row was deleted (retention after a long silence): then start again from the top.
    const { max } = await trx.selectFrom(source).select((eb) => eb.fn.max('id').as('max')).executeTakeFirstOrThrow();
    if (Number(max ?? 0) < from) return readRange(trx, source, { source, last_id: 0, hole_id: null, hole_since_ms: null }, now, limits);
    return { from, to: from, next: cursor, more: false };
  }
  let to = from;
  for (const id of ids) {
    const missing = to + 1;
    if (id !== missing) {
      const since = cursor.hole_id === missing && cursor.hole_since_ms !== null ? cursor.hole_since_ms : now;
      if (now - since < limits.holeSettleMs) {
        return { from, to, next: { source, last_id: to, hole_id: missing, hole_since_ms: since }, more: false };
      }
    }
    to = id;
  }
  return { from, to, next: { source, last_id: to, hole_id: null, hole_since_ms: null }, more: ids.length === limits.batchSize };
}

export async function saveCursor(trx: DetectionTrx, cursor: CursorRow): Promise<void> {
  await trx
    .updateTable('detection_cursors')
    .set({ last_id: cursor.last_id, hole_id: cursor.hole_id, hole_since_ms: cursor.hole_since_ms })
    .where('source', '=', cursor.source)
    .execute();
}
