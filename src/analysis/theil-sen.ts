/**
 * Theil–Sen slope: the median of the pairwise slopes (y_j − y_i)/(t_j − t_i) over t_i ≠ t_j, with
 * Sen's confidence interval by order statistics of those slopes, as scipy.stats.theilslopes:
 *   σ = √Var(S) (Mann–Kendall variance with tie terms of t and of y), z = Φ⁻¹(1 − α/2),
 *   lower = slopes[round((N − zσ)/2) − 1], upper = slopes[round((N + zσ)/2)] (0-based, N slopes,
 *   round half to even as numpy, indices clamped to the slopes).
 * Intercept: median(y) − slope·median(t). When the tie terms make Var(S) negative (t = [0, 0, 1],
 * y = [2, 2, 2]: (66 − 18 − 66)/18 = −1) the interval is undefined: NaN bounds, as scipy.
 * Worked: y = [1, 2, 2, 4, 3] at t = 0…4 → sorted slopes −1, 0, ⅓, ½, ½, ½, 1, 1, 1, 2 →
 * slope 0.5; σ = 3.958, zσ = 7.758 → indices round(1.121) − 1 = 0 and round(8.879) = 9 → [−1, 2].
 */
import { tieTerm } from './mann-kendall.ts';
import { phiInverse } from './normal.ts';
import { median } from './quantile.ts';

export interface TheilSenResult {
  /** Median pairwise slope, in y units per t unit. NaN with fewer than 2 distinct t. */
  slope: number;
  intercept: number;
  /** Confidence interval of the slope at `confidence`; NaN when Sen's variance is not positive. */
  slopeLo: number;
  slopeHi: number;
  confidence: number;
}

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Theil–Sen slope of y against t with its confidence interval (default 95 %). */
export function theilSen(t: readonly number[], y: readonly number[], confidence = 0.95): TheilSenResult {
  const n = Math.min(t.length, y.length);
  const slopes: number[] = [];
  for (let i = 0; i < n - 1; i++) {
    for (let j = i + 1; j < n; j++) {
      const dt = (t[j] as number) - (t[i] as number);
      if (dt !== 0) slopes.push(((y[j] as number) - (y[i] as number)) / dt);
    }
  }
  if (slopes.length === 0) return { slope: NaN, intercept: NaN, slopeLo: NaN, slopeHi: NaN, confidence };
  slopes.sort((a, b) => a - b);
  const slope = median(slopes);
  const intercept = median(y.slice(0, n)) - slope * median(t.slice(0, n));
  const sigma = Math.sqrt((n * (n - 1) * (2 * n + 5) - tieTerm(t.slice(0, n)) - tieTerm(y.slice(0, n))) / 18);
  if (!(sigma > 0)) return { slope, intercept, slopeLo: NaN, slopeHi: NaN, confidence };
  const z = phiInverse((1 + confidence) / 2);
  const last = slopes.length - 1;
  const lo = Math.max(roundHalfEven((slopes.length - z * sigma) / 2) - 1, 0);
  const hi = Math.min(roundHalfEven((slopes.length + z * sigma) / 2), last);
  return { slope, intercept, slopeLo: slopes[Math.min(lo, last)] as number, slopeHi: slopes[Math.max(hi, 0)] as number, confidence };
}
