import { describe, expect, it } from 'vitest';
import { theilSen } from './theil-sen.ts';

describe('theilSen', () => {
  it('matches scipy.stats.theilslopes on the worked example', () => {
    // scipy: slope 0.5, intercept 1.0, low −1.0, high 2.0 (worked in theil-sen.ts)
    const r = theilSen([0, 1, 2, 3, 4], [1, 2, 2, 4, 3]);
    expect(r).toMatchObject({ slope: 0.5, intercept: 1, slopeLo: -1, slopeHi: 2 });
  });

  it('matches scipy on a noisy rise', () => {
    // scipy.stats.theilslopes([10,12,11,15,14,18,17,20], range(8)) = 1.5, 9.25, 0.6667, 2.0
    const r = theilSen([0, 1, 2, 3, 4, 5, 6, 7], [10, 12, 11, 15, 14, 18, 17, 20]);
    expect(r.slope).toBe(1.5);
    expect(r.intercept).toBe(9.25);
    expect(r.slopeLo).toBeCloseTo(2 / 3, 12);
    expect(r.slopeHi).toBe(2);
  });

  it('recovers an exact line and resists one outlier', () => {
    const t = [0, 10, 20, 30, 40, 50, 60];
    const y = t.map((x) => 3 + 0.5 * x);
    expect(theilSen(t, y)).toMatchObject({ slope: 0.5, intercept: 3, slopeLo: 0.5, slopeHi: 0.5 });
    y[3] = 1000;
    expect(theilSen(t, y).slope).toBe(0.5);
  });

  it('returns NaN without two distinct times', () => {
    expect(theilSen([1, 1], [2, 3]).slope).toBeNaN();
  });
  it('gives NaN bounds, not undefined, when the tie-corrected Sen variance is negative', () => {
    // t = [0, 0, 1], y = [2, 2, 2]: Var = (3·2·11 − 18 − 66)/18 = −1 < 0.
    // scipy.stats.theilslopes([2, 2, 2], [0, 0, 1]) = slope 0.0, intercept 2.0, low nan, high nan
    const r = theilSen([0, 0, 1], [2, 2, 2]);
    expect(r.slope).toBe(0);
    expect(r.intercept).toBe(2);
    expect(r.slopeLo).toBeNaN();
    expect(r.slopeHi).toBeNaN();
  });
});
