/**
 * Two-proportion z-test with the pooled standard error (two-sided).
 *   p = (k₁ + k₂)/(n₁ + n₂), se = √(p(1−p)(1/n₁ + 1/n₂)), z = (k₁/n₁ − k₂/n₂)/se.
 * Worked: 30/200 vs 20/200 → p = 0.125, se = √(0.125·0.875·0.01) = 0.0330719,
 * z = 0.05/0.0330719 = 1.51186, p-value = 2Φ(−1.51186) = 0.13057.
 */
import { twoSidedP } from './normal.ts';
import { checkCount } from './wilson.ts';

/** z > 0 means the first proportion is the higher one. */
export interface ZTestResult {
  z: number;
  pValue: number;
}

/**
 * Pooled two-sided two-proportion z-test. Degenerate inputs (an empty group, or a pooled rate of
 * 0 or 1 so that se = 0) carry no evidence: z = 0, pValue = 1.
 */
export function twoProportionZ(k1: number, n1: number, k2: number, n2: number): ZTestResult {
  checkCount(k1, n1, 'twoProportionZ group 1');
  checkCount(k2, n2, 'twoProportionZ group 2');
  if (n1 === 0 || n2 === 0) return { z: 0, pValue: 1 };
  const pooled = (k1 + k2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (se === 0) return { z: 0, pValue: 1 };
  const z = (k1 / n1 - k2 / n2) / se;
  return { z, pValue: twoSidedP(z) };
}
