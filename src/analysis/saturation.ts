/**
 * Saturation: the service is at capacity when it stops keeping up. Two signatures, either one
 * flags the window (USE method: utilisation, saturation, errors):
 * - queueing: served throughput does not rise while requests wait longer (Little's law: with
 *   arrivals steady, a growing queue time means a growing queue) and the tail stretches:
 *   qps has no significant upward trend (p ≥ alpha or S ≤ 0) while queueMs and p99Ms both trend
 *   up significantly (p < alpha and S > 0);
 * - shedding: the share of offered requests turned away (rejected or rate-limited) trends up
 *   significantly and is at least `minShedRate` in the window. A load spike past capacity raises
 *   served throughput to the ceiling, so the first signature alone calls it healthy.
 * Trends are tested on a baseline before the window plus the window itself (each series gets a
 * Mann–Kendall test and a Theil–Sen slope): a window that starts at the onset is flat inside, and
 * only the step up from the baseline shows it. Points with `baseline: true` form the baseline; the
 * window's own median queue time (for queueing) or mean shed share (for shedding) must be above the
 * baseline's, so a saturation that ended before the window does not flag it.
 * With fewer than `minPoints` points in all, no verdict is given (`not_enough_data`).
 */
import { mannKendall } from './mann-kendall.ts';
import { median } from './quantile.ts';
import { theilSen } from './theil-sen.ts';

/** One time bucket: t in any increasing unit (slopes are per unit of t), rates and latencies. */
export interface SaturationPoint {
  t: number;
  /** Served throughput: requests completed (not turned away) per second. */
  qps: number;
  queueMs: number;
  p99Ms: number;
  /** Share of offered requests rejected or rate-limited, in [0, 1]; absent when unknown. */
  shedRate?: number;
  /** True for the points of the baseline before the window judged. */
  baseline?: boolean;
}

export type TrendDirection = 'up' | 'down' | 'none';

/** Evidence for one series. */
export interface TrendEvidence {
  /** Theil–Sen slope per unit of t, with its 95 % interval. */
  slope: number;
  slopeLo: number;
  slopeHi: number;
  /** Mann–Kendall S, z and two-sided p-value. */
  s: number;
  z: number;
  pValue: number;
  /** 'up' or 'down' when p < alpha, else 'none'. */
  trend: TrendDirection;
}

export type SaturationVerdict = 'saturated' | 'not_saturated' | 'not_enough_data';

/** Which signature flagged the window. */
export type SaturationSignal = 'queueing' | 'shedding';

export interface SaturationResult {
  verdict: SaturationVerdict;
  saturated: boolean;
  /** The signatures present (empty unless saturated). */
  signals: SaturationSignal[];
  /** One sentence per signature present, with the numbers. */
  reasons: string[];
  /** Points used (finite values in the three latency/throughput series), baseline included. */
  n: number;
  /** Baseline points among them. */
  nBaseline: number;
  alpha: number;
  qps: TrendEvidence;
  queueMs: TrendEvidence;
  p99Ms: TrendEvidence;
  /** Trend of the shed share; null when no point carries one. */
  shedRate: TrendEvidence | null;
}

export interface SaturationOptions {
  /** Significance level of the trend tests (default 0.05). */
  alpha?: number;
  /** Fewest points for a verdict (default 8; Mann–Kendall cannot reach p < 0.05 below 5). */
  minPoints?: number;
  /** Smallest mean shed share in the window for the shedding signature (default 0.01). */
  minShedRate?: number;
}

function evidence(t: readonly number[], y: readonly number[], alpha: number): TrendEvidence {
  const mk = mannKendall(y);
  const ts = theilSen(t, y);
  const trend: TrendDirection = mk.pValue < alpha ? (mk.s > 0 ? 'up' : 'down') : 'none';
  return { slope: ts.slope, slopeLo: ts.slopeLo, slopeHi: ts.slopeHi, s: mk.s, z: mk.z, pValue: mk.pValue, trend };
}

const mean = (v: readonly number[]): number => (v.length === 0 ? NaN : v.reduce((a, b) => a + b, 0) / v.length);
const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

/** Flags a window whose served throughput stalls while queue and tail grow, or which sheds load. */
export function detectSaturation(points: readonly SaturationPoint[], options: SaturationOptions = {}): SaturationResult {
  const alpha = options.alpha ?? 0.05;
  const minPoints = options.minPoints ?? 8;
  const minShedRate = options.minShedRate ?? 0.01;
  const usable = points.filter((p) => [p.t, p.qps, p.queueMs, p.p99Ms].every(Number.isFinite)).sort((a, b) => a.t - b.t);
  const t = usable.map((p) => p.t);
  const qps = evidence(
    t,
    usable.map((p) => p.qps),
    alpha,
  );
  const queueMs = evidence(
    t,
    usable.map((p) => p.queueMs),
    alpha,
  );
  const p99Ms = evidence(
    t,
    usable.map((p) => p.p99Ms),
    alpha,
  );
  const withShed = usable.filter((p) => Number.isFinite(p.shedRate));
  const shedRate =
    withShed.length > 0
      ? evidence(
          withShed.map((p) => p.t),
          withShed.map((p) => p.shedRate as number),
          alpha,
        )
      : null;
  const base = usable.filter((p) => p.baseline === true);
  const win = usable.filter((p) => p.baseline !== true);
  const nBaseline = base.length;
  const enough = usable.length >= minPoints && win.length > 0;

  const signals: SaturationSignal[] = [];
  const reasons: string[] = [];
  if (enough) {
    const queueNow = median(win.map((p) => p.queueMs));
    const queueBefore = median(base.map((p) => p.queueMs));
    const queueAbove = base.length === 0 || queueNow > queueBefore;
    if (qps.trend !== 'up' && queueMs.trend === 'up' && p99Ms.trend === 'up' && queueAbove) {
      signals.push('queueing');
      reasons.push(
        `served throughput is ${qps.trend === 'down' ? 'falling' : 'flat'} while queue time (median ${queueNow.toFixed(1)} ms${base.length ? ` vs ${queueBefore.toFixed(1)} ms before` : ''}) and P99 trend up (Mann–Kendall p = ${queueMs.pValue.toPrecision(2)}, ${p99Ms.pValue.toPrecision(2)})`,
      );
    }
    const winShed = win.filter((p) => Number.isFinite(p.shedRate)).map((p) => p.shedRate as number);
    const baseShed = base.filter((p) => Number.isFinite(p.shedRate)).map((p) => p.shedRate as number);
    const shedNow = mean(winShed);
    const shedBefore = mean(baseShed);
    if (shedRate?.trend === 'up' && shedNow >= minShedRate && (baseShed.length === 0 || shedNow > shedBefore)) {
      signals.push('shedding');
      reasons.push(
        `${pct(shedNow)} of offered requests were rejected or rate-limited${baseShed.length ? ` (${pct(shedBefore)} before)` : ''}, trending up (Mann–Kendall p = ${shedRate.pValue.toPrecision(2)})`,
      );
    }
  }
  const saturated = signals.length > 0;
  const verdict: SaturationVerdict = !enough ? 'not_enough_data' : saturated ? 'saturated' : 'not_saturated';
  return { verdict, saturated, signals, reasons, n: usable.length, nBaseline, alpha, qps, queueMs, p99Ms, shedRate };
}
