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
const LOG_GAMMA = Math.log(GAMMA);

/** The stored form: `z` values ≤ 0, `b` [bucket index, count] pairs by index. */
export interface EncodedHistogram {
  z: number;
  b: Array<[number, number]>;
}

/** The bucket index of a positive value. */
export const bucketOf = (value: number): number => Math.ceil(Math.log(value) / LOG_GAMMA);

/** The value bucket `index` stands for: the middle, relatively, of (γ^(i-1), γ^i]. */
export const representative = (index: number): number => (2 * GAMMA ** index) / (GAMMA + 1);

export class Histogram {
  private zero = 0;
  private readonly counts = new Map<number, number>();

  /** Values counted. */
  get count(): number {
    let n = this.zero;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  add(value: number, times = 1): void {
    if (value <= 0) this.zero += times;
    else this.addToBucket(bucketOf(value), times);
  }

  merge(other: Histogram | EncodedHistogram): void {
    const { z, b } = other instanceof Histogram ? other.encode() : other;
    this.zero += z;
    for (const [index, count] of b) this.addToBucket(index, count);
  }

  /**
   * The `percent`th percentile by nearest rank over the counts, as {@link nearestRank} reads it over values: the
   * smallest bucket at least `percent` % of the values are in or below, as its representative value (0 for the zero
   * bucket). Null when empty.
   */
  percentile(percent: number): number | null {
    const total = this.count;
    if (total === 0) return null;
    const rank = Math.ceil((percent * total) / 100);
    if (rank <= this.zero) return 0;
    let seen = this.zero;
    for (const [index, count] of this.sorted()) {
      seen += count;
      if (seen >= rank) return representative(index);
    }
    return null;
  }

  encode(): EncodedHistogram {
    return { z: this.zero, b: this.sorted() };
  }

  static decode(encoded: EncodedHistogram): Histogram {
    const h = new Histogram();
    h.merge(encoded);
    return h;
  }

  private addToBucket(index: number, count: number): void {
    this.counts.set(index, (this.counts.get(index) ?? 0) + count);
  }

  private sorted(): Array<[number, number]> {
    return [...this.counts.entries()].sort(([a], [b]) => a - b);
  }
}
