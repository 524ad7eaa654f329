/**
 * Chi-square test of homogeneity on the 2×k table (reference counts, current counts) over the
 * categories seen in either window. Eᵢⱼ = rowᵢ·colⱼ/N, χ² = Σ (O − E)²/E, df = k − 1, p from the
 * chi-square survival function Q(df/2, χ²/2) (@stdlib's upper regularised incomplete gamma), which
 * keeps far-tail values (χ² = 200, df 1 → 2.09e−45) that 1 − cdf rounds to 0. No Yates correction (scipy's chi2_contingency applies one only at df = 1).
 * The verdict is given only when every expected count is ≥ 5; otherwise `low_expected_counts`.
 * Worked: ref [10, 20, 30], cur [20, 20, 20] → E = [15, 20, 25] in both rows;
 * χ² = 2·(25/15 + 0 + 25/25) = 5.3333, df = 2, p = e^{−χ²/2} = 0.069483.
 */
import gammainc from '@stdlib/math-base-special-gammainc';
import { alignCounts, sum } from './align-counts.ts';
import type { Counts } from './align-counts.ts';
import { byPValue, notEnoughData } from './drift-result.ts';
import type { DriftResult } from './drift-result.ts';

export interface ChiSquareResult extends DriftResult {
  /** Degrees of freedom: non-empty categories − 1. */
  df: number;
  /** Smallest expected cell count; the verdict needs ≥ 5. */
  minExpected: number;
}

/** Homogeneity test of two count vectors (aligned arrays or records by category); drift when p < alpha. */
export function chiSquareTest(refCounts: Counts, curCounts: Counts, alpha = 0.05): ChiSquareResult {
  const aligned = alignCounts(refCounts, curCounts, 'chiSquareTest');
  const keep = aligned.ref.map((r, i) => r + (aligned.cur[i] as number) > 0);
  const ref = aligned.ref.filter((_, i) => keep[i]);
  const cur = aligned.cur.filter((_, i) => keep[i]);
  const nRef = sum(ref);
  const nCur = sum(cur);
  const df = ref.length - 1;
  if (nRef === 0 || nCur === 0) return { ...notEnoughData('chi_square', alpha, nRef, nCur), df, minExpected: 0 };
  const n = nRef + nCur;
  let statistic = 0;
  let minExpected = Infinity;
  ref.forEach((r, i) => {
    const c = cur[i] as number;
    const column = r + c;
    const eRef = (nRef * column) / n;
    const eCur = (nCur * column) / n;
    minExpected = Math.min(minExpected, eRef, eCur);
    statistic += (r - eRef) ** 2 / eRef + (c - eCur) ** 2 / eCur;
  });
  const pValue = df < 1 ? 1 : gammainc(statistic / 2, df / 2, true, true);
  const judged = byPValue('chi_square', statistic, pValue, alpha, nRef, nCur);
  if (minExpected < 5) return { ...judged, verdict: 'low_expected_counts', drift: false, df, minExpected };
  return { ...judged, df, minExpected };
}
