/**
 * Jensen–Shannon distance between two categorical distributions, base 2, in [0, 1]: the square
 * root of JSD = ½·KL(p‖m) + ½·KL(q‖m), m = (p + q)/2 (as scipy.spatial.distance.jensenshannon).
 * Drift when ≥ 0.1 (Evidently's default).
 * Worked: p = [½, ½], q = [1, 0] → m = [¾, ¼]; KL(p‖m) = ½·log2(⅔) + ½·log2 2 = 0.207519;
 * KL(q‖m) = log2(4/3) = 0.415037; JSD = 0.311278; distance = 0.557923.
 */
import { alignCounts, sum } from './align-counts.ts';
import type { Counts } from './align-counts.ts';
import { byDistance, notEnoughData } from './drift-result.ts';
import type { DriftResult } from './drift-result.ts';

/** Jensen–Shannon distance (base 2) of two count vectors or category records. */
export function jensenShannonDistance(p: Counts, q: Counts, threshold = 0.1): DriftResult {
  const { ref, cur } = alignCounts(p, q, 'jensenShannonDistance');
  const nRef = sum(ref);
  const nCur = sum(cur);
  if (nRef === 0 || nCur === 0) return notEnoughData('jensen_shannon', threshold, nRef, nCur);
  let divergence = 0;
  ref.forEach((r, i) => {
    const a = r / nRef;
    const b = (cur[i] as number) / nCur;
    const m = (a + b) / 2;
    if (a > 0) divergence += 0.5 * a * Math.log2(a / m);
    if (b > 0) divergence += 0.5 * b * Math.log2(b / m);
  });
  return byDistance('jensen_shannon', Math.sqrt(Math.min(1, Math.max(0, divergence))), threshold, nRef, nCur);
}
