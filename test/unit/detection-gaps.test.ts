import { describe, expect, it } from 'vitest';
import { advance, EMPTY_READ_STATE, type GapLimits, type ReadState } from '../../server/src/incidents/detect/gaps';

/**
 * The detector's cursor over a table with id gaps (server/src/incidents/detect/gaps.ts), read as cursor.ts reads it: a
 * table is a list of ids with the time each becomes visible (its commit; never for a rolled-back one). The database
 * side of the same reads runs in test/integration/detection-gaps.test.ts.
 */

const SETTLE = 30_000;
const INTERVAL = 10_000;
const T = 1_800_000_000_000;

interface Row {
  id: number;
  /** When its insert commits; Infinity when it never does. */
  commitAt: number;
}

class Detector {
  state: ReadState = EMPTY_READ_STATE;
  /** How often each id was counted, and when first. */
  readonly counts = new Map<number, number>();
  readonly countedAt = new Map<number, number>();

  constructor(
    readonly limits: GapLimits = { holeSettleMs: SETTLE, maxGaps: 256, maxMarks: 64 },
    readonly batchSize = 2000,
  ) {}

  /** One detection run at `now`: batches until none is full, like detector.ts's runOnce. Returns the ids counted. */
  run(rows: readonly Row[], now: number): number[] {
    const visible = rows
      .filter((r) => r.commitAt <= now)
      .map((r) => r.id)
      .sort((a, b) => a - b);
    const counted: number[] = [];
    for (let more = true; more; ) {
      const { gaps, lastId } = this.state;
      // Ids in the gaps (both lists ascending), then after the cursor, each read limited as cursor.ts limits it.
      const inGaps: number[] = [];
      let i = 0;
      for (const gap of gaps) {
        while (i < visible.length && visible[i]! < gap.from) i++;
        while (i < visible.length && visible[i]! <= gap.to && inGaps.length < this.batchSize)
          inGaps.push(visible[i++]!);
      }
      const firstAfter = visible.findIndex((id) => id > lastId);
      const after = firstAfter < 0 ? [] : visible.slice(firstAfter, firstAfter + this.batchSize);
      const scan = {
        inGaps,
        gapsFull: inGaps.length === this.batchSize,
        after,
        afterFull: after.length === this.batchSize,
        maxId: visible.at(-1) ?? 0,
      };
      const step = advance(this.state, scan, now, this.limits);
      this.state = step.next;
      counted.push(...step.counted);
      more = step.more;
    }
    for (const id of counted) {
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
      if (!this.countedAt.has(id)) this.countedAt.set(id, now);
    }
    return counted;
  }
}

const committed = (ids: number[], at = T): Row[] => ids.map((id) => ({ id, commitAt: at }));
/** 1, 3, 5, … 2n+1: n one-id gaps, as n rolled-back inserts between committed ones leave them. */
const oddIds = (n: number) => Array.from({ length: n + 1 }, (_, i) => 2 * i + 1);

