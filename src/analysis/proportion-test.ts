/**
 * Compare two proportions, choosing the test by the 2×2 table's expected counts: Fisher's exact
 * test when any expected count is below 5 (where the normal approximation misleads), else the
 * pooled two-proportion z-test. The z statistic is always reported, as a signed effect size.
 * Worked: 9/30 vs 91/9970 → expected bad in group 1 = 30·100/10000 = 0.3 < 5 → Fisher.
 */
import { fisherExact } from './fisher-exact.ts';
import { twoProportionZ } from './two-proportion-z.ts';

/** Which test produced the p-value. */
export type ProportionMethod = 'z' | 'fisher';

/** z is the pooled z statistic (sign: group 1 higher); pValue is two-sided, from `method`. */
export interface ProportionTestResult {
  z: number;
  pValue: number;
  method: ProportionMethod;
  /** Smallest expected cell count of the 2×2 table. */
  minExpected: number;
}

/** Smallest expected count of [[k₁, n₁−k₁], [k₂, n₂−k₂]] under independence. */
export function minExpectedCount(k1: number, n1: number, k2: number, n2: number): number {
  const total = n1 + n2;
  if (total === 0) return 0;
  const bad = k1 + k2;
  const good = total - bad;
  return (Math.min(n1, n2) * Math.min(bad, good)) / total;
}

/** Two-sided test of k₁/n₁ against k₂/n₂: Fisher when an expected count is < 5, else z. */
export function proportionTest(k1: number, n1: number, k2: number, n2: number): ProportionTestResult {
  const { z, pValue: zP } = twoProportionZ(k1, n1, k2, n2);
  const minExpected = minExpectedCount(k1, n1, k2, n2);
  if (minExpected < 5) return { z, pValue: fisherExact(k1, n1, k2, n2).pValue, method: 'fisher', minExpected };
  return { z, pValue: zP, method: 'z', minExpected };
}
