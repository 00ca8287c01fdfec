import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketOf, GAMMA, Histogram, RELATIVE_ERROR, representative } from '../../server/src/vitals/rollup/histogram';
import { planWindow } from '../../server/src/vitals/rollup/plan';
import { nearestRank } from '../../server/src/vitals/summary';

/**
 * The Web Vitals rollups' histogram (server/src/vitals/rollup/histogram.ts): bucket bounds, the error bound, merging,
 * the nearest rank against the exact one; and how a summary's window is split between rollups and points.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('vitals histogram', () => {
  it('puts a value in the bucket (γ^(i-1), γ^i] and stands for it within the error bound', () => {
    expect(RELATIVE_ERROR).toBeLessThan(0.01);
    for (const v of [0.001, 0.1, 0.25, 1, 199.5, 2500, 4000, 60_000]) {
      const i = bucketOf(v);
      expect(GAMMA ** (i - 1)).toBeLessThan(v * (1 + 1e-12));
      expect(GAMMA ** i).toBeGreaterThanOrEqual(v * (1 - 1e-12));
      expect(Math.abs(representative(i) - v) / v).toBeLessThanOrEqual(RELATIVE_ERROR + 1e-12);
    }
  });

  it('keeps values ≤ 0 (a CLS of 0) in the zero bucket, read as 0', () => {
    const h = new Histogram();
    for (const v of [0, 0, 0, 0.3]) h.add(v);
    expect(h.encode()).toEqual({ z: 3, b: [[bucketOf(0.3), 1]] });
    expect(h.percentile(75)).toBe(0);
    expect(h.percentile(100)).toBeCloseTo(0.3, 2);
    expect(new Histogram().percentile(75)).toBeNull();
  });

  it('merges by adding counts, the same in any order, and survives its encoding', () => {
    const a = new Histogram();
    const b = new Histogram();
    [1, 2, 2, 300].forEach((v) => a.add(v));
    [0, 2, 5000].forEach((v) => b.add(v));
    const ab = Histogram.decode(JSON.parse(JSON.stringify(a.encode())));
    ab.merge(b);
    const ba = Histogram.decode(b.encode());
    ba.merge(a);
    expect(ab.encode()).toEqual(ba.encode());
    expect(ab.count).toBe(7);
    const all = new Histogram();
    [1, 2, 2, 300, 0, 2, 5000].forEach((v) => all.add(v));
    expect(ab.encode()).toEqual(all.encode());
  });

  it('reads the nearest-rank percentile within the bound of the exact one, on random data merged from parts', () => {
    const value = fc.oneof(fc.constant(0), fc.double({ min: 0.0001, max: 100_000, noNaN: true }));
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { maxLength: 50 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 100 }),
        (parts, percent) => {
          const merged = new Histogram();
          for (const part of parts) {
            const h = new Histogram();
            part.forEach((v) => h.add(v));
            merged.merge(h.encode());
          }
          const exact = nearestRank(parts.flat(), percent);
          const read = merged.percentile(percent);
          if (exact === null) return read === null;
          return exact === 0 ? read === 0 : Math.abs(read! - exact) / exact <= RELATIVE_ERROR + 1e-12;
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('a summary window split between rollups and points', () => {
  const T = Date.UTC(2027, 0, 10);
  const marks = { project_id: 'p', hours_ms: T + 5 * HOUR, days_ms: T, checked_ms: 0 };

  it('reads whole rolled-up days, then whole rolled-up hours, then the points of the rest', () => {
    const from = T - 3 * DAY - 90 * 60_000;
    expect(planWindow(from, T + 6 * HOUR + 10, 'day', marks)).toEqual({
      days: [[T - 3 * DAY, T]],
      hours: [
        [T - 3 * DAY - HOUR, T - 3 * DAY],
        [T, T + 5 * HOUR],
      ],
      raw: [
        [from, T - 3 * DAY - HOUR],
        [T + 5 * HOUR, T + 6 * HOUR + 10],
      ],
    });
  });

  it('reads hours only for an hourly series, and all points before anything is rolled up or past the marks', () => {
    expect(planWindow(T - 2 * HOUR, T + HOUR, 'hour', marks)).toEqual({
      days: [],
      hours: [[T - 2 * HOUR, T + HOUR]],
      raw: [],
    });
    expect(planWindow(T - DAY, T, 'day', undefined).raw).toEqual([[T - DAY, T]]);
    expect(planWindow(T + 5 * HOUR, T + 7 * HOUR, 'day', marks)).toEqual({
      days: [],
      hours: [],
      raw: [[T + 5 * HOUR, T + 7 * HOUR]],
    });
  });
});
