import { bucketOf, Histogram } from '../../vitals/rollup/histogram';

/**
 * A long window's percentile from its slots' log-bucketed histograms (vitals/rollup/histogram.ts: within 0.99 % of the
 * value by nearest rank), each bucket with the least and greatest value it holds: the answer is the bucket's
 * representative moved into that range, so a bucket of one distinct value (an LCP that was 6000 ms every time, a CLS
 * of 0) answers that value exactly, and no answer lies outside what was measured.
 */

/** The index the values ≤ 0 are kept under (bucket indexes are clamped to ±1200). */
export const ZERO_INDEX = -1201;
const MAX_INDEX = 1200;

/** One slot's buckets, as kept (slot-cache.ts): parallel arrays by bucket. */
export interface SlotBuckets {
  indexes: Int32Array;
  counts: Float64Array;
  lows: Float64Array;
  highs: Float64Array;
}

/** A bucket as the database answers it: its index (null for values ≤ 0), count, least and greatest value. */
export interface BucketRow {
  index: number | null;
  count: number;
  low: number;
  high: number;
}

const clampIndex = (i: number) => Math.min(Math.max(i, -MAX_INDEX), MAX_INDEX);

/** A slot's buckets from the database's rows (the same index twice only after clamping: merged). */
export function slotBuckets(rows: readonly BucketRow[]): SlotBuckets {
  const merged = new Map<number, BucketRow>();
  for (const row of rows) {
    const index = row.index === null ? ZERO_INDEX : clampIndex(row.index);
    const seen = merged.get(index);
    if (!seen) merged.set(index, { ...row, index });
    else
      merged.set(index, {
        index,
        count: seen.count + row.count,
        low: Math.min(seen.low, row.low),
        high: Math.max(seen.high, row.high),
      });
  }
  const buckets = [...merged.values()];
  return {
    indexes: Int32Array.from(buckets, (b) => b.index!),
    counts: Float64Array.from(buckets, (b) => b.count),
    lows: Float64Array.from(buckets, (b) => b.low),
    highs: Float64Array.from(buckets, (b) => b.high),
  };
}

export class WindowHistogram {
  private readonly histogram = new Histogram();
  /** [least, greatest] value by bucket index. */
  private readonly extremes = new Map<number, [number, number]>();

  add(slot: SlotBuckets): void {
    for (let b = 0; b < slot.indexes.length; b++) {
      const index = slot.indexes[b]!;
      this.histogram.addBucket(index === ZERO_INDEX ? null : index, slot.counts[b]!);
      const range = this.extremes.get(index);
      if (!range) this.extremes.set(index, [slot.lows[b]!, slot.highs[b]!]);
      else this.extremes.set(index, [Math.min(range[0], slot.lows[b]!), Math.max(range[1], slot.highs[b]!)]);
    }
  }

  /** The `percent`th percentile (see above); null when empty. */
  percentile(percent: number): number | null {
    const representative = this.histogram.percentile(percent);
    if (representative === null) return null;
    const index = representative === 0 ? ZERO_INDEX : clampIndex(bucketOf(representative));
    const range = this.extremes.get(index);
    return range ? Math.min(Math.max(representative, range[0]), range[1]) : representative;
  }
}
