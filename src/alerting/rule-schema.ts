/**
 * The rule file format, shaped like Prometheus rule files:
 *
 *   groups:
 *     - name: latency
 *       interval: 30s
 *       rules:
 *         - alert: HighP99Latency
 *           condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [model, replica], op: '>', value: 800, min_count: 50 }
 *           for: 5m
 *           severity: warning            # critical pages, warning tickets, info: trend report only
 *           labels: { signal: latency }
 *           annotations: { summary: 'P99 of {{ $labels.model }} on {{ $labels.replica }} is {{ $value | humanize }} ms' }
 *           action: { type: switch_route, params: { replica: '{{ $labels.replica }}' } }
 *
 * `expr:` is accepted as another name for `condition:`; `action: scale_out` as short for
 * `action: { type: scale_out }`. Durations are `30s`, `5m`, `6h`, `3d`.
 */
import { z } from 'zod';
import {
  DIMENSIONS,
  FAILED_STATUSES,
  FiltersSchema,
  GROUP_KEYS,
  NUMERIC_FIELDS,
  RATE_FLAGS,
  SHED_STATUSES,
  STATUSES,
  parseDurationMs,
} from '../schema/index.ts';
import { LABEL_NAME_RE } from './labels.ts';

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ACTION_TYPES = ['scale_out', 'switch_route', 'rate_limit', 'pause_canary', 'rollback', 'adjust_batch'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Event fields a drift test treats as categories by default. */
export const CATEGORICAL_FIELDS: ReadonlySet<string> = new Set(['label', 'finish_reason', 'status', 'error_type']);

export const OPS = ['>', '>=', '<', '<=', '==', '!='] as const;
export type Op = (typeof OPS)[number];

const duration = z.string().refine((s) => parseDurationMs(s) !== undefined, { error: 'expected a duration such as 30s, 5m, 6h, 3d' });
const by = z.array(z.enum(GROUP_KEYS)).max(4).default([]);
const filters = FiltersSchema.default({});
const minCount = z.number().int().min(0).default(0);
const resourceLabel = z.enum(['node', 'replica', 'gpu', 'pool']);
const labelFilter = z.union([z.string(), z.array(z.string()).min(1).max(100)]);

/** A measure of `POST /v1/query` over a window, per slice, compared with a value. */
export const ThresholdSchema = z
  .object({
    kind: z.literal('threshold'),
    measure: z.string().min(1),
    window: duration,
    by,
    filters,
    op: z.enum(OPS),
    value: z.number(),
    /** Fewest stored rows in a slice (and in its reference) for a verdict. */
    min_count: minCount,
    /**
     * Compare a ratio instead (`value` 1.5 = 50 % up): `offset` = current / the same window that much
     * earlier (or a longer `window` ending then: a steadier reference for a small slice); `peers` = current / the median of the slices that differ only in that dimension (one
     * replica against the other replicas of its model and version, at the same time), with at least
     * `min_peers` such slices (itself included) holding `min_count` rows; `baseline` = current / the
     * same window with these filters instead (a canary against the baseline route at the same time,
     * so load and host noise cancel), matched on the `by` dimensions the baseline does not set.
     */
    relative_to: z
      .union([
        z.object({ offset: duration, window: duration.optional() }).strict(),
        z.object({ peers: z.enum(GROUP_KEYS), min_peers: z.number().int().min(3).max(1000).default(3) }).strict(),
        z
          .object({ baseline: FiltersSchema.refine((f) => Object.keys(f).length > 0, { error: 'give at least one filter, e.g. { route_rule: default }' }) })
          .strict(),
      ])
      .optional(),
  })
  .strict();

/** SRE Workbook multi-window, multi-burn-rate: fires when both windows of a pair burn faster than `factor`. */
export const BurnWindowSchema = z.object({ long: duration, short: duration, factor: z.number().positive() }).strict();
export const SloBurnRateSchema = z
  .object({
    kind: z.literal('slo_burn_rate'),
    /** SLO target, e.g. 0.999: error budget = 1 − objective. */
    objective: z.number().gt(0).lt(1),
    /** Error SLO (default): these statuses are bad. */
    bad_statuses: z
      .array(z.enum(STATUSES.filter((x) => x !== 'ok')))
      .min(1)
      .default([...FAILED_STATUSES]),
    /** Latency SLO instead: a request slower than threshold_ms is bad. */
    latency: z
      .object({ field: z.enum(NUMERIC_FIELDS), threshold_ms: z.number().positive() })
      .strict()
      .optional(),
    /** Default by severity: critical → 1h/5m 14.4× and 6h/30m 6×; otherwise 3d/6h 1×. */
    windows: z.array(BurnWindowSchema).min(1).max(4).optional(),
    by,
    filters,
    min_count: minCount,
    /**
     * Fewest bad requests in the long window of a pair for it to fire: a burn rate computed from a
     * handful of requests is chance (3 errors in the first 100 requests "burn" a 99.9 % budget 30×).
     */
    min_bad: z.number().int().min(0).default(10),
  })
  .strict();

/** A proportion now vs a reference window (two-proportion test, BH across slices) or a drift test. */
export const QualityChangeSchema = z
  .object({
    kind: z.literal('quality_change'),
    test: z.enum(['proportion', 'drift']).default('proportion'),
    /** proportion: a rate measure, e.g. empty_rate, refused_rate, below_rate(confidence, 0.6). */
    measure: z.string().min(1).optional(),
    /** drift: an event field (numeric field, label, finish_reason, status) or features.<name>. */
    field: z.string().min(1).optional(),
    field_kind: z.enum(['numeric', 'categorical']).optional(),
    window: duration,
    /**
     * The reference is the window `offset` earlier (default: the window just before); with
     * `window`, a reference that long ending `offset` before now (more rows: a steadier baseline).
     */
    reference: z.object({ offset: duration, window: duration.optional() }).strict().optional(),
    by,
    filters,
    /** Fewest requests on each side (proportion) or rows (drift) for a verdict. */
    min_count: z.number().int().min(1).default(200),
    /** Level of the test (proportion: on BH q-values across slices). */
    alpha: z.number().gt(0).lt(1).default(0.01),
    /** proportion: smallest absolute change that matters, e.g. 0.02 = 2 points. */
    min_delta: z.number().min(0).default(0),
    direction: z.enum(['up', 'down', 'both']).default('up'),
    /** drift: most rows read per window and slice (a stratified sample spread over the window). */
    max_rows: z.number().int().min(100).max(100_000).default(5000),
  })
  .strict();

/** A resource metric (optionally divided by another) per node/replica/gpu/pool. */
export const ResourceConditionSchema = z
  .object({
    kind: z.literal('resource'),
    metric: z.string().min(1).max(128),
    /** Ratio to this metric of the same slice, e.g. gpu_memory_total_bytes. */
    divide_by: z.string().min(1).max(128).optional(),
    window: duration,
    /**
     * avg and max over the window; last = the last step's average; increase = counter growth over
     * the window; trend = Theil–Sen slope per hour of the step averages, when a Mann–Kendall test
     * finds a monotonic rise or fall at `alpha` (a gauge that creeps, unlike a step with the load);
     * time_to_limit = minutes until the last level reaches `limit` at that Theil–Sen slope (what
     * Prometheus's predict_linear answers, with a robust slope), only for a significant rise.
     */
    agg: z.enum(['avg', 'max', 'last', 'increase', 'trend', 'time_to_limit']).default('max'),
    /** time_to_limit: the level (of the ratio, with divide_by) that counts as full. */
    limit: z.number().positive().default(1),
    /**
     * trend, time_to_limit: a load metric of the same slice (gpu_utilization_ratio) whose share of
     * the movement is taken out first: memory that follows the load up and down (a KV cache) is not
     * a leak; what rises beside it is.
     */
    control: z.string().min(1).max(128).optional(),
    /** Bucket for last / increase / trend / time_to_limit (default 1m, trend: window / 20; the whole window for avg / max). */
    step: duration.optional(),
    /** trend, time_to_limit: level of the Mann–Kendall test (two-sided). */
    alpha: z.number().gt(0).lt(1).default(0.001),
    by: z.array(resourceLabel).max(4).default([]),
    filters: z.partialRecord(resourceLabel, labelFilter).default({}),
    op: z.enum(OPS),
    value: z.number(),
  })
  .strict();

/** Pass rate of golden-sample probes (events with probe: true and attributes[pass_attribute]). */
export const GoldenFailureSchema = z
  .object({
    kind: z.literal('golden_failure'),
    window: duration,
    by,
    filters,
    /** Fires when the pass rate is below this share. */
    min_pass_rate: z.number().min(0).max(1),
    min_count: z.number().int().min(1).default(5),
    pass_attribute: z.string().min(1).max(64).default('golden_pass'),
    max_rows: z.number().int().min(100).max(100_000).default(10_000),
    /**
     * With a false discovery rate, a slice fires only on sequential evidence (over windows of up to
     * `window` ending now) that its failure rate is above 1 − min_pass_rate by at least 10 points,
     * Benjamini–Hochberg across slices: a flaky probe failing twice in fifteen is not a failing version.
     */
    fdr: z.number().gt(0).lt(1).optional(),
    /**
     * With fdr: the slice's own probes in the `reference.window` before the current window say what
     * is usual for it; when that is below 1 − min_pass_rate, a rise of 10 points above it is raised
     * (a version whose probes always pass and now fail one in five is failing before it fails one in three).
     */
    reference: z.object({ window: duration }).strict().optional(),
  })
  .strict();

/** A slice that sent at least min_count rows in the reference window sends none in the current one. */
export const NoDataSchema = z
  .object({
    kind: z.literal('no_data'),
    window: duration,
    /** How far back before the current window to look for the slice (default 1h). */
    reference: z.object({ window: duration }).strict().default({ window: '1h' }),
    by,
    filters,
    min_count: z.number().int().min(1).default(1),
    /**
     * Fewest requests the reference's rate leads one to expect in the current window: silence is
     * evidence only when it is unlikely by chance (P(none | λ expected) = e^−λ: 20 → 2e−9).
     */
    min_expected: z.number().positive().optional(),
  })
  .strict();

/**
 * Where a slice's normal level comes from, for the sequential detectors: its own past (`window`
 * before the change point being tried, at least `min_count` requests), or the slices that differ
 * from it only in one dimension at the same time (`peers`: a replica against the other replicas of
 * its model and version).
 */
const ShiftReferenceSchema = z
  .union([
    z.object({ window: duration.default('60m'), min_count: z.number().int().min(1).default(100) }).strict(),
    z
      .object({
        peers: z.enum(GROUP_KEYS),
        min_count: z.number().int().min(1).default(100),
        /**
         * How far back a slice's usual distance from its peers is read (0m: not read). A slice whose
         * past lay beyond its peers this long improbably often (an entry that queues longer by
         * design) is judged against that distance, not against the peers alone.
         */
        window: duration.default('60m'),
      })
      .strict(),
  ])
  .default({ window: '60m', min_count: 100 });

/** What the sequential detectors share: slices, localisation, reference, horizon, false discovery rate. */
const shiftCommon = {
  by,
  filters,
  /**
   * Also test each slice split by one of these dimensions (a tenant, an entry, a replica of a model
   * version), and report the most general slice that explains the change: a child when it carries
   * most of its parent's excess, the parent otherwise.
   */
  localize: z.array(z.enum(GROUP_KEYS)).max(4).default([]),
  reference: ShiftReferenceSchema,
  /** With too thin a past (a new version, little history), compare with the peers that differ in this dimension instead. */
  fallback_peers: z.enum(GROUP_KEYS).optional(),
  /** Longest window a change is accumulated over (the change may have started up to this long ago). */
  horizon: duration.default('60m'),
  /**
   * False discovery rate (Benjamini–Hochberg) across the slices of one evaluation whose change clears
   * the floors below (min_bad, min_ratio, min_delta; min_slowdown): one under them has no evidence to rank.
   */
  fdr: z.number().gt(0).lt(1).default(0.01),
  /**
   * Up to tolerance × the reference rate is still normal: rate_shift tests it given both counts
   * (the reference's uncertainty in the test), latency_shift against its upper confidence bound.
   */
  tolerance: z.number().min(1).max(100).default(1.5),
  /** The change that matters: at least min_ratio × the reference rate … */
  min_ratio: z.number().min(1).default(3),
  /** … and at least the reference + min_delta (absolute, e.g. 0.02 = 2 points). */
  min_delta: z.number().min(0).max(1).default(0.02),
  /** Fewest bad requests in the window for a verdict. */
  min_bad: z.number().int().min(1).default(3),
  /**
   * Only model versions serving the larger share of their model's requests over the horizon
   * (`major`: the stable version), or a smaller share beside a larger one (`minor`: canaries and
   * pinned versions, whatever their route is called). Needs model_version in by.
   */
  share: z.enum(['major', 'minor']).optional(),
  /**
   * Each of the last this many minutes must show the change on its own (its bad requests improbable
   * at the null rate) before it is raised: a one-minute spike of a slice whose rate wanders from
   * minute to minute is then not a change. Once raised it stays as any change does.
   */
  hold: duration.optional(),
};

/** Signals of rate_shift: which requests count as bad. */
export const RATE_SIGNALS = [...FAILED_STATUSES, 'errors', ...SHED_STATUSES, 'shed', ...RATE_FLAGS] as const;
/** A named signal, or the share of rows whose field is below a value (low confidence: `{ below: { field: confidence, value: 0.9 } }`). */
export const RateSignalSchema = z.union([
  z.enum(RATE_SIGNALS),
  z.object({ below: z.object({ field: z.enum(NUMERIC_FIELDS), value: z.number() }).strict() }).strict(),
]);
export type RateSignal = z.infer<typeof RateSignalSchema>;

/** A rate rose in a slice: sequential likelihood-ratio evidence against the slice's normal rate. */
export const RateShiftSchema = z.object({ kind: z.literal('rate_shift'), signal: RateSignalSchema, ...shiftCommon }).strict();

/** Requests got slower: the share above the reference's quantile rose (a quantile test as a rate). */
export const LatencyShiftSchema = z
  .object({
    kind: z.literal('latency_shift'),
    /** One latency field, or several (each tested on its own; the alert says which in a `field` label). */
    field: z.union([z.enum(NUMERIC_FIELDS), z.array(z.enum(NUMERIC_FIELDS)).min(1).max(8)]),
    /** The reference quantile whose exceedance is counted (0.99: the share above the normal P99). */
    quantile: z.number().gt(0.5).lt(1).default(0.99),
    /** The current quantile must be at least this many times the reference's. */
    min_slowdown: z.number().min(1).default(1.25),
    buckets_per_decade: z.number().int().min(5).max(120).default(20),
    /** up: more requests above the reference's quantile; down: more values below its (1 − quantile)-quantile (a confidence that drops). */
    direction: z.enum(['up', 'down']).default('up'),
    /** Linear bins for a bounded field (confidence: { width: 0.05 }) instead of the log buckets. */
    bins: z.union([z.object({ width: z.number().positive() }).strict(), z.object({ per_decade: z.number().int().min(1).max(120) }).strict()]).optional(),
    /**
     * A rise that comes with a burst of requests (over the window, at least 1.25× the past hour's
     * rate, and improbably so) is a queue doing its job while the burst lasts: each of the last this
     * many minutes must show it on its own before it is a change. A shortfall of capacity that lasts
     * is still raised, that long in; a rise without a burst is judged at once.
     */
    burst_hold: duration.optional(),
    ...shiftCommon,
    min_bad: z.number().int().min(1).default(5),
  })
  .strict();

/** The distribution of a field moved against the slice's own past (Dirichlet–multinomial evidence). */
export const DistributionShiftSchema = z
  .object({
    kind: z.literal('distribution_shift'),
    /** label, finish_reason, status, error_type, or a numeric field (binned). */
    field: z.string().min(1),
    /** Bins of a numeric field: linear of this width (confidence: 0.05), or logarithmic (output_length: 10 per decade). */
    bins: z.union([z.object({ width: z.number().positive() }).strict(), z.object({ per_decade: z.number().int().min(1).max(120) }).strict()]).optional(),
    by,
    filters,
    reference: z
      .object({ window: duration.default('60m'), min_count: z.number().int().min(1).default(200) })
      .strict()
      .default({ window: '60m', min_count: 200 }),
    horizon: duration.default('60m'),
    fdr: z.number().gt(0).lt(1).default(0.01),
    /** Smallest Jensen–Shannon distance (base 2, 0–1) that matters; Evidently reads ≥ 0.1 as drift. */
    min_distance: z.number().gt(0).max(1).default(0.1),
    /** Fewest rows in the current window for a verdict. */
    min_count: z.number().int().min(1).default(100),
    /**
     * Judge the mix within this dimension's values (a categorical field only): the reference's mix
     * of each tenant (say), weighted by its share of the current window, is what the window should
     * answer. A tenant whose own inputs differ sending more is a change of who sends, not of what
     * the model answers to the same inputs. A slice the mix test raises is judged again so (one read
     * of its reference and one of its window); a change hidden by who sends moving the other way is
     * not looked for.
     */
    within: z.enum(DIMENSIONS).optional(),
  })
  .strict()
  .refine((c) => c.within === undefined || CATEGORICAL_FIELDS.has(c.field), {
    path: ['within'],
    message: `within needs a categorical field (${[...CATEGORICAL_FIELDS].join(', ')})`,
  });

export const ConditionSchema = z.discriminatedUnion('kind', [
  ThresholdSchema,
  SloBurnRateSchema,
  QualityChangeSchema,
  ResourceConditionSchema,
  GoldenFailureSchema,
  NoDataSchema,
  RateShiftSchema,
  LatencyShiftSchema,
  DistributionShiftSchema,
]);

const labelName = z.string().regex(LABEL_NAME_RE, { error: 'expected a label name [a-zA-Z_][a-zA-Z0-9_]*' });
const paramValue = z.union([z.string().max(1024), z.number(), z.boolean()]);

export const ActionSchema = z.union(
  [
    z.enum(ACTION_TYPES).transform((type) => ({ type, params: {} as Record<string, string | number | boolean> })),
    z.object({ type: z.enum(ACTION_TYPES), params: z.record(z.string().max(64), paramValue).default({}) }).strict(),
  ],
  { error: `expected an action (${ACTION_TYPES.join(', ')}) or { type: <action>, params: { … } }` },
);

export const RuleSchema = z.preprocess(
  (r) => {
    if (typeof r === 'object' && r !== null && 'expr' in r && !('condition' in r)) {
      const { expr, ...rest } = r as Record<string, unknown>;
      return { ...rest, condition: expr };
    }
    return r;
  },
  z
    .object({
      alert: z.string().regex(LABEL_NAME_RE, { error: 'expected an alert name [a-zA-Z_][a-zA-Z0-9_]*' }),
      condition: ConditionSchema,
      for: duration.default('0s'),
      severity: z.enum(SEVERITIES),
      labels: z.record(labelName, z.string().max(256)).default({}),
      annotations: z.record(labelName, z.string().max(4096)).default({}),
      action: ActionSchema.optional(),
    })
    .strict(),
);

export const GroupSchema = z
  .object({
    name: z.string().min(1).max(128),
    interval: duration.optional(),
    /** Most alerts (label sets) one rule may hold; more is a rule error. */
    limit: z.number().int().min(1).max(100_000).default(1000),
    rules: z.array(RuleSchema).max(1000).default([]),
  })
  .strict();

/** The file's outer shape; each group and each rule is then checked (and reported) on its own. */
export const RuleFileShellSchema = z.object({ groups: z.array(z.unknown()).max(1000) }).strict();
export const GroupShellSchema = GroupSchema.extend({ rules: z.array(z.unknown()).max(1000).default([]) }).strict();

export type Condition = z.infer<typeof ConditionSchema>;
export type ThresholdCondition = z.infer<typeof ThresholdSchema>;
export type SloBurnRateCondition = z.infer<typeof SloBurnRateSchema>;
export type QualityChangeCondition = z.infer<typeof QualityChangeSchema>;
export type ResourceCondition = z.infer<typeof ResourceConditionSchema>;
export type GoldenFailureCondition = z.infer<typeof GoldenFailureSchema>;
export type NoDataCondition = z.infer<typeof NoDataSchema>;
export type RateShiftCondition = z.infer<typeof RateShiftSchema>;
export type LatencyShiftCondition = z.infer<typeof LatencyShiftSchema>;
export type DistributionShiftCondition = z.infer<typeof DistributionShiftSchema>;
export type RuleAction = { type: ActionType; params: Record<string, string | number | boolean> };

/** A validated rule with its group and where it was written. */
export interface Rule {
  alert: string;
  group: string;
  condition: Condition;
  forMs: number;
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  action?: RuleAction;
  source: { file: string; line?: number };
}

export interface RuleGroup {
  name: string;
  file: string;
  intervalMs: number;
  /** The file gave no interval (intervalMs is the default; `rules test` uses its evaluation_interval). */
  defaultInterval?: boolean;
  limit: number;
  rules: Rule[];
}

/** Milliseconds of a duration the schema already validated. */
export function durationMs(s: string): number {
  const ms = parseDurationMs(s);
  if (ms === undefined) throw new Error(`not a duration: ${s}`);
  return ms;
}
