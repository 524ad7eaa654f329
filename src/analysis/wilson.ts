/**
 * Wilson score interval for a proportion p̂ = k/n:
 *   centre = (p̂ + z²/2n) / (1 + z²/n), half-width = z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n).
 * Worked (z = 1.96): 3 of 200 failed → p̂ = 1.5 %, denominator 1.019208, centre 2.41404 %,
 * half-width 1.90262 % → 0.5114 %–4.3166 %.
 */
import { InferlensError } from '../schema/index.ts';

/** A rate with its confidence interval, all as fractions in [0, 1]. */
export interface RateInterval {
  /** k/n; NaN when n = 0. */
  rate: number;
  /** Lower bound; 0 when n = 0 (nothing is known). */
  lo: number;
  /** Upper bound; 1 when n = 0. */
  hi: number;
}

/** Throws `invalid_argument` unless 0 ≤ k ≤ n are integers-or-counts (finite, non-negative). */
export function checkCount(k: number, n: number, what = 'count'): void {
  if (!(Number.isFinite(k) && Number.isFinite(n) && k >= 0 && n >= 0 && k <= n)) {
    throw new InferlensError('invalid_argument', `${what}: expected 0 ≤ k ≤ n, got k = ${k}, n = ${n}; pass bad-event and total counts`);
  }
}

/** Wilson score interval of k successes in n trials at normal quantile z (1.96 → 95 %). */
export function wilson(k: number, n: number, z = 1.96): RateInterval {
  checkCount(k, n, 'wilson');
  if (n === 0) return { rate: NaN, lo: 0, hi: 1 };
  const p = k / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const halfWidth = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // Clamp the rounding dust at k = 0 or k = n (the bound is exactly 0 or 1 there).
  return { rate: p, lo: Math.max(0, centre - halfWidth), hi: Math.min(1, centre + halfWidth) };
}
