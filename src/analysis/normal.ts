/**
 * Standard normal helpers over @stdlib: cdf(x, mu, sigma) and erfcinv (Boost's rational
 * approximations, full precision down to the smallest doubles).
 */
import erfcinv from '@stdlib/math-base-special-erfcinv';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';

/** Φ(x), the standard normal CDF. Φ(1.96) ≈ 0.975. */
export function phi(x: number): number {
  return normalCdf(x, 0, 1);
}

/**
 * Φ⁻¹(p), the standard normal quantile, as −√2·erfc⁻¹(2p). Φ⁻¹(0.975) ≈ 1.959964;
 * Φ⁻¹(1e−20) = −9.262340 (scipy norm.ppf), where the erf⁻¹(2p − 1) form gave −Infinity because
 * 2p − 1 rounds to −1 below p ≈ 1e−17.
 */
export function phiInverse(p: number): number {
  if (p === 0.5) return 0;
  return -Math.SQRT2 * erfcinv(2 * p);
}

/**
 * Two-sided p-value of a z statistic, 2·Φ(−|z|); computed from the lower tail so that it keeps
 * precision far out (z = 16 → 1.5e−57 instead of 0). NaN z → 1 (no evidence).
 */
export function twoSidedP(z: number): number {
  if (Number.isNaN(z)) return 1;
  return Math.min(1, 2 * phi(-Math.abs(z)));
}
