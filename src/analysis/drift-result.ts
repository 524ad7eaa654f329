/**
 * The common shape of every drift statistic, so a UI or an alert rule reads any method the same
 * way: the statistic, its p-value where the method has one, the threshold it was judged against,
 * the verdict, and both sample sizes.
 */

/** Which statistic produced the result. */
export type DriftMethod = 'psi' | 'jensen_shannon' | 'ks' | 'chi_square' | 'wasserstein_normed' | 'z';

/**
 * `drift` / `no_drift`: judged. `not_enough_data`: a sample is below the minimum size.
 * `low_expected_counts`: chi-square with an expected count below 5, not judged.
 */
export type DriftVerdict = 'drift' | 'no_drift' | 'not_enough_data' | 'low_expected_counts';

export interface DriftResult {
  method: DriftMethod;
  statistic: number;
  /** Null for distances (PSI, Jensen–Shannon, Wasserstein), which have no p-value. */
  pValue: number | null;
  /** p-value methods: drift when pValue < threshold. Distances: drift when statistic ≥ threshold. */
  threshold: number;
  verdict: DriftVerdict;
  drift: boolean;
  /** Reference and current sample sizes (rows, or the sum of counts). */
  nRef: number;
  nCur: number;
}

/** Verdict of a p-value method. */
export function byPValue(method: DriftMethod, statistic: number, pValue: number, threshold: number, nRef: number, nCur: number): DriftResult {
  const drift = pValue < threshold;
  return { method, statistic, pValue, threshold, verdict: drift ? 'drift' : 'no_drift', drift, nRef, nCur };
}

/** Verdict of a distance method. */
export function byDistance(method: DriftMethod, statistic: number, threshold: number, nRef: number, nCur: number): DriftResult {
  const drift = statistic >= threshold;
  return { method, statistic, pValue: null, threshold, verdict: drift ? 'drift' : 'no_drift', drift, nRef, nCur };
}

/** A result without a verdict because a sample is too small or empty. */
export function notEnoughData(method: DriftMethod, threshold: number, nRef: number, nCur: number): DriftResult {
  return { method, statistic: NaN, pValue: null, threshold, verdict: 'not_enough_data', drift: false, nRef, nCur };
}
