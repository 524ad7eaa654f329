/**
 * Which stage made the tail latency grow? Quantiles are not additive (P99 of the total is not the
 * sum of the stages' P99s), so each stage's own quantile is compared between two windows. A stage
 * is named only when its growth is both real and large enough to matter:
 * - real: a latency shift becomes a rate change (METHODS.md): the share of current requests above
 *   the baseline's q-quantile is tested against the baseline's own share above it (≈ 1 − q) with
 *   `proportionTest` (z, or Fisher when an expected count is below 5); p-values Holm-adjusted
 *   across the stages; significant when the adjusted p < alpha and the share grew;
 * - large: the quantile grew by at least `minRatio` (default ×1.1) — with a million requests
 *   ×1.003 is "significant" and means nothing.
 * Among the stages that pass both, the one with the largest growth in ms is `grewMost`.
 * Worked: exec_ms P99 19.801 ms → 59.403 ms is +39.602 ms (×3); 100 of 100 current requests
 * are above 19.801 against 1 of 100 before → p ≈ 1e−43 → exec_ms.
 *
 * `compareReplicas` answers "where": each replica's stage median against the median of its
 * peers', so one slow replica (exec ×3 on r3) is named even when the fleet-wide stage that grew
 * most is another one (the batcher waiting for it). Medians, not P99s: a P99 of a few hundred
 * requests on a busy host follows its GC pauses (measured on the demo: one replica's exec P99 at
 * 24 ms against 1.5 ms on the slow one).
 */
import { holm } from './p-adjust.ts';
import { proportionTest } from './proportion-test.ts';
import { median, quantile, sortedFinite } from './quantile.ts';

/** Latency samples per stage, in milliseconds, keyed by field name (ingress_ms, …, total_ms). */
export type StageSamples = Record<string, readonly number[]>;

/** One stage's quantile in both windows, with the counts above the baseline's quantile. */
export interface StageShiftInput {
  stage: string;
  /** Quantile of the current window (NaN without samples). */
  currentMs: number;
  baselineMs: number;
  nCurrent: number;
  nBaseline: number;
  /** Requests above the baseline's quantile, now and in the baseline itself. */
  aboveCurrent: number;
  aboveBaseline: number;
}

export interface StageShift extends StageShiftInput {
  /** currentMs − baselineMs. */
  deltaMs: number;
  /** currentMs / baselineMs (Infinity from a 0 ms baseline, NaN for 0/0). */
  ratio: number;
  /** Holm-adjusted two-sided p-value of "the share above the baseline's quantile changed". */
  pValue: number;
  /** Grew, significantly and by at least minRatio. */
  grew: boolean;
}

export interface StageAttribution {
  /** The quantile compared, e.g. 0.99. */
  q: number;
  /** Every stage except the total, in first-seen order. */
  stages: StageShift[];
  /** The total's shift, when the total key is present in either window. */
  total: StageShift | null;
  /** The stage that grew (significantly, ≥ minRatio) most in ms; null when none did. */
  grewMost: string | null;
}

export interface StageJudgeOptions {
  /** Level of the Holm-adjusted test (default 0.05). */
  alpha?: number;
  /** Smallest growth of the quantile to name a stage (default 1.1). */
  minRatio?: number;
}

export interface StageAttributionOptions extends StageJudgeOptions {
  /** Key of the end-to-end latency (default 'total_ms'). */
  totalKey?: string;
}

/** Tests each stage's growth and names the one that grew most; `total` (if given) is judged alone. */
export function judgeStageShifts(inputs: readonly StageShiftInput[], options: StageJudgeOptions = {}): { stages: StageShift[]; grewMost: string | null } {
  const alpha = options.alpha ?? 0.05;
  const minRatio = options.minRatio ?? 1.1;
  const raw = inputs.map((s) => (s.nCurrent > 0 && s.nBaseline > 0 ? proportionTest(s.aboveCurrent, s.nCurrent, s.aboveBaseline, s.nBaseline).pValue : 1));
  const adjusted = holm(raw);
  const stages = inputs.map((s, i): StageShift => {
    const deltaMs = s.currentMs - s.baselineMs;
    const ratio = s.currentMs / s.baselineMs;
    const pValue = adjusted[i] as number;
    const shareGrew = s.nCurrent > 0 && s.nBaseline > 0 && s.aboveCurrent / s.nCurrent > s.aboveBaseline / s.nBaseline;
    const grew = Number.isFinite(deltaMs) && deltaMs > 0 && pValue < alpha && shareGrew && !(ratio < minRatio);
    return { ...s, deltaMs, ratio, pValue, grew };
  });
  let best: StageShift | null = null;
  for (const s of stages) if (s.grew && (best === null || s.deltaMs > best.deltaMs)) best = s;
  return { stages, grewMost: best?.stage ?? null };
}

