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
import { median, quantile } from './quantile.ts';

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
  const all = new Float64Array((n * (n - 1)) / 2);
  let count = 0;
  let plain = true;
  for (let i = 0; i < n - 1; i++) {
    for (let j = i + 1; j < n; j++) {
      const dt = (t[j] as number) - (t[i] as number);
      if (dt !== 0) {
        const s = ((y[j] as number) - (y[i] as number)) / dt;
        if (Number.isNaN(s) || Object.is(s, -0)) plain = false;
        all[count++] = s;
      }
    }
  }
  if (count === 0) return { slope: NaN, intercept: NaN, slopeLo: NaN, slopeHi: NaN, confidence };
  // Without NaN or −0 among them, the typed array's numeric sort puts the slopes in the order the
  // comparison sort does (equal values are the same number), sorted once instead of twice.
  let slopes: ArrayLike<number>;
  let slope: number;
  if (plain) {
    slopes = all.subarray(0, count).sort();
    slope = quantile(slopes, 0.5);
  } else {
    const sorted = Array.from(all.subarray(0, count)).sort((a, b) => a - b);
    slopes = sorted;
    slope = median(sorted);
  }
  const intercept = median(y.slice(0, n)) - slope * median(t.slice(0, n));
  const sigma = Math.sqrt((n * (n - 1) * (2 * n + 5) - tieTerm(t.slice(0, n)) - tieTerm(y.slice(0, n))) / 18);
  if (!(sigma > 0)) return { slope, intercept, slopeLo: NaN, slopeHi: NaN, confidence };
  const z = phiInverse((1 + confidence) / 2);
  const last = slopes.length - 1;
  const lo = Math.max(roundHalfEven((slopes.length - z * sigma) / 2) - 1, 0);
  const hi = Math.min(roundHalfEven((slopes.length + z * sigma) / 2), last);
  return { slope, intercept, slopeLo: slopes[Math.min(lo, last)] as number, slopeHi: slopes[Math.max(hi, 0)] as number, confidence };
}
