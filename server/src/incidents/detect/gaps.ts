/**
 * Which rows of a table the detector has counted, with gaps in the ids, and how the next read moves that on. Pure: the
 * reads are cursor.ts's.
 *
 * Ids are counted past gaps at once. Every missing range after the cursor is remembered with the time a detector first
 * saw it missing; a row that commits into it later is counted then, once, and the range is forgotten once it has been
 * missing for `holeSettleMs` (rolled back, or ids an `INSERT … ON CONFLICT DO NOTHING` took). So no gap holds back the
 * rows after it, and a gap's wait runs from its first sight, whatever other gaps there are.
 *
 * The ranges are bounded (`maxGaps`). When more are open, the cursor stops before the next one and remembers up to
 * where it looked, and when (a mark): the ranges missing there are timed from then, so even then the rows past any
 * number of gaps wait at most one `holeSettleMs`.
 */

/** Ids `from`..`to` were missing when a detector first saw them, at `since`; none is counted yet. */
export interface Gap {
  from: number;
  to: number;
  since: number;
}

/**
 * Ids after the previous mark (or the cursor) up to `to` were not counted when a detector looked at `since`: too many
 * gaps were open. Any of them missing later was missing then, so its wait runs from then.
 */
export interface Mark {
  to: number;
  since: number;
}

export interface ReadState {
  /** Every id up to here is counted, in a gap, or was missing for `holeSettleMs`. */
  lastId: number;
  /** Ascending, disjoint, all at most `lastId`. */
  gaps: Gap[];
  /** Ascending, all above `lastId`, `since` not decreasing. */
  marks: Mark[];
}

export const EMPTY_READ_STATE: ReadState = { lastId: 0, gaps: [], marks: [] };

export interface GapLimits {
  holeSettleMs: number;
  maxGaps: number;
  /** Marks kept: more merge into the newest, which only makes its ids wait longer. */
  maxMarks: number;
}

/** What the reads found, ascending: ids present inside the gaps, and after `lastId`; `…Full` when a read hit its row limit. */
export interface Scan {
  inGaps: number[];
  gapsFull: boolean;
  after: number[];
  afterFull: boolean;
  /** The largest id present when the reads began. */
  maxId: number;
}

export interface Advance {
  next: ReadState;
  /** The ids to count now, ascending: each id is returned once, ever. */
  counted: number[];
  /** Rows may be left that the next read can take right away. */
  more: boolean;
}

/** The gap less the ids found in it (ascending, all inside it): the ranges still missing. */
function without(gap: Gap, found: number[]): Gap[] {
  const pieces: Gap[] = [];
  let from = gap.from;
  for (const id of found) {
    if (id > from) pieces.push({ from, to: id - 1, since: gap.since });
    from = id + 1;
  }
  if (from <= gap.to) pieces.push({ from, to: gap.to, since: gap.since });
  return pieces;
}

/** When ids up to `id` after the cursor were first seen: at the mark that covers `id`, else now. */
function firstSeen(marks: Mark[], id: number, now: number): number {
  return marks.find((m) => m.to >= id)?.since ?? now;
}

function withMark(marks: Mark[], to: number, now: number, maxMarks: number): Mark[] {
  const last = marks[marks.length - 1];
  if (last && last.to >= to) return marks;
  // Merging into the newest mark gives its ids a later first sight: they may wait longer, never less than they must.
  if (marks.length >= maxMarks) return [...marks.slice(0, -1), { to, since: now }];
  return [...marks, { to, since: now }];
}

/** The state after one batch has read `scan` at `now`, and what that batch counts (the rules at the top of this file). */
export function advance(state: ReadState, scan: Scan, now: number, limits: GapLimits): Advance {
  const settled = (since: number) => now - since >= limits.holeSettleMs;
  const counted: number[] = [];
  const gaps: Gap[] = [];

  // A read cut short by its row limit saw every row of the gaps only up to the last it returned.
  const known = scan.gapsFull ? scan.inGaps[scan.inGaps.length - 1]! : Infinity;
  let next = 0;
  state.gaps.forEach((gap, i) => {
    const found: number[] = [];
    while (next < scan.inGaps.length && scan.inGaps[next]! <= gap.to) found.push(scan.inGaps[next++]!);
    if (settled(gap.since)) {
      // What came is counted; the ids still missing that the read covered were rolled back.
      counted.push(...found);
      if (gap.to > known) gaps.push({ ...gap, from: Math.max(gap.from, known + 1) });
      return;
    }
    const pieces = without(gap, found);
    const later = state.gaps.length - i - 1;
    if (pieces.length <= 1 || gaps.length + pieces.length + later <= limits.maxGaps) {
      counted.push(...found);
      gaps.push(...pieces);
    } else {
      // Splitting would exceed the bound: its rows wait until the rest of it fills or it settles.
      gaps.push(gap);
    }
  });
  // Another read of the gaps finds other rows only if this one counted some.
  const moreInGaps = scan.gapsFull && counted.length > 0;

  let lastId = state.lastId;
  let blocked = false;
  for (const id of scan.after) {
    if (id > lastId + 1) {
      const since = firstSeen(state.marks, id - 1, now);
      if (!settled(since)) {
        if (gaps.length >= limits.maxGaps) {
          blocked = true;
          break;
        }
        gaps.push({ from: lastId + 1, to: id - 1, since });
      }
    }
    counted.push(id);
    lastId = id;
  }
  let marks = state.marks.filter((m) => m.to > lastId);
  // Every id up to the largest present was taken before now, so any of them still missing later was missing now: the
  // mark covers them all, also those past this read's row limit, which the next reads will not reach until it settles.
  if (blocked) marks = withMark(marks, Math.max(scan.maxId, scan.after[scan.after.length - 1]!), now, limits.maxMarks);
  return { next: { lastId, gaps, marks }, counted, more: moreInGaps || (!blocked && scan.afterFull) };
}
