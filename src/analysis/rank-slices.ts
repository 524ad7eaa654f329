/**
 * Where do bad events (errors, or requests above a latency threshold) concentrate? Each slice
 * (one dimension value, or a combination such as model_version=v2 × replica=r3) is compared with
 * the rest of the traffic (total minus the slice).
 *
 * Per slice: rate k/n with its Wilson interval, the rest's rate, the pooled z statistic, a
 * two-sided p-value (Fisher's exact test when an expected count is below 5, else z), the excess
 * count n·(rate − restRate), and a Benjamini–Hochberg q-value across every slice tested.
 *
 * Rules, in order:
 * 1. Support: slices with n < minSupport, or covering all traffic (nothing to compare with), are
 *    left out of the output and out of the BH family.
 * 2. Significant: qValue < alpha and rate > restRate (a slice better than the rest is not a
 *    concentration of bad events).
 * 3. Most general explanation: a combination slice (d ≥ 2 keys) is significant only if its rate is
 *    also significantly higher (two-sided proportion test, p < alpha, unadjusted: it only gates a
 *    slice that already passed BH) than the remainder of each parent present in the input (the
 *    parent is the slice with one key fewer; its remainder is parent minus this slice). If it is
 *    not, the parent already explains it: verdict `parent_explains`. A slice identical to its parent
 *    (empty remainder) is never preferred over the parent.
 * 4. Conversely a significant slice is marked `explainedBy` its most specific significant child
 *    when, without that child, it is no longer significantly above the traffic outside it:
 *    it only dilutes the child.
 * 5. Ranking: significant slices first, then by `score` = lo − restRate (the rate lift we are
 *    confident of: Wilson lower bound above the rest's rate), then by excess. The lift, not the
 *    excess count, leads, because excess grows with traffic and would hide a low-traffic model
 *    at 30 % errors behind a large slice a few tenths of a percent above the fleet: 9 errors in
 *    30 requests against a fleet at 1 % scores 0.1666 − 0.0091 = 0.158; a 5,000-request region at
 *    1.28 % vs 0.72 % scores 0.0100 − 0.0072 = 0.003 despite an excess of 28 errors. Small slices
 *    are held back by the wide interval (lo) and by the significance gate.
 */
import { InferlensError } from '../schema/index.ts';
import { benjaminiHochberg } from './p-adjust.ts';
import { proportionTest } from './proportion-test.ts';
import type { ProportionMethod } from './proportion-test.ts';
import { checkCount, wilson } from './wilson.ts';

/** Counts for one slice: n requests, k of them bad. */
export interface SliceCount {
  /** Dimension values that define the slice, e.g. `{ model_version: 'v2', replica: 'r3' }`. */
  slice: Record<string, string>;
  n: number;
  k: number;
}

export interface RankSlicesInput {
  /** All traffic in the window: n requests, k bad. Every slice is a subset of it. */
  total: { n: number; k: number };
  /** Single-dimension slices and combinations (pairs); parents are matched by their keys. */
  slices: SliceCount[];
  /** Smallest slice tested, in requests (default 20). */
  minSupport?: number;
  /** False discovery rate for the BH q-values and level of the parent tests (default 0.05). */
  alpha?: number;
}

/** Why a slice is or is not flagged. */
export type SliceVerdict = 'elevated' | 'not_significant' | 'not_elevated' | 'parent_explains';

export interface RankedSlice {
  slice: Record<string, string>;
  n: number;
  k: number;
  /** k/n. */
  rate: number;
  /** Wilson 95 % interval of the rate. */
  lo: number;
  hi: number;
  /** Rate of the traffic outside the slice, (K − k)/(N − n). */
  restRate: number;
  /** Pooled two-proportion z (positive: the slice is worse than the rest). */
  z: number;
  /** Two-sided p-value of slice vs rest, from `method`. */
  pValue: number;
  method: ProportionMethod;
  /** Benjamini–Hochberg q-value across all slices tested. */
  qValue: number;
  /** Bad events beyond what the rest's rate predicts: n·(rate − restRate). */
  excess: number;
  /** Ranking score lo − restRate (rule 5). */
  score: number;
  significant: boolean;
  verdict: SliceVerdict;
  /** A significant child slice that carries this slice's whole elevation (rule 4). */
  explainedBy?: Record<string, string>;
}

const DEFAULT_MIN_SUPPORT = 20;
const DEFAULT_ALPHA = 0.05;