describe('detection cursor over id gaps', () => {
  it('counts the rows after a dozen gaps at once, and lets every gap go after one wait from its first sight', () => {
    const detector = new Detector();
    const rows = committed(oddIds(12));
    expect(detector.run(rows, T)).toEqual(oddIds(12));
    expect(detector.state.gaps).toHaveLength(12);
    expect(detector.state.gaps.every((g) => g.since === T)).toBe(true);

    // A row after the gaps, later: counted at once too.
    rows.push({ id: 27, commitAt: T + INTERVAL });
    expect(detector.run(rows, T + INTERVAL)).toEqual([27]);
    expect(detector.state.gaps).toHaveLength(13);

    expect(detector.run(rows, T + SETTLE - 1)).toEqual([]);
    expect(detector.state.gaps).toHaveLength(13);
    // All twelve seen at T settle together; the thirteenth, first seen later, waits its own 30 s.
    detector.run(rows, T + SETTLE);
    expect(detector.state.gaps).toEqual([{ from: 26, to: 26, since: T + INTERVAL }]);
    detector.run(rows, T + INTERVAL + SETTLE);
    expect(detector.state).toEqual({ lastId: 27, gaps: [], marks: [] });
  });

  it('counts a row that commits late inside a gap once, when it commits', () => {
    const detector = new Detector();
    // Ids 2 to 400 taken at once (a retried batch whose rows all conflicted burns a range): one gap, not 399.
    const late: Row = { id: 200, commitAt: Infinity };
    const rows = [...committed([1, 401, 402]), late];
    expect(detector.run(rows, T)).toEqual([1, 401, 402]);
    expect(detector.state.gaps).toEqual([{ from: 2, to: 400, since: T }]);

    late.commitAt = T + 5_000;
    expect(detector.run(rows, T + 5_000)).toEqual([200]);
    expect(detector.state.gaps).toEqual([
      { from: 2, to: 199, since: T },
      { from: 201, to: 400, since: T },
    ]);
    expect(detector.run(rows, T + 15_000)).toEqual([]);
    expect(detector.run(rows, T + SETTLE)).toEqual([]);
    expect(detector.state.gaps).toEqual([]);
    expect([...detector.counts.values()].every((n) => n === 1)).toBe(true);
  });

  it('does not count a row that commits after its gap settled (it was taken for rolled back)', () => {
    const detector = new Detector();
    const rows: Row[] = [...committed([1, 3]), { id: 2, commitAt: T + SETTLE + 1 }];
    detector.run(rows, T);
    detector.run(rows, T + SETTLE);
    expect(detector.run(rows, T + SETTLE + 1)).toEqual([]);
    expect(detector.counts.has(2)).toBe(false);
  });

  it('past more open gaps than it keeps, makes the rows after them wait one gap wait, however many gaps there are', () => {
    const detector = new Detector({ holeSettleMs: SETTLE, maxGaps: 3, maxMarks: 64 });
    const rows = committed(oddIds(12));
    // Three gaps kept (2, 4, 6); the fourth (8) holds back the rest, and the cursor notes it looked up to 25 at T.
    expect(detector.run(rows, T)).toEqual([1, 3, 5, 7]);
    expect(detector.state.marks).toEqual([{ to: 25, since: T }]);
    expect(detector.run(rows, T + INTERVAL)).toEqual([]);
    expect(detector.run(rows, T + SETTLE - 1)).toEqual([]);
    // Every gap was missing at T: all settle at T + 30 s, not one after the other.
    expect(detector.run(rows, T + SETTLE)).toEqual(oddIds(12).slice(4));
    expect(detector.state).toEqual({ lastId: 25, gaps: [], marks: [] });
  });

  it('marks up to the newest row, beyond what one read takes, so rows far past the gaps wait no longer', () => {
    const detector = new Detector({ holeSettleMs: SETTLE, maxGaps: 1, maxMarks: 64 }, 4);
    // Gaps at 2 and 4, then 50 rows in a row, then a gap at 56.
    const ids = [1, 3, ...Array.from({ length: 50 }, (_, i) => 5 + i), 57];
    const rows = committed(ids);
    expect(detector.run(rows, T)).toEqual([1, 3]);
    expect(detector.state.marks).toEqual([{ to: 57, since: T }]);
    expect(detector.run(rows, T + SETTLE)).toEqual(ids.slice(2));
  });

  it('leaves a late row inside a gap uncounted while splitting the gap would exceed the bound, and counts it once when the gap settles', () => {
    const detector = new Detector({ holeSettleMs: SETTLE, maxGaps: 2, maxMarks: 64 });
    const late: Row = { id: 5, commitAt: Infinity };
    const rows = [...committed([1, 11, 13]), late];
    detector.run(rows, T);
    expect(detector.state.gaps).toEqual([
      { from: 2, to: 10, since: T },
      { from: 12, to: 12, since: T },
    ]);
    late.commitAt = T + 1_000;
    expect(detector.run(rows, T + 1_000)).toEqual([]);
    expect(detector.run(rows, T + SETTLE)).toEqual([5]);
    expect(detector.run(rows, T + SETTLE + INTERVAL)).toEqual([]);
    expect(detector.state.gaps).toEqual([]);
  });

  it('settles a gap only as far as a read cut short by its row limit reached, so no committed row in it is passed over', () => {
    const detector = new Detector({ holeSettleMs: SETTLE, maxGaps: 256, maxMarks: 64 }, 2);
    const inside = [3, 4, 5].map((id) => ({ id, commitAt: Infinity }));
    const rows = [...committed([1, 11]), ...inside];
    detector.run(rows, T);
    expect(detector.state.gaps).toEqual([{ from: 2, to: 10, since: T }]);
    for (const row of inside) row.commitAt = T + SETTLE;
    // Two rows per read: the first read of the gap stops at 4, so only 2 to 4 settle; the next read finds 5.
    expect(detector.run(rows, T + SETTLE)).toEqual([3, 4, 5]);
    expect(detector.state).toEqual({ lastId: 11, gaps: [], marks: [] });
  });

  describe('random ingest: out-of-order commits, rollbacks, burnt ranges', () => {
    /** mulberry32: a reproducible run. */
    const random = (seed: number) => () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };

    /** Ingest for `seconds`, a detection run every INTERVAL, until everything settled. */
    function simulate(detector: Detector, seed: number, seconds = 400) {
      const next = random(seed);
      const rows: Array<Row & { takenAt: number }> = [];
      let id = 0;
      for (let s = 0; s < seconds; s++) {
        const at = T + s * 1000;
        for (let n = Math.floor(next() * 4); n > 0; n--) {
          const size = next() < 0.1 ? 1 + Math.floor(next() * 60) : 1 + Math.floor(next() * 4);
          const fate = next();
          // Most commit within 3 s; some take longer; a few outlive the gap wait, roll back, or conflict (burn ids).
          const commitAt =
            fate < 0.7
              ? at + Math.floor(next() * 3000)
              : fate < 0.85
                ? at + Math.floor(next() * 25_000)
                : fate < 0.9
                  ? at + 35_000
                  : Infinity;
          for (let k = 0; k < size; k++) rows.push({ id: ++id, commitAt, takenAt: at });
        }
        if (s % (INTERVAL / 1000) === 0) detector.run(rows, at);
      }
      for (let at = T + seconds * 1000; at <= T + (seconds + 120) * 1000; at += INTERVAL) detector.run(rows, at);
      return rows;
    }

    it.each([1, 2, 3, 4, 5])(
      'counts every row once and at most one detection interval after it commits, while the gaps fit (seed %i)',
      (seed) => {
        const detector = new Detector({ holeSettleMs: SETTLE, maxGaps: 100_000, maxMarks: 64 }, 7);
        const rows = simulate(detector, seed);
        for (const row of rows) {
          const times = detector.counts.get(row.id) ?? 0;
          if (row.commitAt === Infinity) expect(times, `id ${row.id} never committed`).toBe(0);
          else if (row.commitAt - row.takenAt < SETTLE) {
            expect(times, `id ${row.id}`).toBe(1);
            expect(detector.countedAt.get(row.id)! - row.commitAt, `id ${row.id}`).toBeLessThanOrEqual(INTERVAL);
          } else expect(times).toBeLessThanOrEqual(1);
        }
      },
    );

    it.each([1, 2, 3, 4, 5])(
      'with more gaps than it keeps: once, and within one interval plus one gap wait (seed %i)',
      (seed) => {
        const detector = new Detector({ holeSettleMs: SETTLE, maxGaps: 3, maxMarks: 64 }, 7);
        const rows = simulate(detector, seed);
        expect(detector.state.marks.length).toBe(0);
        let waited = 0;
        for (const row of rows) {
          const times = detector.counts.get(row.id) ?? 0;
          if (row.commitAt === Infinity) expect(times).toBe(0);
          else if (row.commitAt - row.takenAt < SETTLE) {
            expect(times, `id ${row.id}`).toBe(1);
            const latency = detector.countedAt.get(row.id)! - row.commitAt;
            expect(latency, `id ${row.id}`).toBeLessThanOrEqual(INTERVAL + SETTLE);
            if (latency > INTERVAL) waited++;
          } else expect(times).toBeLessThanOrEqual(1);
        }
        // The bound was reached: these runs did hold rows back.
        expect(waited).toBeGreaterThan(0);
      },
    );

    it.each([1, 2, 3])('merging marks past their limit loses no row and counts none twice (seed %i)', (seed) => {
      const detector = new Detector({ holeSettleMs: SETTLE, maxGaps: 2, maxMarks: 1 }, 5);
      const rows = simulate(detector, seed);
      for (const row of rows) {
        const times = detector.counts.get(row.id) ?? 0;
        if (row.commitAt === Infinity) expect(times).toBe(0);
        else if (row.commitAt - row.takenAt < SETTLE) expect(times, `id ${row.id}`).toBe(1);
        else expect(times).toBeLessThanOrEqual(1);
      }
    });
  });
});
