/**
 * A latency model for generated history, calibrated on stage times the live service measured.
 * Each stage is log-normal: μ = median of ln(ms), σ = IQR of ln(ms) / 1.349 (robust to the
 * preemption outliers of a busy machine), plus the share of values that are ~0 (an empty queue).
 * `handoff` is what `total_ms` holds beyond the stage sum (thread hand-offs).
 *
 * Worked numbers: stage times with quartiles 0.8 / 1.0 / 1.3 ms give μ = ln 1.0 = 0, σ =
 * ln(1.3 / 0.8) / 1.349 = 0.36; draws then have median 1.0 ms and P99 e^(2.326 × 0.36) = 2.3 ms.
 */
import type { EventInput, Stage } from '../../src/schema/index.ts';
import { STAGES } from '../../src/schema/index.ts';

export interface StageFit {
  mu: number;
  sigma: number;
  /** Share of values ≤ 1 µs. */
  zeroShare: number;
}

export interface LatencyModel {
  stages: Record<Stage, StageFit>;
  handoff: StageFit;
  /** Batch sizes seen, drawn uniformly. */
  batchSizes: number[];
  source: 'calibrated' | 'default';
  /** Events the fit used. */
  samples: number;
}

/**
 * Used when calibration is not possible (fewer than `MIN_CALIBRATION_EVENTS`): medians measured
 * on the demo service at ~30 req/s on a 2-core machine (ingress 0.2, queue ~0, batch 5 (the max
 * wait), exec 1.1, post 0.15 ms).
 */
export const DEFAULT_LATENCY_MODEL: LatencyModel = {
  stages: {
    ingress_ms: { mu: Math.log(0.2), sigma: 0.6, zeroShare: 0 },
    queue_ms: { mu: Math.log(0.05), sigma: 1.2, zeroShare: 0.6 },
    batch_ms: { mu: Math.log(5), sigma: 0.4, zeroShare: 0.05 },
    exec_ms: { mu: Math.log(1.1), sigma: 0.5, zeroShare: 0 },
    post_ms: { mu: Math.log(0.15), sigma: 0.6, zeroShare: 0 },
  },
  handoff: { mu: Math.log(0.3), sigma: 0.6, zeroShare: 0 },
  batchSizes: [1, 1, 2, 2, 3, 4],
  source: 'default',
  samples: 0,
};

export const MIN_CALIBRATION_EVENTS = 50;

function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const a = sorted[lo] as number;
  const b = sorted[Math.min(lo + 1, sorted.length - 1)] as number;
  return a + (b - a) * (pos - lo);
}

function fit(values: readonly number[], fallback: StageFit): StageFit {
  const positive = values.filter((v) => v > 0.001);
  if (positive.length < 10) return { ...fallback, zeroShare: values.length > 0 ? 1 - positive.length / values.length : fallback.zeroShare };
  const logs = positive.map(Math.log).sort((a, b) => a - b);
  return {
    mu: quantile(logs, 0.5),
    sigma: Math.max(0.05, (quantile(logs, 0.75) - quantile(logs, 0.25)) / 1.349),
    zeroShare: 1 - positive.length / values.length,
  };
}

/** Fits the model on the live service's ok events; the default model when there are too few. */
export function fitLatencyModel(events: readonly EventInput[]): LatencyModel {
  const ok = events.filter((e) => e.status === 'ok' && typeof e.total_ms === 'number');
  if (ok.length < MIN_CALIBRATION_EVENTS) return DEFAULT_LATENCY_MODEL;
  const num = (e: EventInput, f: string): number => {
    const v: unknown = (e as unknown as Record<string, unknown>)[f];
    return typeof v === 'number' ? v : 0;
  };
  const stages = {} as Record<Stage, StageFit>;
  for (const s of STAGES)
    stages[s] = fit(
      ok.map((e) => num(e, s)),
      DEFAULT_LATENCY_MODEL.stages[s],
    );
  const handoff = fit(
    ok.map((e) => Math.max(0, num(e, 'total_ms') - STAGES.reduce((sum, s) => sum + num(e, s), 0))),
    DEFAULT_LATENCY_MODEL.handoff,
  );
  const batchSizes = ok.map((e) => num(e, 'batch_size')).filter((b) => b >= 1);
  return { stages, handoff, batchSizes: batchSizes.length > 0 ? batchSizes : DEFAULT_LATENCY_MODEL.batchSizes, source: 'calibrated', samples: ok.length };
}

/** A standard normal draw (Box–Muller). */
export function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
}

/** One draw of a stage, in ms rounded to µs. */
export function drawMs(f: StageFit, random: () => number, factor = 1): number {
  if (f.zeroShare > 0 && random() < f.zeroShare) return 0;
  return Math.round(Math.exp(f.mu + f.sigma * gaussian(random)) * factor * 1000) / 1000;
}
