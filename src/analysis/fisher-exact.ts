/**
 * Fisher's exact test on the 2×2 table [[k₁, n₁−k₁], [k₂, n₂−k₂]], two-sided as in scipy and R:
 * the p-value sums the hypergeometric probabilities of every table with the same margins that is
 * no more likely than the observed one (with a relative tolerance of 1e−7 for rounding).
 *
 * With K = k₁ + k₂ bad events among N = n₁ + n₂: P(x) = C(K, x)·C(N−K, n₁−x)/C(N, n₁).
 * Worked: [[3, 1], [1, 3]] → K = 4, N = 8, P(x) for x = 0…4 = 1, 16, 36, 16, 1 (/70);
 * observed x = 3 has 16/70, so p = (1 + 16 + 16 + 1)/70 = 34/70 = 0.485714.
 */
import { logHypergeometricPmf } from './hypergeometric.ts';
import { checkCount } from './wilson.ts';

/** Two-sided p-value of Fisher's exact test. */
export interface FisherResult {
  pValue: number;
}

const RELATIVE_TOLERANCE = 1 + 1e-7;

/** Two-sided Fisher exact test of k₁/n₁ against k₂/n₂. An empty group gives pValue = 1. */
export function fisherExact(k1: number, n1: number, k2: number, n2: number): FisherResult {
  checkCount(k1, n1, 'fisherExact group 1');
  checkCount(k2, n2, 'fisherExact group 2');
  const total = n1 + n2;
  const bad = k1 + k2;
  if (n1 === 0 || n2 === 0 || bad === 0 || bad === total) return { pValue: 1 };
  // The observed table's probability by Loader's saddle point: ln C(N, n₁) from log-factorials
  // lost digits past N ≈ 10⁷ (relative error 5e−7 at N = 10⁸); the walk below keeps its precision.
  const observed = logHypergeometricPmf(k1, total, bad, n1);
  const threshold = observed + Math.log(RELATIVE_TOLERANCE);
  const lo = Math.max(0, n1 - (total - bad));
  const hi = Math.min(bad, n1);
  // Walk out from the observed table by the ratio of neighbouring terms,
  // P(x+1)/P(x) = (K − x)(n₁ − x) / ((x + 1)(N − K − n₁ + x + 1)): one log per table instead of
  // nine log-factorials (the slice finder runs thousands of these; measured 3× faster ranking).
  // Starting at the observed table keeps the rounding drift smallest where the comparison with it
  // is closest; over 10⁴ steps it stays near 1e−12, far inside the 1e−7 tolerance.
  const logRatio = (x: number): number => Math.log(((bad - x) * (n1 - x)) / ((x + 1) * (total - bad - n1 + x + 1)));
  let pValue = 0;
  if (observed <= threshold) pValue += Math.exp(observed);
  let l = observed;
  for (let x = k1; x < hi; x++) {
    l += logRatio(x);
    if (l <= threshold) pValue += Math.exp(l);
  }
  l = observed;
  for (let x = k1; x > lo; x--) {
    l -= logRatio(x - 1);
    if (l <= threshold) pValue += Math.exp(l);
  }
  return { pValue: Math.min(1, pValue) };
}
