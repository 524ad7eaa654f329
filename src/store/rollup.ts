/**
 * The per-minute rollup every backend keeps beside the raw events, and which specs it can answer.
 *
 * What it holds, per closed minute × probe flag × the dimensions of a level: stored rows (n), the
 * request weight (Σ sample_weight) in total, per status and per error type; n / Σ / min / max of
 * each `STAT_FIELDS` field; and a log-bucket histogram (`log-sketch.ts`, α = 0.96 %) of each
 * latency field. Everything is mergeable (sums, min of mins, max of maxes, added bucket counts),
 * so any minute-aligned range reads as the sum of its minutes.
 *
 * Levels, finest first. The finest is built from raw events, the others from the finest. A spec is
 * answered at the coarsest level whose dimensions cover its filters and group-by. The dimensions
 * are kept few on purpose: a rollup pays only when many requests share a key, and tenant × entry ×
 * replica already gives about as many keys per minute as requests on a busy fleet (measured on the
 * dashboard benchmark: 36,000 distinct (model, version, tenant, entry, replica) per hour of 1.67 M
 * requests, against 60 (model, version) pairs). Specs with other filters or group-bys, or measures
 * the rollup does not keep, read raw rows.
 *
 * Freshness: minutes before the store's watermark are rolled up; the rest of a range (the open
 * tail, and partial minutes at either end) is read from raw rows in the same statement, so an
 * answer always covers every stored row. Rows appended below the watermark (late data) rebuild
 * their minutes in the same transaction; retention deletes rollup minutes with the events.
 *
 * Accuracy: counts, rates, means, sums, min and max are exact; quantiles are within
 * `SKETCH_RELATIVE_ERROR` (relative) of the exact type-7 quantile.
 */
import { ERROR_TYPES, LATENCY_FIELDS, STATUSES } from '../schema/index.ts';
import type { Approximation, Dimension, LatencyField, Measure, QuerySpec } from '../schema/index.ts';
import { SKETCH_RELATIVE_ERROR } from './log-sketch.ts';

export interface RollupLevel {
  name: string;
  dims: readonly Dimension[];
}

/** Finest first: (model, model_version), then everything. */
export const ROLLUP_LEVELS: readonly RollupLevel[] = [
  { name: 'model', dims: ['model', 'model_version'] },
  { name: 'all', dims: [] },
];

/**
 * The code each latency field's sketch is stored under (DuckDB's `rollup_1m_*_sketch.field`).
 * Stored data: a code is never changed or reused, a new latency field takes the next one
 * (`rollup.test.ts` pins every code). Typed over every latency field, so a new one without a code
 * does not compile.
 */
export const SKETCH_FIELD_CODES: Readonly<Record<LatencyField, number>> = {
  ingress_ms: 0,
  queue_ms: 1,
  batch_ms: 2,
  exec_ms: 3,
  post_ms: 4,
  total_ms: 5,
  ttft_ms: 6,
  tpot_ms: 7,
  prefill_ms: 8,
};
/** Latency fields with a sketch. */
export const SKETCH_FIELDS: readonly LatencyField[] = LATENCY_FIELDS;
/** Fields with n, Σ, min and max per minute. */
export const STAT_FIELDS = [...LATENCY_FIELDS, 'batch_size', 'input_tokens', 'output_tokens'] as const;
export const ROLLUP_STATUSES = STATUSES;
export const ROLLUP_ERROR_TYPES = ERROR_TYPES;

export const ROLLUP_STEP_MS = 60_000;

/** What the API says when the rollup answered (declared with the replies in src/schema/replies.ts). */
export type { Approximation };

/** Quantiles: α = 0.00959, rounded up. */
export const ROLLUP_APPROXIMATION: Approximation = { relative_error: Math.ceil(SKETCH_RELATIVE_ERROR * 10_000) / 10_000, source: 'rollup_1m' };

/**
 * Histogram counts on the sketch's scale: a bucket bound written with 6 significant digits is
 * within 5e-6 (relative) of the sketch bound it stands for; only values in that sliver can land in
 * the neighbouring bucket.
 */
export const HISTOGRAM_APPROXIMATION: Approximation = { relative_error: 0.000005, source: 'rollup_1m' };

const SKETCH_SET: ReadonlySet<string> = new Set(SKETCH_FIELDS);
const STAT_SET: ReadonlySet<string> = new Set(STAT_FIELDS);

/** Whether the rollup keeps what this measure needs. */
export function rollupMeasure(m: Measure): boolean {
  switch (m.kind) {
    case 'count':
    case 'n':
    case 'qps':
    case 'status_rate':
    case 'error_type_rate':
      return true;
    case 'quantile':
      return SKETCH_SET.has(m.field);
    case 'agg':
      return STAT_SET.has(m.field);
    case 'flag_rate':
    case 'flag_n':
    case 'below_rate':
    case 'total':
      return false;
  }
}

/**
 * The level that can answer the spec, or null: filters and group-by within a level's dimensions
 * (plus the probe flag), every measure kept, and buckets that are whole minutes aligned to `from`.
 */
export function rollupLevelFor(spec: Pick<QuerySpec, 'fromMs' | 'stepMs' | 'filters' | 'groupBy'> & { measures?: QuerySpec['measures'] }): RollupLevel | null {
  if (spec.stepMs !== undefined && (spec.stepMs % ROLLUP_STEP_MS !== 0 || spec.fromMs % ROLLUP_STEP_MS !== 0)) return null;
  if (spec.measures && !spec.measures.every((x) => rollupMeasure(x.measure))) return null;
  const keys = [...Object.keys(spec.filters).filter((k) => k !== 'probe' && spec.filters[k as keyof typeof spec.filters] !== undefined), ...spec.groupBy];
  for (let i = ROLLUP_LEVELS.length - 1; i >= 0; i--) {
    const level = ROLLUP_LEVELS[i]!;
    if (keys.every((k) => (level.dims as readonly string[]).includes(k))) return level;
  }
  return null;
}
