/**
 * Mann–Whitney U test (Wilcoxon rank-sum), normal approximation with tie and continuity
 * corrections, as scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True):
 *   U_y = R_y − n_y(n_y+1)/2 (R_y: sum of y's mid-ranks in the pooled sample), U_x = n_x·n_y − U_y;
 *   μ = n_x·n_y/2, σ² = n_x·n_y/12·[(N + 1) − Σ(t³ − t)/(N(N − 1))];
 *   z = (U_y − μ ∓ ½)/σ (½ towards 0), two-sided p = 2Φ(−|z|).
 * Worked: x = [1, 2, 2, 3, 5], y = [2, 4, 5, 5, 6, 7]: mid-ranks x 1, 3, 3, 5, 8 → R_x = 20,
 * U_x = 5, U_y = 25; ties (three 2s, three 5s): Σ(t³ − t) = 48; σ² = 2.5·(12 − 48/110) = 28.909;
 * z = (25 − 15 − 0.5)/5.37672 = 1.76688; p = 0.07725.
 */
import { twoSidedP } from './normal.ts';

export interface MannWhitneyResult {
  nX: number;
  nY: number;
  /** Pairs (x, y) with x > y, ties counted ½. */
  uX: number;
  /** Pairs with y > x, ties counted ½; uX + uY = nX·nY. */
  uY: number;
  /** Positive when y tends to be larger than x. */
  z: number;
  pValue: number;
}

/** Two-sided Mann–Whitney U test of x against y (NaN dropped). Either empty: z = 0, p = 1. */
export function mannWhitneyU(x: readonly number[], y: readonly number[]): MannWhitneyResult {
  const xs = x.filter((v) => !Number.isNaN(v));
  const ys = y.filter((v) => !Number.isNaN(v));
  const nX = xs.length;
  const nY = ys.length;
  const pooled = [...xs.map((v) => ({ v, fromY: false })), ...ys.map((v) => ({ v, fromY: true }))].sort((a, b) => a.v - b.v);
  const total = pooled.length;
  let rankSumY = 0;
  let tieSum = 0;
  for (let i = 0; i < total;) {
    let j = i;
    while (j + 1 < total && (pooled[j + 1] as { v: number }).v === (pooled[i] as { v: number }).v) j++;
    const t = j - i + 1;
    const midRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if ((pooled[k] as { fromY: boolean }).fromY) rankSumY += midRank;
    tieSum += t * t * t - t;
    i = j + 1;
  }
  const uY = rankSumY - (nY * (nY + 1)) / 2;
  const uX = nX * nY - uY;
  if (nX === 0 || nY === 0) return { nX, nY, uX, uY, z: 0, pValue: 1 };
  const mu = (nX * nY) / 2;
  const variance = ((nX * nY) / 12) * (total + 1 - tieSum / (total * (total - 1)));
  const diff = uY - mu;
  const z = variance > 0 && Math.abs(diff) > 0.5 ? (diff - 0.5 * Math.sign(diff)) / Math.sqrt(variance) : 0;
  return { nX, nY, uX, uY, z, pValue: twoSidedP(z) };
}
