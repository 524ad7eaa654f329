/**
 * Mann–Kendall trend test: is a series monotonically rising or falling over time?
 *   S = Σ_{i<j} sign(y_j − y_i) over the series ordered by time;
 *   Var(S) = [n(n−1)(2n+5) − Σ_ties t(t−1)(2t+5)] / 18 (t = size of each group of equal values);
 *   z = (S − 1)/√Var if S > 0, (S + 1)/√Var if S < 0, else 0 (continuity correction);
 *   two-sided p = 2Φ(−|z|).
 * Worked: y = [1, 2, 2, 4, 3] → S = 4 + 2 + 2 − 1 = 7; one tie group of 2: Var = (300 − 18)/18
 * = 15.667; z = 6/3.9581 = 1.5159; p = 0.1296.
 */
import { twoSidedP } from './normal.ts';

export interface MannKendallResult {
  n: number;
  s: number;
  varS: number;
  z: number;
  pValue: number;
}

/** Σ t(t−1)(2t+5) over the groups of equal values (the tie correction of Var(S)). */
export function tieTerm(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let sum = 0;
  for (const t of counts.values()) sum += t * (t - 1) * (2 * t + 5);
  return sum;
}

/** Mann–Kendall test of a series already in time order. Fewer than 3 points: S = 0, p = 1. */
export function mannKendall(series: readonly number[]): MannKendallResult {
  const n = series.length;
  let s = 0;
  for (let i = 0; i < n - 1; i++) {
    const yi = series[i] as number;
    for (let j = i + 1; j < n; j++) s += Math.sign((series[j] as number) - yi);
  }
  const varS = (n * (n - 1) * (2 * n + 5) - tieTerm(series)) / 18;
  if (n < 3 || varS <= 0) return { n, s, varS, z: 0, pValue: 1 };
  const z = s > 0 ? (s - 1) / Math.sqrt(varS) : s < 0 ? (s + 1) / Math.sqrt(varS) : 0;
  return { n, s, varS, z, pValue: twoSidedP(z) };
}