function shiftInput(stage: string, q: number, current: readonly number[], baseline: readonly number[]): StageShiftInput {
  const cur = sortedFinite(current);
  const base = sortedFinite(baseline);
  const baselineMs = quantile(base, q);
  return {
    stage,
    currentMs: quantile(cur, q),
    baselineMs,
    nCurrent: cur.length,
    nBaseline: base.length,
    aboveCurrent: cur.filter((v) => v > baselineMs).length,
    aboveBaseline: base.filter((v) => v > baselineMs).length,
  };
}

/** Compares each stage's q-quantile (type 7) now vs before from samples and names the stage that grew. */
export function attributeStages(current: StageSamples, baseline: StageSamples, q = 0.99, options: StageAttributionOptions = {}): StageAttribution {
  const totalKey = options.totalKey ?? 'total_ms';
  const names = [...new Set([...Object.keys(current), ...Object.keys(baseline)])];
  const inputs = names.map((s) => shiftInput(s, q, current[s] ?? [], baseline[s] ?? []));
  const judged = judgeStageShifts(
    inputs.filter((s) => s.stage !== totalKey),
    options,
  );
  const totalInput = inputs.find((s) => s.stage === totalKey);
  const total = totalInput ? (judgeStageShifts([totalInput], options).stages[0] as StageShift) : null;
  return { q, stages: judged.stages, total, grewMost: judged.grewMost };
}

/** One replica's stage medians in a window. */
export interface ReplicaStages {
  replica: string;
  /** Rows of this replica. */
  n: number;
  /** The median per stage, ms; null where the stage was not recorded. */
  stagesMs: Record<string, number | null>;
  /** Median end-to-end latency, ms, when known: an excess under `minExcessShareOfTotal` of it is not named. */
  totalMs?: number | null;
}

/** The replica whose stage stands furthest above its peers. */
export interface SlowReplica {
  replica: string;
  stage: string;
  ms: number;
  /** Median of the other replicas' quantile of that stage. */
  peersMs: number;
  /** ms / peersMs. */
  ratio: number;
  n: number;
}

export interface ReplicaComparisonOptions {
  /** Fewest rows for a replica to be judged or to count as a peer (default 20). */
  minRows?: number;
  /** Smallest ratio to the peers' median to name a replica (default 1.5). */
  minRatio?: number;
  /**
   * Smallest excess over the peers, as a share of the replica's own median total, for a stage to
   * be named (default 0.01): a queue of 0.04 ms against 0.01 ms is ×4 and means nothing in a
   * 15 ms request; exec 0.91 ms against 0.30 ms (the demo's slow replica) is 4 % of 19 ms.
   */
  minExcessShareOfTotal?: number;
}

/**
 * Each replica's stage median against the median of its peers' (at least two peers); the
 * (replica, stage) with the largest ratio at or above `minRatio` is named. A peer median, not a
 * mean, so one slow replica does not raise its own bar.
 * Worked: exec P99 of r0, r1, r2 = 21, 20, 62 ms → r2 against median(21, 20) = 20.5: ×3.02.
 */
export function compareReplicas(replicas: readonly ReplicaStages[], options: ReplicaComparisonOptions = {}): SlowReplica | null {
  const minRows = options.minRows ?? 20;
  const minRatio = options.minRatio ?? 1.5;
  const minExcess = options.minExcessShareOfTotal ?? 0.01;
  const judged = replicas.filter((r) => r.n >= minRows);
  if (judged.length < 3) return null;
  const stageNames = [...new Set(judged.flatMap((r) => Object.keys(r.stagesMs)))];
  let best: SlowReplica | null = null;
  for (const stage of stageNames) {
    for (const r of judged) {
      const ms = r.stagesMs[stage];
      if (ms == null || !Number.isFinite(ms)) continue;
      const peers = judged
        .filter((p) => p !== r)
        .map((p) => p.stagesMs[stage])
        .filter((v): v is number => v != null && Number.isFinite(v));
      if (peers.length < 2) continue;
      const peersMs = median(peers);
      if (!(peersMs > 0)) continue;
      const ratio = ms / peersMs;
      if (r.totalMs != null && r.totalMs > 0 && ms - peersMs < minExcess * r.totalMs) continue;
      if (ratio >= minRatio && (best === null || ratio > best.ratio)) best = { replica: r.replica, stage, ms, peersMs, ratio, n: r.n };
    }
  }
  return best;
}
