import { describe, expect, it } from 'vitest';
import { chiSquareTest } from './chi-square-test.ts';

describe('chiSquareTest', () => {
  it('matches the worked example and scipy chi2_contingency(correction=False)', () => {
    // E = [15, 20, 25] per row; χ² = 2·(25/15 + 0 + 25/25) = 5.333333, df 2, p = e^{−2.666667} = 0.0694834512228015
    const r = chiSquareTest([10, 20, 30], [20, 20, 20]);
    expect(r.statistic).toBeCloseTo(16 / 3, 12);
    expect(r.df).toBe(2);
    expect(r.pValue).toBeCloseTo(0.0694834512228015, 12);
    expect(r.minExpected).toBe(15);
    expect(r).toMatchObject({ method: 'chi_square', verdict: 'no_drift', drift: false, nRef: 60, nCur: 60 });
  });

  it('accepts records keyed by category and drops categories empty in both', () => {
    // scipy chi2_contingency([[50, 30, 20], [40, 40, 20]]) = 2.5396825396825395, p 0.28087620176428163
    const r = chiSquareTest({ ok: 50, empty: 30, refused: 20, never: 0 }, { ok: 40, empty: 40, refused: 20 });
    expect(r.statistic).toBeCloseTo(2.5396825396825395, 12);
    expect(r.pValue).toBeCloseTo(0.28087620176428163, 10);
    expect(r.df).toBe(2);
  });

  it('flags a large shift', () => {
    const r = chiSquareTest([100, 100], [150, 50]);
    // E = [125, 75] per row → χ² = 2·(625/125 + 625/75) = 26.6667, p = 2.4e−7
    expect(r.statistic).toBeCloseTo(80 / 3, 10);
    expect(r.drift).toBe(true);
  });

  it('withholds the verdict when an expected count is below 5', () => {
    const r = chiSquareTest([1, 9], [8, 2]);
    expect(r.minExpected).toBe(4.5);
    expect(r.verdict).toBe('low_expected_counts');
    expect(r.drift).toBe(false);
    expect(r.pValue).not.toBeNull();
  });

  it('answers not_enough_data on an empty window', () => {
    expect(chiSquareTest([0, 0], [3, 4]).verdict).toBe('not_enough_data');
  });
  it('keeps far-tail p-values instead of rounding 1 − cdf to 0', () => {
    // scipy chi2_contingency([[100, 0], [0, 100]], correction=False) = 200.0, p 2.0884875837625688e-45
    // scipy chi2_contingency([[200, 0, 10], [0, 200, 10]], correction=False) = 400.0, p 1.383896526736753e-87
    expect((chiSquareTest([100, 0], [0, 100]).pValue as number) / 2.0884875837625688e-45).toBeCloseTo(1, 10);
    expect((chiSquareTest([200, 0, 10], [0, 200, 10]).pValue as number) / 1.383896526736753e-87).toBeCloseTo(1, 10);
  });
});
