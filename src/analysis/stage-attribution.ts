/**
 * Which stage made the tail latency grow? Quantiles are not additive (P99 of the total is not the
 * sum of the stages' P99s), so each stage's own quantile is compared between two windows and the
 * stage with the largest growth in milliseconds is named. Pair it with `compareTailComposition`,
 * which looks at the requests in the tail themselves.
 * Worked: exec_ms P99 19.801 ms → 59.403 ms is +39.602 ms (×3); other stages unchanged → exec_ms.
 */
import { quantile, sortedFinite } from './quantile.ts';

/** Latency samples per stage, in milliseconds, keyed by field name (ingress_ms, …, total_ms). */
export type StageSamples = Record<string, readonly number[]>;

/** One stage's quantile in both windows. */
export interface StageShift {
  stage: string;
  /** Quantile of the current window (NaN without samples). */
  currentMs: number;
  baselineMs: number;
  /** currentMs − baselineMs. */
  deltaMs: number;
  /** currentMs / baselineMs (Infinity from a 0 ms baseline, NaN for 0/0). */
  ratio: number;
  nCurrent: number;
  nBaseline: number;
}

export interface StageAttribution {
  /** The quantile compared, e.g. 0.99. */
  q: number;
  /** Every stage except the total, in first-seen order. */
  stages: StageShift[];
  /** The total's shift, when the total key is present in either window. */
  total: StageShift | null;
  /** The stage whose quantile grew most in ms; null when none grew. */
  grewMost: string | null;
}

export interface StageAttributionOptions {
  /** Key of the end-to-end latency (default 'total_ms'). */
  totalKey?: string;
}

function shift(stage: string, q: number, current: readonly number[], baseline: readonly number[]): StageShift {
  const cur = sortedFinite(current);
  const base = sortedFinite(baseline);
  const currentMs = quantile(cur, q);
  const baselineMs = quantile(base, q);
  return {
    stage,
    currentMs,
    baselineMs,
    deltaMs: currentMs - baselineMs,
    ratio: currentMs / baselineMs,
    nCurrent: cur.length,
    nBaseline: base.length,
  };
}

/** Compares each stage's q-quantile (type 7) now vs before and names the stage that grew most. */
export function attributeStages(current: StageSamples, baseline: StageSamples, q = 0.99, options: StageAttributionOptions = {}): StageAttribution {
  const totalKey = options.totalKey ?? 'total_ms';
  const names = [...new Set([...Object.keys(current), ...Object.keys(baseline)])];
  const all = names.map((s) => shift(s, q, current[s] ?? [], baseline[s] ?? []));
  const stages = all.filter((s) => s.stage !== totalKey);
  let grewMost: StageShift | null = null;
  for (const s of stages) {
    if (Number.isFinite(s.deltaMs) && s.deltaMs > 0 && (grewMost === null || s.deltaMs > grewMost.deltaMs)) grewMost = s;
  }
  return { q, stages, total: all.find((s) => s.stage === totalKey) ?? null, grewMost: grewMost?.stage ?? null };
}
