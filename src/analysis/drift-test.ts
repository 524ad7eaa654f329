/**
 * One entry point for "has this column drifted?", with Evidently's defaults for choosing the test:
 *   reference ≤ 1000 rows: numeric → two-sample KS, categorical → chi-square (two categories →
 *     two-proportion z-test); drift when p < 0.05.
 *   reference > 1000 rows: numeric → Wasserstein distance / reference sd, categorical →
 *     Jensen–Shannon distance; drift when ≥ 0.1. (With many rows every p-value becomes tiny, so a
 *     distance with a fixed threshold judges the size of the change instead.)
 * Either sample below `minSamples` (default 30) → verdict `not_enough_data`, method still named.
 * Unlike Evidently, a numeric column with few distinct values is not switched to a categorical
 * test; pass it as categorical if that is what it is.
 */
import { chiSquareTest } from './chi-square-test.ts';
import { countValues } from './align-counts.ts';
import { byPValue, notEnoughData } from './drift-result.ts';
import type { DriftMethod, DriftResult } from './drift-result.ts';
import { jensenShannonDistance } from './jensen-shannon.ts';
import { ksTwoSample } from './ks-two-sample.ts';
import { twoProportionZ } from './two-proportion-z.ts';
import { wassersteinNormed } from './wasserstein.ts';

export type DriftKind = 'numeric' | 'categorical';

export interface DriftTestOptions {
  /** Fewest rows on each side for a verdict (default 30). */
  minSamples?: number;
  /** Largest reference for the p-value tests; above it distances are used (default 1000). */
  maxRowsForPValueTest?: number;
  /** Level of the p-value tests (default 0.05). */
  alpha?: number;
  /** Threshold of the distances (default 0.1). */
  distanceThreshold?: number;
}

/** Chooses and runs the drift test for a numeric column. NaN values are dropped. */
export function driftTest(ref: readonly number[], cur: readonly number[], kind: 'numeric', options?: DriftTestOptions): DriftResult;
/** Chooses and runs the drift test for a categorical column (one label per row). */
export function driftTest(ref: readonly string[], cur: readonly string[], kind: 'categorical', options?: DriftTestOptions): DriftResult;
export function driftTest(ref: readonly (number | string)[], cur: readonly (number | string)[], kind: DriftKind, options: DriftTestOptions = {}): DriftResult {
  const minSamples = options.minSamples ?? 30;
  const maxRows = options.maxRowsForPValueTest ?? 1000;
  const alpha = options.alpha ?? 0.05;
  const distanceThreshold = options.distanceThreshold ?? 0.1;

  if (kind === 'numeric') {
    const r = ref.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v));
    const c = cur.filter((v): v is number => typeof v === 'number' && !Number.isNaN(v));
    const small = r.length <= maxRows;
    const method: DriftMethod = small ? 'ks' : 'wasserstein_normed';
    const threshold = small ? alpha : distanceThreshold;
    if (r.length < minSamples || c.length < minSamples) return notEnoughData(method, threshold, r.length, c.length);
    return small ? ksTwoSample(r, c, alpha) : wassersteinNormed(r, c, distanceThreshold);
  }

  const refCounts = countValues(ref.map(String));
  const curCounts = countValues(cur.map(String));
  const labels = [...new Set([...Object.keys(refCounts), ...Object.keys(curCounts)])].sort();
  const small = ref.length <= maxRows;
  const method: DriftMethod = !small ? 'jensen_shannon' : labels.length <= 2 ? 'z' : 'chi_square';
  const threshold = small ? alpha : distanceThreshold;
  if (ref.length < minSamples || cur.length < minSamples) return notEnoughData(method, threshold, ref.length, cur.length);
  if (method === 'jensen_shannon') return jensenShannonDistance(refCounts, curCounts, distanceThreshold);
  if (method === 'chi_square') return chiSquareTest(refCounts, curCounts, alpha);
  const first = labels[0] as string;
  const { z, pValue } = twoProportionZ(refCounts[first] ?? 0, ref.length, curCounts[first] ?? 0, cur.length);
  return byPValue('z', z, pValue, alpha, ref.length, cur.length);
}
