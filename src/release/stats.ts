/**
 * The per-metric statistics of a release comparison, pure: each returns a `Measurement` (values,
 * difference, 95 % interval, p-value, tolerance band) that `judge.ts` classifies after the
 * p-values of all metrics have been adjusted together.
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import { driftTest, hodgesLehmann, mannWhitneyU, median, proportionTest, wilson } from '../analysis/index.ts';
import type { MetricDef } from './metrics.ts';

/** z of a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

/** How the judge reads a measurement. */
export type JudgeRule =
  /** Beyond the band when the whole 95 % interval is (Kayenta); needs q < α too. */
  | 'interval'
  /** Beyond the band when the point difference is and q < α (rates). */
  | 'point'
  /** Changed when the drift statistic reaches its threshold (distance) or q < α (p-value test). */
  | 'drift';

export interface Measurement {
  def: MetricDef;
  baseline: number | null;
  candidate: number | null;
  /** candidate − baseline, in the metric's unit. */
  diff: number | null;
  ci: [number, number] | null;
  pValue: number | null;
  test: string;
  /** Half-width of the tolerance band in the metric's unit (a drift threshold for drift rows). */
  tolerance: number | null;
  unit: 'ms' | 'fraction' | 'distance' | 'statistic' | 'confidence';
  n: { baseline: number; candidate: number };
  rule: JudgeRule;
  /** A drift statistic already at or over its distance threshold (drift rows only). */
  drifted?: boolean;
  /** Why the row has no verdict; set means classification `no_data`. */
  noData?: string;
  notes: string[];
}

/** Two-sided normal p-value, 2Φ(−|z|); NaN → 1. */
export function twoSidedP(z: number): number {
  if (Number.isNaN(z)) return 1;
  return Math.min(1, 2 * normalCdf(-Math.abs(z), 0, 1));
}

function base(def: MetricDef, unit: Measurement['unit'], rule: JudgeRule, test: string, nB: number, nC: number): Measurement {
  return {
    def,
    baseline: null,
    candidate: null,
    diff: null,
    ci: null,
    pValue: null,
    test,
    tolerance: null,
    unit,
    n: { baseline: nB, candidate: nC },
    rule,
    notes: [],
  };
}

/** A row with no verdict, saying why. */
export function noData(def: MetricDef, unit: Measurement['unit'], test: string, nB: number, nC: number, why: string): Measurement {
  return { ...base(def, unit, 'point', test, nB, nC), noData: why };
}

/**
 * Kayenta's rank comparison of latency samples: Mann–Whitney U p-value, Hodges–Lehmann shift of
 * candidate over baseline with its 95 % interval; band = max(relative × baseline median, minMs).
 * Worked: baseline median 40 ms, 5 % → 2 ms band; HL shift +8.1 ms, CI [7.4, 8.8] → lo 7.4 > 2: high.
 */
export function latencyShift(
  def: MetricDef,
  x: readonly number[],
  y: readonly number[],
  relative: number,
  minMs: number,
  seed: number,
  maxPerSide = 2000,
): Measurement {
  const m = base(def, 'ms', 'interval', 'mann_whitney_u+hodges_lehmann', x.length, y.length);
  const baselineMedian = median(x as number[]);
  const hl = hodgesLehmann(x, y, { seed, maxPerSide });
  m.baseline = baselineMedian;
  m.candidate = median(y as number[]);
  m.diff = hl.shift;
  m.ci = [hl.lo, hl.hi];
  m.pValue = mannWhitneyU(x, y).pValue;
  m.tolerance = Math.max(relative * baselineMedian, minMs);
  if (hl.subsampled) m.notes.push(`Hodges–Lehmann on a seeded subsample of ${hl.nX} / ${hl.nY} values (seed ${seed}); the U test used all`);
  return m;
}

/**
 * Distribution-free standard error of a sample q-quantile from the order statistics that bracket
 * it: ranks nq ∓ z√(nq(1−q)) (the binomial interval of the rank), SE = (x₍ᵤ₎ − x₍ₗ₎)/(2z).
 * Worked: n = 10 000, q = 0.99 → nq = 9900, z√(99) = 19.50 → ranks 9880 and 9920; for the values
 * 1…10 000 that is SE = 40/(2·1.96) = 10.20.
 */
export function quantileSE(sorted: readonly number[], q: number, z = Z95): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = z * Math.sqrt(n * q * (1 - q));
  const l = Math.min(n, Math.max(1, Math.floor(n * q - h)));
  const u = Math.min(n, Math.max(1, Math.ceil(n * q + h)));
  return ((sorted[u - 1] as number) - (sorted[l - 1] as number)) / (2 * z);
}

