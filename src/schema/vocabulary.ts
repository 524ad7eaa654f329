/**
 * The vocabularies of the event contract, in one place: statuses, error types, dimensions, stages,
 * latency and numeric fields, filter and group keys, sample reasons and filter keys, the Resources
 * panel's metrics, and the measure language (`parseMeasure`). This file imports nothing, so the
 * server, the SDK and the web dashboard import these lists as values (the zod schemas in event.ts,
 * query.ts and requests.ts are built from them); a new stage, status or error type is added here
 * and nowhere else (`test/vocabulary.test.ts` fails on a copied list and on a view that misses a
 * member).
 */

/**
 * Append only: a status is stored as text in events and as a rollup column (`w_<status>`), so a new
 * one needs a migration in every store backend (see src/store/duckdb/migrations.ts). `aborted`: the
 * server stopped the request (engine abort, shutdown, preemption); `cancelled`: the caller did
 * (disconnected or cancelled, HTTP 499; gRPC CANCELLED).
 */
export const STATUSES = ['ok', 'error', 'rejected', 'rate_limited', 'timeout', 'aborted', 'cancelled'] as const;
export type Status = (typeof STATUSES)[number];
/** Failures the caller saw: what "errors" means in the slice finder, the rules and the dashboard. */
export const FAILED_STATUSES = ['error', 'timeout'] as const satisfies readonly Status[];
/** Turned away before being served by the service's own limits (a full queue, a tenant's quota): "shed". */
export const SHED_STATUSES = ['rejected', 'rate_limited'] as const satisfies readonly Status[];

/**
 * Append only, like STATUSES. `dependency_timeout`: a dependency (feature store, vector DB, upstream
 * model API) did not answer in time; `dependency_error`: it answered with a failure.
 */
