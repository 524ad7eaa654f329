/**
 * From measurements to the verdict, Kayenta-style: adjust the p-values of all metrics together,
 * classify each metric against its tolerance band, score the weighted share of passing metrics,
 * and turn score and critical metrics into promote / hold / rollback / not_enough_data.
 * The rules with worked numbers are in README.md.
 */
import { benjaminiHochberg, holm } from '../analysis/index.ts';
import type { MetricFamily } from './metrics.ts';
import type { Measurement } from './stats.ts';

/** Significance level on the adjusted p-values (q). */
export const ALPHA = 0.05;

export type Verdict = 'promote' | 'hold' | 'rollback' | 'not_enough_data';
export type Classification = 'pass' | 'high' | 'low' | 'no_data';
export type Direction = 'better' | 'worse' | 'same';

/** One row of the evidence table (JSON-safe: null where there is no number). */
export interface EvidenceRow {
  metric: string;
  family: MetricFamily;
  baseline: number | null;
  candidate: number | null;
  /** candidate − baseline (ms, fraction, or the drift statistic for drift rows). */
  diff: number | null;
  /** 95 % interval of diff. */
  ci: [number, number] | null;
  pValue: number | null;
  /** p adjusted across every metric with a p-value (Benjamini–Hochberg or Holm). */
  qValue: number | null;
  test: string;
  unit: Measurement['unit'];
  /** Half-width of the band that counts as "the same" (a drift threshold for drift rows). */
  tolerance: number | null;
  direction: Direction;
  classification: Classification;
  weight: number;
  critical: boolean;
  n: { baseline: number; candidate: number };
  /** Why there is no verdict, subsampling, fallbacks. */
  note: string | null;
}

export interface Judgement {
  verdict: Verdict;
  /** 0–100, weighted share of passing metrics among those with data; null without data. */
  score: number | null;
  reasons: string[];
  evidence: EvidenceRow[];
}

export interface JudgeOptions {
  correction: 'bh' | 'holm';
  promoteScore: number;
  rollbackScore: number;
  /** Set when a side has too little traffic for any verdict: the reason. */
  tooLittleTraffic?: string;
}

const finite = (v: number | null): number | null => (v === null || !Number.isFinite(v) ? null : v);

/** Classifies one measurement given its adjusted p-value. */
export function classify(m: Measurement, q: number | null): { classification: Classification; direction: Direction } {
  if (m.noData !== undefined || m.diff === null || Number.isNaN(m.diff)) return { classification: 'no_data', direction: 'same' };
  const significant = q !== null && q < ALPHA;
  const band = m.tolerance ?? 0;
  let classification: Classification = 'pass';
  if (m.rule === 'drift') {
    if (m.pValue === null ? m.drifted === true : significant) classification = 'high';
  } else if (significant) {
    const [lo, hi] = m.rule === 'interval' && m.ci ? m.ci : [m.diff, m.diff];
    if (lo > band) classification = 'high';
    else if (hi < -band) classification = 'low';
  }
  if (classification === 'pass') return { classification, direction: 'same' };
  const bad = m.def.badWhen;
  const worse = bad === 'any' || (bad === 'up' ? classification === 'high' : classification === 'low');
  return { classification, direction: worse ? 'worse' : 'better' };
}

