/**
 * The metric catalog of a release comparison: names, families, weights, which are critical, which
 * direction is bad, and the default tolerance bands. Documented with worked numbers in README.md.
 */
import { LATENCY_FIELDS } from '../schema/index.ts';
import type { LatencyField } from '../schema/index.ts';

/** Groups a request may select with `metrics: [...]`. */
export const METRIC_FAMILIES = ['latency', 'stage_latency', 'rates', 'output', 'accuracy'] as const;
export type MetricFamily = (typeof METRIC_FAMILIES)[number];

/** Which way is bad: `up` (latency, error rate), `down` (accuracy, confidence), `any` (drift). */
export type BadWhen = 'up' | 'down' | 'any';

export interface MetricDef {
  name: string;
  family: MetricFamily;
  /** Share of the score this metric carries (relative; only metrics with data count). */
  weight: number;
  /** Worse here means rollback whatever the score. */
  critical: boolean;
  badWhen: BadWhen;
}

/** Tolerance bands: a difference inside them is "pass" however significant. */
export interface Tolerance {
  /** Latency: fraction of the baseline value (median for the shift, the quantile for pXX). */
  latencyRelative: number;
  /**
   * Latency: the band is never narrower than this many ms. Default 0.001 ms, the resolution
   * latencies are stored at: the band scales with the metric, so a sub-millisecond model's 2.5×
   * regression (0.3 → 0.75 ms) is not hidden inside a fixed 1 ms band.
   */
  latencyMinMs: number;
  /** Rates: percentage points (0.5 = +0.5 pp). */
  errorRatePp: number;
  rejectRatePp: number;
  timeoutRatePp: number;
  /** Golden pass rate and feedback hit rate: a drop of more than this many pp is worse. */
  accuracyPp: number;
  /** Confidence (0–1 scale): a Hodges–Lehmann shift beyond this is a change. */
  confidenceShift: number;
}

export const DEFAULT_TOLERANCE: Tolerance = {
  latencyRelative: 0.05,
  latencyMinMs: 0.001,
  errorRatePp: 0.5,
  rejectRatePp: 0.5,
  timeoutRatePp: 0.5,
  accuracyPp: 1,
  confidenceShift: 0.02,
};

/** Latency rows per field: the rank test on the whole distribution, then three quantiles. */
export const LATENCY_KINDS = ['shift', 'p50', 'p95', 'p99'] as const;
export type LatencyKind = (typeof LATENCY_KINDS)[number];
export const QUANTILE_OF: Record<Exclude<LatencyKind, 'shift'>, number> = { p50: 0.5, p95: 0.95, p99: 0.99 };

/** Fields judged like the end-to-end latency (weight 1–2); the stages weigh 0.5 per row. */
const HEADLINE: ReadonlySet<LatencyField> = new Set<LatencyField>(['total_ms', 'ttft_ms', 'tpot_ms']);

export function latencyMetric(kind: LatencyKind, field: LatencyField): MetricDef {
  const headline = HEADLINE.has(field);
  const heavy = kind === 'shift' || kind === 'p99';
  return {
    name: `${kind}(${field})`,
    family: headline ? 'latency' : 'stage_latency',
    weight: headline ? (heavy ? 2 : 1) : 0.5,
    critical: field === 'total_ms' && kind === 'p99',
    badWhen: 'up',
  };
}

export const RATE_METRICS: readonly MetricDef[] = [
  { name: 'error_rate', family: 'rates', weight: 3, critical: true, badWhen: 'up' },
  { name: 'timeout_rate', family: 'rates', weight: 1, critical: false, badWhen: 'up' },
  { name: 'reject_rate', family: 'rates', weight: 1, critical: false, badWhen: 'up' },
];

export const OUTPUT_METRICS: readonly MetricDef[] = [
  { name: 'label_drift', family: 'output', weight: 1, critical: false, badWhen: 'any' },
  { name: 'confidence_drift', family: 'output', weight: 1, critical: false, badWhen: 'any' },
  { name: 'confidence_shift', family: 'output', weight: 1, critical: false, badWhen: 'down' },
];

export const ACCURACY_METRICS: readonly MetricDef[] = [
  { name: 'golden_pass_rate', family: 'accuracy', weight: 3, critical: true, badWhen: 'down' },
  { name: 'feedback_hit_rate', family: 'accuracy', weight: 3, critical: true, badWhen: 'down' },
];

const FIXED: ReadonlyMap<string, MetricDef> = new Map([...RATE_METRICS, ...OUTPUT_METRICS, ...ACCURACY_METRICS].map((m) => [m.name, m]));
const LATENCY_NAME = new RegExp(`^(${LATENCY_KINDS.join('|')})\\((${LATENCY_FIELDS.join('|')})\\)$`);

/** The definition of a metric name, or undefined when it is not in the catalog. */
export function metricDef(name: string): MetricDef | undefined {
  const fixed = FIXED.get(name);
  if (fixed) return fixed;
  const m = LATENCY_NAME.exec(name);
  return m ? latencyMetric(m[1] as LatencyKind, m[2] as LatencyField) : undefined;
}

export function isKnownMetric(name: string): boolean {
  return metricDef(name) !== undefined;
}

/** Whether a metric is selected by a `metrics` list of names and families (undefined = all). */
export function selected(def: MetricDef, wanted: ReadonlySet<string> | undefined): boolean {
  return !wanted || wanted.has(def.name) || wanted.has(def.family);
}
