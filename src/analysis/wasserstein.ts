/**
 * 1-D Wasserstein (earth mover's) distance W₁ = ∫ |F_ref(x) − F_cur(x)| dx, normalised by the
 * reference's population standard deviation (ddof = 0), as Evidently's `wasserstein` drift test
 * (scipy.stats.wasserstein_distance / np.std). Drift when ≥ 0.1 (0.1 standard deviations).
 * A constant reference (sd 0) gives 0 when the current window is the same constant, else Infinity.
 * Worked: ref [1, 2, 3, 4], cur [2, 3, 4, 5] → W₁ = 1 (every point moves by 1); sd(ref) = √1.25
 * = 1.118034 → 0.894427.
 */
import { byDistance, notEnoughData } from './drift-result.ts';
import { ecdfSteps } from './ecdf-steps.ts';
import type { EcdfStep } from './ecdf-steps.ts';
import type { DriftResult } from './drift-result.ts';
import { sortedFinite } from './quantile.ts';

/** W₁ between two samples (NaN dropped); NaN when either is empty. */
export function wassersteinDistance(a: readonly number[], b: readonly number[]): number {
  const x = sortedFinite(a);
  const y = sortedFinite(b);
  if (x.length === 0 || y.length === 0) return NaN;
  const steps = ecdfSteps(x, y);
  let area = 0;
  for (let s = 1; s < steps.length; s++) {
    const prev = steps[s - 1] as EcdfStep;
    area += Math.abs(prev.fx - prev.fy) * ((steps[s] as EcdfStep).value - prev.value);
  }
  return area;
}

/** Population standard deviation (ddof = 0). */
export function populationStd(values: readonly number[]): number {
  const n = values.length;
  if (n === 0) return NaN;
  const mean = values.reduce((a, v) => a + v, 0) / n;
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / n);
}

/** Wasserstein distance divided by the reference's standard deviation; drift when ≥ threshold. */
export function wassersteinNormed(ref: readonly number[], cur: readonly number[], threshold = 0.1): DriftResult {
  const r = ref.filter((v) => !Number.isNaN(v));
  const c = cur.filter((v) => !Number.isNaN(v));
  if (r.length === 0 || c.length === 0) return notEnoughData('wasserstein_normed', threshold, r.length, c.length);
  const w = wassersteinDistance(r, c);
  const sd = populationStd(r);
  const statistic = sd > 0 ? w / sd : w === 0 ? 0 : Infinity;
  return byDistance('wasserstein_normed', statistic, threshold, r.length, c.length);
}