/** Canonical identity of a slice: its entries sorted by key. */
function sliceKey(slice: Record<string, string>): string {
  return Object.keys(slice)
    .sort()
    .map((k) => `${k}=${slice[k] as string}`)
    .join('\u0000');
}

/** The slices with exactly one key fewer. */
function parentKeys(slice: Record<string, string>): string[] {
  const keys = Object.keys(slice);
  if (keys.length < 2) return [];
  return keys.map((drop) => {
    const parent: Record<string, string> = {};
    for (const k of keys) if (k !== drop) parent[k] = slice[k] as string;
    return sliceKey(parent);
  });
}

/** Tests every slice against the rest and returns them ranked, most important first (see rules above). */
export function rankSlices(input: RankSlicesInput): RankedSlice[] {
  const { total } = input;
  const minSupport = input.minSupport ?? DEFAULT_MIN_SUPPORT;
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  checkCount(total.k, total.n, 'rankSlices total');
  for (const s of input.slices) {
    checkCount(s.k, s.n, `rankSlices slice ${JSON.stringify(s.slice)}`);
    if (s.n > total.n || s.k > total.k) {
      throw new InferlensError(
        'invalid_argument',
        `rankSlices: slice ${JSON.stringify(s.slice)} (n = ${s.n}, k = ${s.k}) exceeds the total (n = ${total.n}, k = ${total.k}); count slices over the same window as the total`,
      );
    }
  }

  const tested = input.slices.filter((s) => s.n >= minSupport && s.n < total.n);
  const rows = tested.map((s) => {
    const restN = total.n - s.n;
    const restK = total.k - s.k;
    const { rate, lo, hi } = wilson(s.k, s.n);
    const restRate = restK / restN;
    const test = proportionTest(s.k, s.n, restK, restN);
    return {
      slice: s.slice,
      n: s.n,
      k: s.k,
      rate,
      lo,
      hi,
      restRate,
      z: test.z,
      pValue: test.pValue,
      method: test.method,
      qValue: NaN,
      excess: s.n * (rate - restRate),
      score: lo - restRate,
      significant: false,
      verdict: 'not_significant' as SliceVerdict,
    } satisfies RankedSlice as RankedSlice;
  });
  const qValues = benjaminiHochberg(rows.map((r) => r.pValue));
  rows.forEach((r, i) => {
    r.qValue = qValues[i] as number;
    if (r.rate <= r.restRate) r.verdict = 'not_elevated';
    else if (r.qValue < alpha) r.verdict = 'elevated';
  });

  // Rule 3: a combination must beat the remainder of each parent present.
  const byKey = new Map(input.slices.map((s) => [sliceKey(s.slice), s]));
  for (const r of rows) {
    if (r.verdict !== 'elevated') continue;
    for (const pk of parentKeys(r.slice)) {
      const parent = byKey.get(pk);
      if (parent === undefined) continue;
      const remN = parent.n - r.n;
      const remK = parent.k - r.k;
      const beats = remN > 0 && remK >= 0 && r.k / r.n > remK / remN && proportionTest(r.k, r.n, remK, remN).pValue < alpha;
      if (!beats) {
        r.verdict = 'parent_explains';
        break;
      }
    }
    r.significant = r.verdict === 'elevated';
  }

  // Rule 4: a significant parent whose elevation is carried by one significant child.
  const rowByKey = new Map(rows.map((r) => [sliceKey(r.slice), r]));
  const children = rows.filter((r) => r.significant && Object.keys(r.slice).length >= 2).sort((a, b) => b.score - a.score);
  for (const child of children) {
    for (const pk of parentKeys(child.slice)) {
      const parent = rowByKey.get(pk);
      if (parent === undefined || !parent.significant || parent.explainedBy !== undefined) continue;
      const remN = parent.n - child.n;
      const remK = parent.k - child.k;
      const outsideN = total.n - parent.n;
      const outsideK = total.k - parent.k;
      const stillElevated = remN > 0 && remK / remN > outsideK / outsideN && proportionTest(remK, remN, outsideK, outsideN).pValue < alpha;
      if (!stillElevated) parent.explainedBy = child.slice;
    }
  }

  // Ties (e.g. two slices holding the same requests) break on fewer keys first, then the slice's
  // text, so the order never depends on the order the counts arrived in.
  const text = (r: RankedSlice) =>
    Object.entries(r.slice)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  return rows.sort(
    (a, b) =>
      Number(b.significant) - Number(a.significant) ||
      b.score - a.score ||
      b.excess - a.excess ||
      Object.keys(a.slice).length - Object.keys(b.slice).length ||
      (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0),
  );
}