/**
 * Difference of one latency quantile: the exact values from the store, a normal interval from the
 * order-statistic SEs of the raw samples (conservative when those were subsampled), a z-test.
 * Worked: p99 1 000 → 1 200 ms, SEs 18 and 22 ms → SE 28.4, CI [144, 256], z 7.0; band 50 ms: high.
 */
export function quantileDiff(
  def: MetricDef,
  q: number,
  exact: { baseline: number | null; candidate: number | null },
  sortedX: readonly number[],
  sortedY: readonly number[],
  relative: number,
  minMs: number,
): Measurement {
  const m = base(def, 'ms', 'interval', 'quantile_order_statistics', sortedX.length, sortedY.length);
  const qb = exact.baseline ?? quantileOfSorted(sortedX, q);
  const qc = exact.candidate ?? quantileOfSorted(sortedY, q);
  if (exact.baseline === null || exact.candidate === null) m.notes.push('quantile from the raw sample: the store returned none');
  const se = Math.hypot(quantileSE(sortedX, q), quantileSE(sortedY, q));
  const diff = qc - qb;
  m.baseline = qb;
  m.candidate = qc;
  m.diff = diff;
  m.ci = [diff - Z95 * se, diff + Z95 * se];
  m.pValue = se > 0 ? twoSidedP(diff / se) : diff === 0 ? 1 : 0;
  m.tolerance = Math.max(relative * qb, minMs);
  return m;
}

function quantileOfSorted(sorted: readonly number[], q: number): number {
  const n = sorted.length;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(n - 1, lo + 1)] as number;
  return a + (h - lo) * (b - a);
}

/**
 * Two proportions k/n: the test of `proportionTest` (Fisher when an expected count is < 5, else
 * pooled z), the difference candidate − baseline with Newcombe's hybrid score interval (from the
 * two Wilson intervals); band in percentage points.
 * Worked: 20/2000 → 40/2000 errors: diff +1.00 pp, Newcombe CI [+0.25, +1.79] pp, z 2.60, p 0.0093.
 */
export function rateDiff(def: MetricDef, kB: number, nB: number, kC: number, nC: number, tolerancePp: number): Measurement {
  const pt = proportionTest(kC, nC, kB, nB);
  const m = base(def, 'fraction', 'point', pt.method === 'fisher' ? 'fisher_exact' : 'two_proportion_z', nB, nC);
  const b = wilson(kB, nB);
  const c = wilson(kC, nC);
  const diff = c.rate - b.rate;
  m.baseline = b.rate;
  m.candidate = c.rate;
  m.diff = diff;
  m.ci = [diff - Math.hypot(c.rate - c.lo, b.hi - b.rate), diff + Math.hypot(c.hi - c.rate, b.rate - b.lo)];
  m.pValue = pt.pValue;
  m.tolerance = tolerancePp / 100;
  return m;
}

/** Output label distribution: `driftTest` categorical (chi-square ≤ 1000 rows, else Jensen–Shannon). */
export function labelDrift(def: MetricDef, x: readonly string[], y: readonly string[], minSamples: number): Measurement {
  const r = driftTest(x, y, 'categorical', { minSamples });
  return fromDrift(def, r, 'distance');
}

/** Confidence distribution: `driftTest` numeric (KS ≤ 1000 rows, else Wasserstein / baseline sd). */
export function confidenceDrift(def: MetricDef, x: readonly number[], y: readonly number[], minSamples: number): Measurement {
  const r = driftTest(x, y, 'numeric', { minSamples });
  return fromDrift(def, r, 'statistic');
}

function fromDrift(def: MetricDef, r: ReturnType<typeof driftTest>, unit: Measurement['unit']): Measurement {
  const m = base(def, r.pValue === null ? unit : 'statistic', 'drift', r.method, r.nRef, r.nCur);
  if (r.verdict === 'not_enough_data') return { ...m, noData: `fewer than the minimum rows on a side (${r.nRef} / ${r.nCur})` };
  if (r.verdict === 'low_expected_counts') return { ...m, noData: 'chi-square with an expected count below 5: send more traffic or fewer labels' };
  m.diff = r.statistic;
  m.pValue = r.pValue;
  m.tolerance = r.threshold;
  m.drifted = r.pValue === null ? r.statistic >= r.threshold : undefined;
  return m;
}

/** Confidence level: Hodges–Lehmann shift with the U test, band ± `band` on the 0–1 scale. */
export function confidenceShift(def: MetricDef, x: readonly number[], y: readonly number[], band: number, seed: number, maxPerSide = 2000): Measurement {
  const m = latencyShift(def, x, y, 0, band, seed, maxPerSide);
  return { ...m, unit: 'confidence', tolerance: band };
}
