import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import { advance, EMPTY_READ_STATE, type ReadState } from './gaps';
import type { DetectionTrx } from './groups';
import { idIn, rangeChunks, type IdRange } from './id-ranges';
import type { DetectionSource, DetectionTables } from './tables';

type CursorRow = Selectable<DetectionTables['detection_cursors']>;

/** The database or a transaction on it: batches are read outside the transaction that counts them. */
export type DetectionReader = Kysely<Database & DetectionTables>;

/** A table's read cursor as the transaction locked it. */
export interface Cursor {
  source: DetectionSource;
  state: ReadState;
}

/** What a batch takes from one table. */
export interface ReadBatch {
  /** The ids to count, ascending; none was counted before and none will be again. */
  counted: number[];
  /** The cursor to save once they are counted. */
  next: Cursor;
  /** More rows may follow right away (a read was full). */
  more: boolean;
}

/**
 * Marks kept per cursor (gaps.ts): a batch adds at most one, and only while more than `maxGaps` gaps are open; 64 is
 * more than the detection runs of a dozen processes within one `holeSettleMs`.
 */
const MAX_MARKS = 64;

const cursorOf = (source: DetectionSource, row: CursorRow): Cursor => {
  const { gaps, marks } = JSON.parse(row.pending) as Pick<ReadState, 'gaps' | 'marks'>;
  return { source, state: { lastId: Number(row.last_id), gaps, marks } };
};

/** A table's read cursor as last saved, without a lock: where the next batch is read from. */
export async function readCursor(db: DetectionReader, source: DetectionSource): Promise<Cursor> {
  const row = await db
    .selectFrom('detection_cursors')
    .selectAll()
    .where('source', '=', source)
    .executeTakeFirstOrThrow();
  return cursorOf(source, row);
}

/**
 * Takes a table's read cursor for the transaction. The first statement writes, so the transaction holds the lock from
 * the start: a row lock on PostgreSQL, and SQLite's write lock before anything is read (a read-then-write transaction
 * would fail with SQLITE_BUSY when ingest committed in between).
 */
export async function lockCursor(trx: DetectionTrx, source: DetectionSource): Promise<Cursor> {
  const row: CursorRow = await trx
    .updateTable('detection_cursors')
    .set((eb) => ({ last_id: eb.ref('last_id') }))
    .where('source', '=', source)
    .returningAll()
    .executeTakeFirstOrThrow();
  return cursorOf(source, row);
}

/** Whether two reads of a cursor found it where it was: no batch was saved in between. */
export const sameCursor = (a: Cursor, b: Cursor): boolean =>
  a.source === b.source && JSON.stringify(a.state) === JSON.stringify(b.state);

/** Ids of `source` in `ranges`, ascending, at most `limit`; `full` when the limit may have cut the list short. */
async function idsIn(
  trx: DetectionReader,
  source: DetectionSource,
  ranges: readonly IdRange[],
  limit: number,
): Promise<{ ids: number[]; full: boolean }> {
  const ids: number[] = [];
  for (const chunk of rangeChunks(ranges)) {
    const left = limit - ids.length;
    const rows = await trx.selectFrom(source).select('id').where(idIn(chunk)).orderBy('id').limit(left).execute();
    ids.push(...rows.map((r) => Number(r.id)));
    if (rows.length === left) return { ids, full: true };
  }
  return { ids, full: false };
}

/**
 * The next rows of `source` to count: those that appeared in the gaps the cursor remembers, and those after it (gaps.ts
 * says which, and why nothing is counted twice or skipped). On PostgreSQL a missing id is an insert that has not
 * committed yet (concurrent requests commit out of id order) or never will; SQLite's row ids (no AUTOINCREMENT) are the
 * largest plus one, so there only deleted rows leave gaps.
 */
export async function readBatch(
  trx: DetectionReader,
  cursor: Cursor,
  now: number,
  limits: { batchSize: number; holeSettleMs: number; maxGaps: number },
): Promise<ReadBatch> {
  const { source } = cursor;
  let state = cursor.state;
  const { max } = await trx
    .selectFrom(source)
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirstOrThrow();
  // SQLite reuses row ids once every row was deleted (retention after a long silence): then start again from the top.
  const maxId = Number(max ?? 0);
  if (maxId < state.lastId) state = EMPTY_READ_STATE;

  // Each read has its own row limit, so rows that came into gaps never hold back the rows after the cursor.
  const inGaps = await idsIn(
    trx,
    source,
    state.gaps.map((g) => [g.from, g.to] as const),
    limits.batchSize,
  );
  const after = (
    await trx
      .selectFrom(source)
      .select('id')
      .where('id', '>', state.lastId)
      .orderBy('id')
      .limit(limits.batchSize)
      .execute()
  ).map((r) => Number(r.id));
  const { next, counted, more } = advance(
    state,
    { inGaps: inGaps.ids, gapsFull: inGaps.full, after, afterFull: after.length === limits.batchSize, maxId },
    now,
    { holeSettleMs: limits.holeSettleMs, maxGaps: limits.maxGaps, maxMarks: MAX_MARKS },
  );
  return { counted, next: { source, state: next }, more };
}

export async function saveCursor(trx: DetectionTrx, cursor: Cursor): Promise<void> {
  const { lastId, gaps, marks } = cursor.state;
  await trx
    .updateTable('detection_cursors')
    .set({ last_id: lastId, pending: JSON.stringify({ gaps, marks }) })
    .where('source', '=', cursor.source)
    .execute();
}