export const ERROR_TYPES = [
  'model_load',
  'bad_input',
  'resource_exhausted',
  'dependency_timeout',
  'dependency_error',
  'replica_fault',
  'internal',
  'other',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/** Dimensions: low-cardinality strings an event is sliced by. Each has a cardinality cap at ingest. */
export const DIMENSIONS = ['model', 'model_version', 'service_version', 'route_rule', 'tenant', 'entry', 'node', 'replica', 'service_tier', 'pool'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Latency stages in milliseconds, in request order; `total_ms` is end to end. */
export const STAGES = ['ingress_ms', 'queue_ms', 'batch_ms', 'exec_ms', 'post_ms'] as const;
export type Stage = (typeof STAGES)[number];

/**
 * Resource metrics the dashboard's Resources panel draws: per GPU, then per node — what the
 * built-in collectors write (src/ingest/collect). READ_RESOURCE_METRICS (resource.ts) starts with them.
 */
export const RESOURCE_PANEL_METRICS = [
  'gpu_utilization_ratio',
  'gpu_memory_used_bytes',
  'gpu_memory_total_bytes',
  'gpu_power_watts',
  'gpu_temperature_celsius',
  'cpu_utilization_ratio',
  'memory_used_bytes',
  'network_receive_bytes_per_second',
  'network_transmit_bytes_per_second',
  'disk_read_bytes_per_second',
  'disk_write_bytes_per_second',
] as const;
/** A stage by its short name, as the SDK's stage timers take it: `queue` for `queue_ms`. */
export type StageName = Stage extends `${infer N}_ms` ? N : never;
/**
 * Every latency field. Generative models add time to first token, time per output token and the
 * prompt's prefill time (a part of `exec_ms`, so not a stage of its own: stages add up to the total).
 */
export const LATENCY_FIELDS = [...STAGES, 'total_ms', 'ttft_ms', 'tpot_ms', 'prefill_ms'] as const;
export type LatencyField = (typeof LATENCY_FIELDS)[number];

/** Numeric fields a query may aggregate (quantiles, mean, max, sum). */
export const NUMERIC_FIELDS = [
  ...LATENCY_FIELDS,
  'batch_size',
  'batch_tokens',
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'confidence',
  'score',
  'output_length',
  'http_status',
  'sample_weight',
] as const;
export type NumericField = (typeof NUMERIC_FIELDS)[number];

/** Filter keys: every dimension, plus status, error_type and probe ('true' | 'false': golden-sample probes or user traffic). */
export const FILTER_KEYS = [...DIMENSIONS, 'status', 'error_type', 'probe'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string | string[]>>;
/** What a query may group by: the dimensions plus the categorical outcome and result fields. */
export const GROUP_KEYS = [...DIMENSIONS, 'status', 'error_type', 'label', 'finish_reason'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

/** Why a sample was kept (the capture policy's rules, in priority order). */
export const SAMPLE_REASONS = [
  'error',
  'low_confidence',
  'refused',
  'empty',
  'malformed',
  'risk_tag',
  'new_version',
  'edge_input_long',
  'edge_input_short',
  'long_tail_tenant',
  'baseline',
] as const;
export type SampleReason = (typeof SAMPLE_REASONS)[number];
/** Dimensions and outcome fields a sample carries (and can be filtered by). */
export const SAMPLE_FILTER_KEYS = ['model', 'model_version', 'tenant', 'entry', 'node', 'replica', 'route_rule', 'status', 'error_type', 'label'] as const;
export type SampleFilterKey = (typeof SAMPLE_FILTER_KEYS)[number];

// ---------- measures ----------

/** Quantile names and their q: p50 … p999 (= P99.9). */
export const QUANTILES = { p50: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 } as const satisfies Record<string, number>;
export type QuantileName = keyof typeof QUANTILES;
/** Flags whose share a query can ask for (`empty_rate`, …); `format_error` is the share with `format_ok = false`. */
export const RATE_FLAGS = ['empty', 'refused', 'format_error'] as const;
export type RateFlag = (typeof RATE_FLAGS)[number];
/** Flags whose carrying rows a query can count (`n(empty)`: the denominator of empty_rate). */
export const COUNTED_FLAGS = ['empty', 'refused', 'format_ok'] as const;
export type CountedFlag = (typeof COUNTED_FLAGS)[number];

export type Measure =
  | { kind: 'count' } // requests, weighted by sample_weight
  | { kind: 'n' } // stored rows (the sample count behind each percentile)
  | { kind: 'qps' } // count / seconds in the bucket (or the whole range without step)
  | { kind: 'status_rate'; status: Status } // share of requests with that status
  | { kind: 'error_type_rate'; errorType: ErrorType } // share of requests that errored with that type
  | { kind: 'flag_rate'; flag: RateFlag } // share of rows with the flag (over rows that carry it)
  | { kind: 'flag_n'; flag: CountedFlag } // rows that carry the flag: n(empty), the denominator of empty_rate
  | { kind: 'below_rate'; field: NumericField; threshold: number } // share of rows with field < threshold, e.g. low confidence
  | { kind: 'quantile'; q: number; field: NumericField }
  | { kind: 'agg'; fn: 'mean' | 'max' | 'min' | 'sum' | 'count'; field: NumericField } // count: rows where the field is present
  | { kind: 'total'; field: NumericField }; // Σ field × sample_weight: the field over the requests the rows stand for (tokens, execution time)

const has = <T extends string>(list: readonly T[], s: string): s is T => (list as readonly string[]).includes(s);

/** Parses a measure string; returns an error message saying what is accepted when it does not parse. */
export function parseMeasure(s: string): Measure | string {
  if (s === 'count' || s === 'n' || s === 'qps') return { kind: s };
  if (s === 'error_rate') return { kind: 'status_rate', status: 'error' };
  const flagRate = /^(\w+)_rate$/.exec(s);
  if (flagRate && has(RATE_FLAGS, flagRate[1]!)) return { kind: 'flag_rate', flag: flagRate[1] };
  const below = /^below_rate\((\w+),\s*(-?[\d.]+(?:e-?\d+)?)\)$/.exec(s);
  if (below) {
    if (!has(NUMERIC_FIELDS, below[1]!)) return `unknown numeric field "${below[1]}": expected one of ${NUMERIC_FIELDS.join(', ')}`;
    const threshold = Number(below[2]);
    if (!Number.isFinite(threshold)) return `below_rate threshold must be a number`;
    return { kind: 'below_rate', field: below[1], threshold };
  }
  if (flagRate && has(STATUSES, flagRate[1]!)) return { kind: 'status_rate', status: flagRate[1] };
  const typed = /^error_rate\((\w+)\)$/.exec(s);
  if (typed) {
    if (has(ERROR_TYPES, typed[1]!)) return { kind: 'error_type_rate', errorType: typed[1] };
    return `unknown error type "${typed[1]}": expected one of ${ERROR_TYPES.join(', ')}`;
  }
  const flagN = /^n\((\w+)\)$/.exec(s);
  if (flagN && has(COUNTED_FLAGS, flagN[1]!)) return { kind: 'flag_n', flag: flagN[1] };
  const fn = /^(\w+)\((\w+)\)$/.exec(s);
  if (fn) {
    const [, name, field] = fn as unknown as [string, string, string];
    if (!has(NUMERIC_FIELDS, field)) return `unknown numeric field "${field}": expected one of ${NUMERIC_FIELDS.join(', ')}`;
    if (name in QUANTILES) return { kind: 'quantile', q: QUANTILES[name as QuantileName], field };
    if (name === 'mean' || name === 'max' || name === 'min' || name === 'sum') return { kind: 'agg', fn: name, field };
    if (name === 'n') return { kind: 'agg', fn: 'count', field };
    if (name === 'total') return { kind: 'total', field };
    return `unknown function "${name}": expected ${Object.keys(QUANTILES).join(', ')}, mean, max, min, sum, total or n`;
  }
  return `unknown measure "${s}": expected count, n, qps, error_rate, <status>_rate, error_rate(<error_type>), ${RATE_FLAGS.map((f) => `${f}_rate`).join(', ')}, below_rate(<field>, <x>), p50…p999(<field>), mean|max|min|sum|total|n(<field>), n(${COUNTED_FLAGS.join('|')})`;
}
