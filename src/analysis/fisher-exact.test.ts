import { describe, expect, it } from 'vitest';
import { fisherExact } from './fisher-exact.ts';

describe('fisherExact', () => {
  it('[[3,1],[1,3]] → 34/70', () => {
    // Margins K = 4 bad of N = 8, n₁ = 4. C(4,x)·C(4,4−x) for x = 0…4 = 1, 16, 36, 16, 1 (sum 70).
    // Observed x = 3 (16); tables no more likely: 1, 16, 16, 1 → 34/70.
    expect(fisherExact(3, 4, 1, 4).pValue).toBeCloseTo(34 / 70, 12);
  });

  // scipy.stats.fisher_exact reference values (table [[k1, n1−k1], [k2, n2−k2]]).
  const cases: Array<[number, number, number, number, number]> = [
    [1, 10, 11, 14, 0.0027594561852200836],
    [0, 10, 5, 10, 0.032507739938080496],
    [2, 50, 1, 150, 0.1548271661336988],
    [9, 30, 91, 9970, 8.338132964314013e-12],
  ];
  it.each(cases)('k1=%i n1=%i k2=%i n2=%i → scipy %f', (k1, n1, k2, n2, expected) => {
    expect(fisherExact(k1, n1, k2, n2).pValue / expected).toBeCloseTo(1, 8);
  });

  it('is symmetric in the groups and in bad ↔ good', () => {
    const p = fisherExact(2, 50, 1, 150).pValue;
    expect(fisherExact(1, 150, 2, 50).pValue).toBeCloseTo(p, 12);
    expect(fisherExact(48, 50, 149, 150).pValue).toBeCloseTo(p, 12);
  });

  it('gives 1 when there is nothing to test', () => {
    expect(fisherExact(0, 10, 0, 10).pValue).toBe(1);
    expect(fisherExact(0, 0, 3, 10).pValue).toBe(1);
    expect(fisherExact(5, 10, 5, 10).pValue).toBeCloseTo(1, 12);
  });
  it('keeps its precision on very large tables (N = 10⁸)', () => {
    // Reference: the same two-sided sum in 50-digit arithmetic (mpmath, loggamma of every term):
    //   [[5000, 5e7 − 5000], [5400, 5e7 − 5400]] → 9.1092684315978972e−05
    //   (scipy.stats.fisher_exact: 9.1092684738519e−05, itself 4.6e−9 off)
    //   [[30, 5e6 − 30], [60, 5e6 − 60]] → 0.0020601710693833855 (scipy 0.00206017106881847)
    // With ln C(N, n) as a difference of three log-factorials near 1.7e9 the first was 4.6e−7 off.
    expect(fisherExact(5000, 50_000_000, 5400, 50_000_000).pValue / 9.109268431597897e-5).toBeCloseTo(1, 10);
    expect(fisherExact(30, 5_000_000, 60, 5_000_000).pValue / 0.002060171069383386).toBeCloseTo(1, 10);
  });
});
