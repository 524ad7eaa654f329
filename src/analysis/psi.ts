/**
 * Population Stability Index over aligned bins: PSI = Σ (cᵢ − rᵢ)·ln(cᵢ/rᵢ) with rᵢ, cᵢ the
 * reference and current proportions, each floored at `floor` so empty bins stay finite.
 * Reading: < 0.1 stable, 0.1–0.25 moderate, > 0.25 significant; drift when PSI ≥ 0.1
 * (Evidently's default threshold). PSI of identical distributions is 0.
 * Worked: ref [50, 50], cur [60, 40] → 0.1·ln 1.2 + (−0.1)·ln 0.8 = 0.018232 + 0.022314 = 0.040547.
 */
import { alignCounts, sum } from './align-counts.ts';
import type { Counts } from './align-counts.ts';
import { byDistance, notEnoughData } from './drift-result.ts';
import type { DriftResult } from './drift-result.ts';
import { bucketIndex } from './log-buckets.ts';
import { quantile, sortedFinite } from './quantile.ts';

export type PsiLevel = 'stable' | 'moderate' | 'significant';

export interface PsiResult extends DriftResult {
  /** < 0.1 stable, 0.1–0.25 moderate, > 0.25 significant (null without data). */
  level: PsiLevel | null;
}

/** Upper bin edges of `psiNumeric`, with the counts per bin (one more bin than edges). */
export interface PsiNumericResult extends PsiResult {
  edges: number[];
  refCounts: number[];
  curCounts: number[];
}

const PSI_THRESHOLD = 0.1;

function level(psiValue: number): PsiLevel {
  return psiValue < 0.1 ? 'stable' : psiValue <= 0.25 ? 'moderate' : 'significant';
}

/** PSI of two count vectors over the same bins (arrays aligned, or records by category). */
export function psi(refCounts: Counts, curCounts: Counts, floor = 1e-4): PsiResult {
  const { ref, cur } = alignCounts(refCounts, curCounts, 'psi');
  const nRef = sum(ref);
  const nCur = sum(cur);
  if (nRef === 0 || nCur === 0) return { ...notEnoughData('psi', PSI_THRESHOLD, nRef, nCur), level: null };
  let value = 0;
  ref.forEach((r, i) => {
    const rp = Math.max(r / nRef, floor);
    const cp = Math.max((cur[i] as number) / nCur, floor);
    value += (cp - rp) * Math.log(cp / rp);
  });
  return { ...byDistance('psi', value, PSI_THRESHOLD, nRef, nCur), level: level(value) };
}

/**
 * PSI of two numeric samples on bins cut at the reference's quantiles i/bins (type 7), equal edges
 * merged; a value equal to an edge falls in the bin below it (v ≤ edge). Bins are equally
 * populated in the reference when values are distinct.
 */
export function psiNumeric(ref: readonly number[], cur: readonly number[], bins = 10, floor = 1e-4): PsiNumericResult {
  const sortedRef = sortedFinite(ref);
  const finiteCur = cur.filter((v) => !Number.isNaN(v));
  const edges: number[] = [];
  if (sortedRef.length > 0) {
    for (let i = 1; i < bins; i++) {
      const e = quantile(sortedRef, i / bins);
      if (edges.length === 0 || e > (edges[edges.length - 1] as number)) edges.push(e);
    }
  }
  const refCounts = new Array<number>(edges.length + 1).fill(0);
  const curCounts = new Array<number>(edges.length + 1).fill(0);
  for (const v of sortedRef) refCounts[bucketIndex(edges, v)]! += 1;
  for (const v of finiteCur) curCounts[bucketIndex(edges, v)]! += 1;
  return { ...psi(refCounts, curCounts, floor), edges, refCounts, curCounts };
}
