/**
 * Saturation: the service is at capacity when throughput stops growing while requests wait
 * longer (Little's law: with arrivals steady, a growing queue time means a growing queue) and the
 * tail stretches. Over a window of points (one per time bucket), each series gets a Mann–Kendall
 * trend test and a Theil–Sen slope; the window is flagged when
 *   qps has no significant upward trend (p ≥ alpha or S ≤ 0: flat or falling), and
 *   queueMs and p99Ms both trend up significantly (p < alpha and S > 0).
 * With fewer than `minPoints` points no verdict is given (`not_enough_data`).
 */
import { mannKendall } from './mann-kendall.ts';
import { theilSen } from './theil-sen.ts';

/** One time bucket: t in any increasing unit (slopes are per unit of t), rates and latencies. */
export interface SaturationPoint {
  t: number;
  qps: number;
  queueMs: number;
  p99Ms: number;
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

export interface SaturationResult {
  verdict: SaturationVerdict;
  saturated: boolean;
  /** Points used (finite values in all three series). */
  n: number;
  alpha: number;
  qps: TrendEvidence;
  queueMs: TrendEvidence;
  p99Ms: TrendEvidence;
}

export interface SaturationOptions {
  /** Significance level of the trend tests (default 0.05). */
  alpha?: number;
  /** Fewest points for a verdict (default 8; Mann–Kendall cannot reach p < 0.05 below 5). */
  minPoints?: number;
}

function evidence(t: readonly number[], y: readonly number[], alpha: number): TrendEvidence {
  const mk = mannKendall(y);
  const ts = theilSen(t, y);
  const trend: TrendDirection = mk.pValue < alpha ? (mk.s > 0 ? 'up' : 'down') : 'none';
  return { slope: ts.slope, slopeLo: ts.slopeLo, slopeHi: ts.slopeHi, s: mk.s, z: mk.z, pValue: mk.pValue, trend };
}

/** Flags throughput flat or falling while queue time and tail latency rise, with the evidence. */
export function detectSaturation(points: readonly SaturationPoint[], options: SaturationOptions = {}): SaturationResult {
  const alpha = options.alpha ?? 0.05;
  const minPoints = options.minPoints ?? 8;
  const usable = points
    .filter((p) => [p.t, p.qps, p.queueMs, p.p99Ms].every(Number.isFinite))
    .sort((a, b) => a.t - b.t);
  const t = usable.map((p) => p.t);
  const qps = evidence(t, usable.map((p) => p.qps), alpha);
  const queueMs = evidence(t, usable.map((p) => p.queueMs), alpha);
  const p99Ms = evidence(t, usable.map((p) => p.p99Ms), alpha);
  const saturated = usable.length >= minPoints && qps.trend !== 'up' && queueMs.trend === 'up' && p99Ms.trend === 'up';
  const verdict: SaturationVerdict = usable.length < minPoints ? 'not_enough_data' : saturated ? 'saturated' : 'not_saturated';
  return { verdict, saturated, n: usable.length, alpha, qps, queueMs, p99Ms };
}
