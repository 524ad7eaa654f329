import { describe, expect, it } from 'vitest';
import { mannKendall } from './mann-kendall.ts';
import { phiInverse } from './normal.ts';
import { median } from './quantile.ts';
import { mulberry32 } from './prng.ts';
import { theilSen } from './theil-sen.ts';

/** theilSen as it was before the typed-array sort: pairwise slopes, a comparison sort, then `median`. */
function reference(t: number[], y: number[]) {
  const n = t.length;
  const slopes: number[] = [];
  for (let i = 0; i < n - 1; i++) for (let j = i + 1; j < n; j++) if (t[j]! - t[i]! !== 0) slopes.push((y[j]! - y[i]!) / (t[j]! - t[i]!));
  slopes.sort((a, b) => a - b);
  const slope = median(slopes);
  const ties = (v: number[]) => mannKendall(v).varS * 18 - n * (n - 1) * (2 * n + 5);
  const sigma = Math.sqrt((n * (n - 1) * (2 * n + 5) + ties(t) + ties(y)) / 18);
  const z = phiInverse(0.975);
  const even = (x: number) => (Math.abs(x % 1) === 0.5 && Math.round(x) % 2 !== 0 ? Math.round(x) - 1 : Math.round(x));
  const last = slopes.length - 1;
  const lo = Math.max(even((slopes.length - z * sigma) / 2) - 1, 0);
  const hi = Math.min(even((slopes.length + z * sigma) / 2), last);
  return {
    slope,
    intercept: median(y) - slope * median(t),
    slopeLo: sigma > 0 ? slopes[Math.min(lo, last)] : NaN,
    slopeHi: sigma > 0 ? slopes[Math.max(hi, 0)] : NaN,
  };
}

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

  it('gives the same numbers as the comparison sort it replaced, ties, zero slopes, −0 and NaN included', () => {
    const random = mulberry32(11);
    let cases = 0;
    for (let c = 0; c < 300; c++) {
      const n = 3 + Math.floor(random() * 60);
      // Times with repeats and levels on a coarse grid (many equal slopes and zero slopes), as GPU
      // memory steps are; every 50th case has a NaN level, every 70th a time that runs backwards.
      const t = Array.from({ length: n }, (_, i) => (c % 70 === 0 ? n - i : i - (i % 3 === 2 && c % 2 ? 1 : 0)) * 0.25);
      const y = Array.from({ length: n }, () => Math.round(random() * 8) / 4 + (c % 5 === 0 ? 0 : random() * 1e-3));
      if (c % 50 === 0) y[Math.floor(n / 2)] = NaN;
      const got = theilSen(t, y);
      const want = reference(t, y);
      for (const k of ['slope', 'intercept', 'slopeLo', 'slopeHi'] as const)
        expect(Object.is(got[k], want[k]) || got[k] === want[k], `case ${c} ${k}: ${got[k]} vs ${want[k]}`).toBe(true);
      cases++;
    }
    expect(cases).toBe(300);
  });
});
