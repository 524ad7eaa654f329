/**
 * What are the slowest requests made of? Among the requests whose total latency is at or above
 * the total's q-quantile (type 7, so the slowest request is always included), the mean share of
 * the total spent in each stage. Comparing two windows shows which stage took over the tail.
 * Worked: baseline tail request 24.9 ms with exec 19.9 ms → exec share 0.7992; current tail
 * request 64.7 ms with exec 59.7 ms → 0.9227; exec's share grew by 0.1235.
 */
import { quantile, sortedFinite } from './quantile.ts';

/** One request: stage latencies in ms keyed by field name; null where the stage was not recorded. */
export type StageRow = Record<string, number | null | undefined>;

export interface StageShare {
  stage: string;
  /** Mean of stage/total over the tail requests that recorded this stage. */
  meanShare: number;
  /** How many tail requests recorded this stage. */
  n: number;
}

export interface TailComposition {
  q: number;
  /** The total's q-quantile; requests at or above it form the tail. NaN without rows. */
  thresholdMs: number;
  /** Requests with a positive total. */
  nRows: number;
  /** Requests in the tail. */
  nTail: number;
  shares: StageShare[];
}

export interface TailCompositionOptions {
  /** Key of the end-to-end latency (default 'total_ms'). */
  totalKey?: string;
  /**
   * The stage keys; default every key ending in `_ms` except the total. Rows read from a store
   * carry `ts` and identifiers too, which are not stages.
   */
  stages?: readonly string[];
}

function totalOf(row: StageRow, totalKey: string): number | null {
  const t = row[totalKey];
  return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : null;
}

/** Stage composition of the requests at or above the total's q-quantile. */
export function tailComposition(rows: readonly StageRow[], q = 0.99, options: TailCompositionOptions = {}): TailComposition {
  const totalKey = options.totalKey ?? 'total_ms';
  const withTotal = rows.filter((r) => totalOf(r, totalKey) !== null);
  const thresholdMs = quantile(sortedFinite(withTotal.map((r) => totalOf(r, totalKey) as number)), q);
  const tail = withTotal.filter((r) => (totalOf(r, totalKey) as number) >= thresholdMs);
  const names = options.stages ? [...options.stages] : [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k !== totalKey && k.endsWith('_ms'));
  const shares = names.map((stage) => {
    let sum = 0;
    let n = 0;
    for (const r of tail) {
      const v = r[stage];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      sum += v / (totalOf(r, totalKey) as number);
      n++;
    }
    return { stage, meanShare: n === 0 ? NaN : sum / n, n };
  });
  return { q, thresholdMs, nRows: withTotal.length, nTail: tail.length, shares };
}

export interface TailShareShift {
  stage: string;
  shareNow: number;
  shareBefore: number;
  /** shareNow − shareBefore. */
  deltaShare: number;
}

export interface TailCompositionComparison {
  current: TailComposition;
  baseline: TailComposition;
  stages: TailShareShift[];
  /** The stage whose share of the tail grew most; null when none grew. */
  grewMost: string | null;
}

/** Tail composition now vs before, per stage, naming the stage whose share grew most. */
export function compareTailComposition(
  currentRows: readonly StageRow[],
  baselineRows: readonly StageRow[],
  q = 0.99,
  options: TailCompositionOptions = {},
): TailCompositionComparison {
  const current = tailComposition(currentRows, q, options);
  const baseline = tailComposition(baselineRows, q, options);
  const names = [...new Set([...current.shares, ...baseline.shares].map((s) => s.stage))];
  const stages = names.map((stage) => {
    const shareNow = current.shares.find((s) => s.stage === stage)?.meanShare ?? NaN;
    const shareBefore = baseline.shares.find((s) => s.stage === stage)?.meanShare ?? NaN;
    return { stage, shareNow, shareBefore, deltaShare: shareNow - shareBefore };
  });
  let grewMost: TailShareShift | null = null;
  for (const s of stages) {
    if (Number.isFinite(s.deltaShare) && s.deltaShare > 0 && (grewMost === null || s.deltaShare > grewMost.deltaShare)) grewMost = s;
  }
  return { current, baseline, stages, grewMost: grewMost?.stage ?? null };
}
