import { Histogram, type EncodedHistogram } from './rollup/histogram';
import { nearestRank, rate, type Rating, type VitalName } from './summary';

/** What a rollup row holds of one vital's points: rating counts and the histogram of their values. */
export interface RolledFigures {
  good: number;
  needs_improvement: number;
  poor: number;
  histogram: EncodedHistogram;
}

/**
 * One vital's points of a page, a bucket or a whole window, from raw points, rollup rows or both. Rating counts are
 * exact either way; the 75th percentile is exact over raw points alone and read from the histogram (within
 * rollup/histogram.ts's RELATIVE_ERROR) once a rollup row is in.
 */
export class Tally {
  readonly ratings: Record<Rating, number> = { good: 0, needs_improvement: 0, poor: 0 };
  private readonly values: number[] = [];
  private rolled: Histogram | null = null;

  constructor(readonly vital: VitalName) {}

  get samples(): number {
    return this.ratings.good + this.ratings.needs_improvement + this.ratings.poor;
  }

  addValue(value: number): void {
    this.values.push(value);
    this.ratings[rate(this.vital, value)] += 1;
  }

  addRolled(figures: RolledFigures): void {
    (this.rolled ??= new Histogram()).merge(figures.histogram);
    this.ratings.good += figures.good;
    this.ratings.needs_improvement += figures.needs_improvement;
    this.ratings.poor += figures.poor;
  }

  p75(): number | null {
    return this.rolled === null ? nearestRank(this.values, 75) : this.histogram().percentile(75);
  }

  /** The figures a rollup row keeps of everything added. */
  rolledFigures(): RolledFigures & { samples: number } {
    return { samples: this.samples, ...this.ratings, histogram: this.histogram().encode() };
  }

  private histogram(): Histogram {
    const h = new Histogram();
    if (this.rolled) h.merge(this.rolled);
    for (const v of this.values) h.add(v);
    return h;
  }
}