/** Adjusts, classifies, scores and decides. */
export function judge(measurements: readonly Measurement[], o: JudgeOptions): Judgement {
  const ps = measurements.map((m) => (m.noData === undefined && m.pValue !== null && Number.isFinite(m.pValue) ? m.pValue : NaN));
  const qs = o.correction === 'holm' ? holm(ps) : benjaminiHochberg(ps);
  const evidence: EvidenceRow[] = measurements.map((m, i) => {
    const q = finite(qs[i] ?? NaN);
    const { classification, direction } = classify(m, q);
    const notes = m.noData !== undefined ? [`no data: ${m.noData}`, ...m.notes] : m.notes;
    return {
      metric: m.def.name,
      family: m.def.family,
      baseline: finite(m.baseline),
      candidate: finite(m.candidate),
      diff: finite(m.diff),
      ci: m.ci && Number.isFinite(m.ci[0]) && Number.isFinite(m.ci[1]) ? m.ci : null,
      pValue: m.noData === undefined ? finite(m.pValue) : null,
      qValue: q,
      test: m.test,
      unit: m.unit,
      tolerance: finite(m.tolerance),
      direction,
      classification,
      weight: m.def.weight,
      critical: m.def.critical,
      n: m.n,
      note: notes.length ? notes.join('; ') : null,
    };
  });

  const scored = evidence.filter((r) => r.classification !== 'no_data');
  const total = scored.reduce((s, r) => s + r.weight, 0);
  const passing = scored.filter((r) => r.direction !== 'worse').reduce((s, r) => s + r.weight, 0);
  const score = total > 0 ? Math.round((1000 * passing) / total) / 10 : null;
  const worse = scored.filter((r) => r.direction === 'worse');
  const reasons = worse.map(describe);

  if (o.tooLittleTraffic !== undefined) return { verdict: 'not_enough_data', score, reasons: [o.tooLittleTraffic, ...reasons], evidence };
  if (score === null) return { verdict: 'not_enough_data', score, reasons: ['no metric had data on both sides'], evidence };
  const criticalWorse = worse.filter((r) => r.critical);
  let verdict: Verdict;
  if (criticalWorse.length) {
    verdict = 'rollback';
    reasons.unshift(`rollback: critical metric${criticalWorse.length > 1 ? 's' : ''} worse: ${criticalWorse.map((r) => r.metric).join(', ')}`);
  } else if (score < o.rollbackScore) {
    verdict = 'rollback';
    reasons.unshift(`rollback: score ${score} < ${o.rollbackScore}`);
  } else if (score >= o.promoteScore && worse.length > 0) {
    // A score can pass with a metric worse (a stage's P95 at weight 0.5): never promote beside a
    // "worse" row; hold, and say which.
    verdict = 'hold';
    reasons.unshift(`hold: score ${score} ≥ ${o.promoteScore}, but ${worse.map((r) => r.metric).join(', ')} ${worse.length > 1 ? 'are' : 'is'} worse`);
  } else if (score >= o.promoteScore) {
    verdict = 'promote';
    reasons.unshift(`promote: score ${score} ≥ ${o.promoteScore}, no metric worse`);
  } else {
    verdict = 'hold';
    reasons.unshift(`hold: score ${score} between ${o.rollbackScore} and ${o.promoteScore}`);
  }
  const missing = evidence.filter((r) => r.classification === 'no_data').map((r) => r.metric);
  if (missing.length) reasons.push(`no data (not scored): ${missing.join(', ')}`);
  return { verdict, score, reasons, evidence };
}

function fmt(v: number, unit: EvidenceRow['unit']): string {
  if (unit === 'fraction') return `${(v * 100).toFixed(2)} pp`;
  if (unit === 'ms') return `${v.toFixed(1)} ms`;
  return v.toFixed(3);
}

/** One line per worse metric, e.g. "p99(total_ms) worse: +212.0 ms, 95 % CI [144.0 ms, 256.0 ms], band ±50.0 ms, q 1e-9 (critical)". */
function describe(r: EvidenceRow): string {
  const sign = r.diff !== null && r.diff > 0 ? '+' : '';
  const diff = r.diff === null ? '' : `${sign}${fmt(r.diff, r.unit)}`;
  const ci = r.ci ? `, 95 % CI [${fmt(r.ci[0], r.unit)}, ${fmt(r.ci[1], r.unit)}]` : '';
  const band = r.tolerance === null ? '' : `, ${r.family === 'output' && r.unit !== 'confidence' ? 'threshold' : 'band ±'}${fmt(r.tolerance, r.unit)}`;
  const q = r.qValue === null ? '' : `, q ${r.qValue.toPrecision(2)}`;
  return `${r.metric} worse (${r.test}): ${diff}${ci}${band}${q}${r.critical ? ' (critical)' : ''}`;
}
