import { describe, expect, it } from 'vitest';
import {
  conditionBound,
  conditionHolds,
  firingsOf,
  isRecovered,
  previewStepMs,
  type SeriesPoint,
} from '../../server/src/alerts/query/index';
import type { RuleQuery } from '../../server/src/alerts/rule';
import { nearestRank } from '../../server/src/vitals/summary';

/** The pure parts of alert rules: nearest-rank percentiles, conditions, recovery and where a preview marks firings. */

const STEP = 60_000;
const rule = (over: Partial<RuleQuery> = {}): RuleQuery => ({
  projectId: 'p',
  signal: 'spans',
  query: { aggregate: 'p95' },
  windowSeconds: 60,
  condition: { type: 'threshold', op: 'above', value: 10 },
  recovery: null,
  forSeconds: 0,
  ...over,
});
const series = (...values: Array<number | null>): SeriesPoint[] =>
  values.map((value, i) => ({ tMs: (i + 1) * STEP, value }));

describe('nearest rank', () => {
  it('is the smallest value at least p % of the values are at or below', () => {
    const values = [15, 20, 35, 40, 50];
    expect([50, 75, 90, 95, 99].map((p) => nearestRank(values, p))).toEqual([35, 40, 50, 50, 50]);
    expect(nearestRank([3, 1, 2], 50)).toBe(2);
    expect(nearestRank([], 75)).toBeNull();
    // 100 values 1…100: the pth percentile is p itself.
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect([50, 75, 90, 95, 99].map((p) => nearestRank(hundred, p))).toEqual([50, 75, 90, 95, 99]);
  });
});

describe('conditions', () => {
  it('compares with a threshold, or with the baseline moved by the percentage', () => {
    expect(conditionBound({ type: 'threshold', op: 'above', value: 5 }, null)).toBe(5);
    const up = { type: 'change', op: 'above', percent: 50, compare_to: 'day' } as const;
    expect(conditionBound(up, 200)).toBe(300);
    expect(conditionBound({ ...up, op: 'below' }, 200)).toBe(100);
    expect(conditionBound(up, null)).toBeNull();
    expect(conditionHolds(rule({ condition: up }), 301, 200)).toBe(true);
    expect(conditionHolds(rule({ condition: up }), 300, 200)).toBe(false);
    expect(conditionHolds(rule({ condition: up }), 301, null)).toBeNull();
    expect(conditionHolds(rule(), null, null)).toBeNull();
  });

  it('recovers back across the recovery value, else once the condition no longer holds', () => {
    expect(isRecovered(rule(), 10, null)).toBe(true);
    expect(isRecovered(rule(), 11, null)).toBe(false);
    const hysteresis = rule({ recovery: { value: 6 } });
    expect(isRecovered(hysteresis, 8, null)).toBe(false);
    expect(isRecovered(hysteresis, 6, null)).toBe(true);
    expect(isRecovered(hysteresis, null, null)).toBe(false);
  });
});

describe('firings', () => {
  it('fires where the condition holds and resolves where it recovers', () => {
    expect(firingsOf(rule(), series(1, 20, 30, 5, 20), STEP)).toEqual([
      { startMs: 2 * STEP, endMs: 4 * STEP },
      { startMs: 5 * STEP, endMs: null },
    ]);
  });

  it('waits for `for_seconds` of holding, counting a point as holding since the one before', () => {
    const patient = rule({ forSeconds: 180 });
    // Holds at points 2…4 (since point 1): 3 minutes at point 4.
    expect(firingsOf(patient, series(1, 20, 20, 20, 20, 1), STEP)).toEqual([{ startMs: 4 * STEP, endMs: 6 * STEP }]);
    // Broken after two points: starts again.
    expect(firingsOf(patient, series(20, 20, 1, 20, 20), STEP)).toEqual([]);
  });

  it('neither fires nor resolves without data, and keeps firing until the recovery value', () => {
    expect(firingsOf(rule(), series(null, null), STEP)).toEqual([]);
    const hysteresis = rule({ recovery: { value: 6 } });
    expect(firingsOf(hysteresis, series(20, null, 8, 5), STEP)).toEqual([{ startMs: STEP, endMs: 4 * STEP }]);
  });
});

describe('preview step', () => {
  it('is the window, or longer so that the range has at most 500 points', () => {
    expect(previewStepMs(300, 0, 86_400_000)).toBe(300_000);
    // 7 days in 500 steps: 1209.6 s, rounded up to whole seconds.
    expect(previewStepMs(300, 0, 7 * 86_400_000)).toBe(1_210_000);
  });
});
