/**
 * Standard normal helpers over @stdlib (cdf(x, mu, sigma), quantile(p, mu, sigma)).
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';

/** Φ(x), the standard normal CDF. Φ(1.96) ≈ 0.975. */
export function phi(x: number): number {
  return normalCdf(x, 0, 1);
}

/** Φ⁻¹(p), the standard normal quantile. Φ⁻¹(0.975) ≈ 1.959964. */
export function phiInverse(p: number): number {
  return normalQuantile(p, 0, 1);
}

/**
 * Two-sided p-value of a z statistic, 2·Φ(−|z|); computed from the lower tail so that it keeps
 * precision far out (z = 16 → 1.5e−57 instead of 0). NaN z → 1 (no evidence).
 */
export function twoSidedP(z: number): number {
  if (Number.isNaN(z)) return 1;
  return Math.min(1, 2 * phi(-Math.abs(z)));
}
