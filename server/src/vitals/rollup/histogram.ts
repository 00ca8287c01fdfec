/**
 * A log-bucketed histogram of non-negative values, the form Web Vitals rollups keep (docs/api.md, "Web Vitals"): a
 * value v > 0 falls in bucket i = ceil(log_γ v), which holds (γ^(i-1), γ^i]; values ≤ 0 (a CLS of 0) fall in the zero
 * bucket. A bucket stands for 2γ^i / (γ + 1), the point from which every value in it is at most (γ - 1) / (γ + 1) away
 * relatively, so any percentile read from the counts is within that of the exact one. Histograms merge by adding
 * counts, which is what lets hours add up to days and days to a month.
 */

/** Bucket growth: with 1.02 a percentile is within 0.99 % of the exact one, in ~350 buckets from 1 ms to 60 s. */
export const GAMMA = 1.02;
/** The bound on a percentile's relative error: (γ - 1) / (γ + 1). */
export const RELATIVE_ERROR = (GAMMA - 1) / (GAMMA + 1);
/** ln γ: a positive value's bucket is ceil(ln v / ln γ), in JavaScript and in SQL alike. */
export const LOG_GAMMA = Math.log(GAMMA);

/** The stored form: `z` values ≤ 0, `b` [bucket index, count] pairs by index. */
export interface EncodedHistogram {
  z: number;
  b: Array<[number, number]>;
}

/** The bucket index of a positive value. */
export const bucketOf = (value: number): number => Math.ceil(Math.log(value) / LOG_GAMMA);

/** The value bucket `index` stands for: the middle, relatively, of (γ^(i-1), γ^i]. */
export const representative = (index: number): number => (2 * GAMMA ** index) / (GAMMA + 1);

/**
 * Bucket indexes kept: γ^±1200 is 2·10^±10, far beyond any vital in ms or CLS; a value outside falls in the end bucket
 * (and only there the error bound does not hold).
 */
const MAX_INDEX = 1200;
const SIZE = 2 * MAX_INDEX + 1;

export class Histogram {
  private zero = 0;
  private total = 0;
  /** Counts by bucket index + MAX_INDEX: merging thousands of rollup rows adds into an array, not a map. */
  private readonly counts = new Float64Array(SIZE);
  /** The occupied slots lie in [low, high]. */
  private low = SIZE;
  private high = -1;

  /** Values counted. */
  get count(): number {
    return this.total;
  }

  add(value: number, times = 1): void {
    if (value <= 0) this.addZeros(times);
    else this.addToBucket(bucketOf(value), times);
  }

  /** Adds `count` values to bucket `index` (null: the zero bucket), as a bucketed read of the database answers them. */
  addBucket(index: number | null, count: number): void {
    if (index === null) this.addZeros(count);
    else this.addToBucket(index, count);
  }

  merge(other: Histogram | EncodedHistogram): void {
    if (other instanceof Histogram) {
      this.addZeros(other.zero);
      for (let slot = other.low; slot <= other.high; slot++)
        if (other.counts[slot]! > 0) this.addToBucket(slot - MAX_INDEX, other.counts[slot]!);
      return;
    }
    this.addZeros(other.z);
    for (const [index, count] of other.b) this.addToBucket(index, count);
  }

  /**
   * The `percent`th percentile by nearest rank over the counts, as {@link nearestRank} reads it over values: the
   * smallest bucket at least `percent` % of the values are in or below, as its representative value (0 for the zero
   * bucket). Null when empty.
   */
  percentile(percent: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.ceil((percent * this.total) / 100);
    if (rank <= this.zero) return 0;
    let seen = this.zero;
    for (let slot = this.low; slot <= this.high; slot++) {
      seen += this.counts[slot]!;
      if (seen >= rank) return representative(slot - MAX_INDEX);
    }
    return null;
  }

  encode(): EncodedHistogram {
    const b: Array<[number, number]> = [];
    for (let slot = this.low; slot <= this.high; slot++)
      if (this.counts[slot]! > 0) b.push([slot - MAX_INDEX, this.counts[slot]!]);
    return { z: this.zero, b };
  }

  static decode(encoded: EncodedHistogram): Histogram {
    const h = new Histogram();
    h.merge(encoded);
    return h;
  }

  private addZeros(count: number): void {
    this.zero += count;
    this.total += count;
  }

  private addToBucket(index: number, count: number): void {
    const slot = Math.min(Math.max(index, -MAX_INDEX), MAX_INDEX) + MAX_INDEX;
    this.counts[slot] = this.counts[slot]! + count;
    this.total += count;
    if (slot < this.low) this.low = slot;
    if (slot > this.high) this.high = slot;
  }
}
