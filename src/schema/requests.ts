// Over 400 lines on purpose: one room: every request schema of the API, kept together so their shared pieces (windows, filters, steps) are declared once.
/**
 * Every request the HTTP API reads: the one module of request schemas. `src/api` decodes each body
 * and query string here (`decode`) and hands the typed result down; `query/`, `quality/`,
 * `release/` and `alerting/` never see an `unknown` body.
 *
 * Conventions: timestamps are strict RFC 3339 (`Rfc3339`, decoded to epoch ms and renamed
 * `fromMs`/`toMs`), steps are bounded durations (`Step`, kept as text with `stepMs` beside it),
 * every string and list has a bound, objects are strict (an unknown key is a 400 naming it), and
 * the checks zod cannot say on one field (to after from, bucket count) are issues with a path.
 */
import { z } from 'zod';
import { InferlensError } from './errors.ts';
import { EVENT_FIELD_NAMES, zodIssues } from './event.ts';
import { FiltersSchema, MAX_BUCKETS, MAX_GROUPS } from './query.ts';
import type { QuerySpec } from './query.ts';
import { DIMENSIONS, GROUP_KEYS, LATENCY_FIELDS, SAMPLE_FILTER_KEYS, SAMPLE_REASONS, parseMeasure } from './vocabulary.ts';
import type { Filters } from './vocabulary.ts';
import { MAX_STEP_MS, MIN_STEP_MS, parseDurationMs, parseRfc3339 } from './time.ts';

/** Decodes `input` with `schema` or throws invalid_argument listing every field problem with its path. */
export function decode<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) {
    const issues = zodIssues(r.error);
    throw new InferlensError('invalid_argument', `invalid ${what}: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`, { issues });
  }
  return r.data;
}

/** The latest instant a request may name: the end of year 9999 (RFC 3339 has four-digit years). */
export const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A strict RFC 3339 timestamp, decoded to epoch milliseconds. */
export const Rfc3339 = z
  .string()
  .max(64)
  .transform((s, ctx) => {
    const ms = parseRfc3339(s);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: 'expected an RFC 3339 timestamp such as 2026-01-01T00:00:00Z (a real calendar date, years 0000–9999)' });
      return z.NEVER;
    }
    return ms;
  });

/** A time bucket such as 10s, 1m, 1h: between 1 s and 366 days. */
export const Step = z
  .string()
  .max(32)
  .refine(
    (s) => {
      const ms = parseDurationMs(s);
      return ms !== undefined && ms >= MIN_STEP_MS && ms <= MAX_STEP_MS;
    },
    { error: 'expected a duration between 1s and 366d such as 10s, 1m, 1h' },
  );

/** Milliseconds of a Step that passed its check. */
const stepMsOf = (s: string): number => parseDurationMs(s)!;

/** A whole number in a query string (`?limit=50`), within [min, max]. */
function queryInt(min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,9}$/, { error: `expected a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { error: `expected a whole number from ${min} to ${max}` })
        .max(max, { error: `expected a whole number from ${min} to ${max}` }),
    );
}

/** The to-after-from and bucket-count checks, as issues under `prefix`. */
function checkWindow(ctx: z.RefinementCtx, fromMs: number, toMs: number, stepMs: number | undefined, prefix: (string | number)[] = []): void {
  if (!(toMs > fromMs)) ctx.addIssue({ code: 'custom', path: [...prefix, 'to'], message: 'must be after from' });
  else if (stepMs !== undefined && (toMs - fromMs) / stepMs > MAX_BUCKETS) {
    ctx.addIssue({ code: 'custom', path: [...prefix, 'step'], message: `gives more than ${MAX_BUCKETS} buckets for this range: use a larger step` });
  }
}

/** `{ from, to, step?, … }` → `{ fromMs, toMs, stepMs?, step?, … }`. */
function toWindow<T extends { from: number; to: number; step?: string | undefined }>(
  o: T,
): Omit<T, 'from' | 'to'> & { fromMs: number; toMs: number; stepMs?: number } {
  const { from, to, ...rest } = o;
  return { fromMs: from, toMs: to, ...rest, ...(o.step !== undefined ? { stepMs: stepMsOf(o.step) } : {}) };
}

const windowRefine = (o: { from: number; to: number; step?: string | undefined }, ctx: z.RefinementCtx) =>
  checkWindow(ctx, o.from, o.to, o.step !== undefined ? stepMsOf(o.step) : undefined);

/** What a window request decodes to: its fields, with from/to as `fromMs`/`toMs` and the step's `stepMs`. */
type WindowOut<T extends z.ZodRawShape> = z.output<z.ZodObject<T>> & { fromMs: number; toMs: number; stepMs?: number };

/**
 * A request over a window: `{ from, to, …shape }`, strict, to after from and at most MAX_BUCKETS
 * steps, decoded to `{ fromMs, toMs, stepMs?, …shape }`.
 */
function windowRequest<T extends z.ZodRawShape>(shape: T): z.ZodType<WindowOut<T>> {
  return z
    .object({ from: Rfc3339, to: Rfc3339, ...shape })
    .strict()
    .superRefine((o, ctx) => windowRefine(o as never, ctx))
    .transform((o) => toWindow(o as never) as WindowOut<T>);
}

/** A window request whose step has a default: `stepMs` is always there. */
const withStepMs = <T extends z.ZodRawShape>(shape: T) => windowRequest(shape) as z.ZodType<WindowOut<T> & { stepMs: number }>;

const Filters_ = FiltersSchema.default({});
/** Allow quantiles (and histogram counts) from the per-minute rollup; the reply's `approx` says if it answered. */
const Approx = z.boolean().default(false);

// ---------- POST /v1/query ----------

export const QueryRequestSchema = z
  .object({
    from: Rfc3339,
    to: Rfc3339,
    filters: Filters_,
    group_by: z.array(z.enum(GROUP_KEYS)).max(4).default([]),
    step: Step.optional(),
    measures: z.array(z.string().max(128)).min(1).max(40),
    include_probes: z.boolean().default(false),
    limit: z.number().int().min(1).max(MAX_GROUPS).default(MAX_GROUPS),
    /**
     * Allow an answer from the per-minute rollup: quantiles within ~1 % (the reply's
     * `approx.relative_error`), every other measure exact. Default false: exact quantiles.
     */
    approx: z.boolean().default(false),
  })
  .strict()
  .superRefine((o, ctx) => {
    windowRefine(o, ctx);
    o.measures.forEach((name, i) => {
      const m = parseMeasure(name);
      if (typeof m === 'string') ctx.addIssue({ code: 'custom', path: ['measures', i], message: m });
    });
  })
  .transform((o): QuerySpec => {
    const spec: QuerySpec = {
      fromMs: o.from,
      toMs: o.to,
      filters: o.filters as Filters,
      groupBy: o.group_by,
      measures: o.measures.map((name) => ({ name, measure: parseMeasure(name) as Exclude<ReturnType<typeof parseMeasure>, string> })),
      includeProbes: o.include_probes,
      limit: o.limit,
    };
    if (o.step !== undefined) spec.stepMs = stepMsOf(o.step);
    if (o.approx) spec.approx = true;
    return spec;
  });

// ---------- runtime analyses ----------

export const EventSearchRequestSchema = windowRequest({
  filters: Filters_,
  limit: z.number().int().min(1).max(1000).default(100),
  columns: z
    .array(
      z
        .string()
        .max(64)
        .refine((c) => EVENT_FIELD_NAMES.has(c), { error: 'unknown event field' }),
    )
    .max(64)
    .optional(),
  min: z
    .object({ column: z.enum(LATENCY_FIELDS), value: z.number() })
    .strict()
    .optional(),
  order: z.enum(['ts_desc', 'ts_asc']).default('ts_desc'),
});
export type EventSearchRequest = z.output<typeof EventSearchRequestSchema>;

export const ErrorSlicesRequestSchema = windowRequest({
  filters: Filters_,
  dimensions: z.array(z.enum(DIMENSIONS)).min(1).max(10).optional(),
  /** errors: error + timeout; slow: above threshold_ms; shed: rejected + rate-limited (turned away). */
  kind: z.enum(['errors', 'slow', 'shed']).default('errors'),
  /** The latency a slow request is judged on (kind slow); default total_ms. */
  field: z.enum(LATENCY_FIELDS).default('total_ms'),
  /**
   * What counts as slow; default: the window's P95 of `field`. P95, not P99: a slow replica
   * serving a third of the traffic fills the top 5 % (tens of requests in a few minutes) but
   * only 1 % are above the P99, too few to tell it apart from the rest (measured on the demo:
   * 8 of 283, q = 0.07).
   */
  threshold_ms: z.number().positive().max(1e9).optional(),
  min_support: z.number().int().min(1).max(1e9).default(20),
  pairs: z.boolean().default(true),
  limit: z.number().int().min(1).max(500).default(50),
  /**
   * The slow threshold (the window's P95) may come from the rollup, and a large window is
   * counted on a sample (reply: `sample`).
   */
  approx: Approx,
});
export type ErrorSlicesRequest = z.output<typeof ErrorSlicesRequestSchema>;

export const StagesRequestSchema = z
  .object({
    from: Rfc3339,
    to: Rfc3339,
    filters: Filters_,
    /** The window to compare with; default: the same length just before. */
    baseline: z.object({ from: Rfc3339, to: Rfc3339, filters: FiltersSchema.optional() }).strict().optional(),
    q: z.number().gt(0).lt(1).default(0.99),
    approx: Approx,
  })
  .strict()
  .superRefine((o, ctx) => {
    windowRefine(o, ctx);
    if (o.baseline) checkWindow(ctx, o.baseline.from, o.baseline.to, undefined, ['baseline']);
  })
  .transform(({ baseline, ...o }) => ({
    ...toWindow(o),
    ...(baseline ? { baseline: { fromMs: baseline.from, toMs: baseline.to, ...(baseline.filters ? { filters: baseline.filters as Filters } : {}) } } : {}),
  }));
export type StagesRequest = z.output<typeof StagesRequestSchema>;

export const SaturationRequestSchema = withStepMs({
  filters: Filters_,
  step: Step.default('1m'),
  /** Length of the baseline read before `from`; default the window's length, at least 10 steps. */
  baseline: Step.optional(),
  approx: Approx,
});
export type SaturationRequest = z.output<typeof SaturationRequestSchema>;

export const HistogramRequestSchema = withStepMs({
  filters: Filters_,
  step: Step.default('1m'),
  field: z.enum(LATENCY_FIELDS).default('total_ms'),
  approx: Approx,
});
export type HistogramRequest = z.output<typeof HistogramRequestSchema>;

const labelFilter = z.union([z.string().max(256), z.array(z.string().max(256)).min(1).max(100)]);
/** A resource sample's own label name (`model`, `le`, `gen_ai.token.type`), as labels are stored. */
const LabelName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-zA-Z_][a-zA-Z0-9_.:-]*$/, { error: 'expected a label name such as model, le or gen_ai.token.type' });
const ResourceFilters = z
  .object({
    node: labelFilter,
    replica: labelFilter,
    gpu: labelFilter,
    pool: labelFilter,
    /** A sample's own labels: `{"model": "opt-125m", "gen_ai.token.type": ["input"]}`. */
    labels: z.record(LabelName, labelFilter).refine((o) => Object.keys(o).length <= 8, { error: 'expected at most 8 label filters' }),
  })
  .partial()
  .strict()
  .default({});
/** Sample fields, or a sample's own label as `labels.<name>` (`labels.model`, `labels.le`). */
const ResourceGroupKey = z.union([
  z.enum(['node', 'replica', 'gpu', 'pool']),
  z.templateLiteral(
    [
      'labels.',
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[a-zA-Z_][a-zA-Z0-9_.:-]*$/),
    ],
    { error: 'expected node, replica, gpu, pool or labels.<name> such as labels.model' },
  ),
]);
export const ResourceQueryRequestSchema = withStepMs({
  step: Step.default('1m'),
  metrics: z.array(z.string().min(1).max(128)).min(1).max(20),
  filters: ResourceFilters,
  group_by: z.array(ResourceGroupKey).max(4).default([]),
});
export type ResourceQueryRequest = z.output<typeof ResourceQueryRequestSchema>;

/** Quantiles a histogram answers; each within (0, 1). */
const Quantile = z.number().gt(0).lt(1);
export const ResourceQuantilesRequestSchema = withStepMs({
  step: Step.default('1m'),
  /** The histogram: its per-interval `<metric>_bucket{le}` samples are read (`ttft_seconds`, `request_latency_seconds`). */
  metric: z
    .string()
    .min(1)
    .max(120)
    .regex(/^[a-zA-Z_:][a-zA-Z0-9_:.]*$/, { error: 'expected a histogram name such as ttft_seconds' }),
  quantiles: z.array(Quantile).min(1).max(10).default([0.5, 0.9, 0.99]),
  filters: ResourceFilters,
  group_by: z
    .array(ResourceGroupKey.refine((k) => k !== 'labels.le', { error: 'le is what the quantile is computed over; it cannot be a group' }))
    .max(3)
    .default([]),
});
export type ResourceQuantilesRequest = z.output<typeof ResourceQuantilesRequestSchema>;

/** `POST /v1/cost`: money per model, tenant, 1,000 requests and 1,000 tokens; `step` is the attribution and trend step. */
export const CostRequestSchema = withStepMs({ filters: Filters_, step: Step.default('1h') });
export type CostRequest = z.output<typeof CostRequestSchema>;

export const CapacityRequestSchema = withStepMs({
  filters: Filters_,
  step: Step.default('1m'),
  /** A correlation counts when |ρ| ≥ this and p < 0.05. */
  min_rho: z.number().gt(0).max(1).default(0.5),
});
export type CapacityRequest = z.output<typeof CapacityRequestSchema>;

// ---------- captured samples ----------

const filterValue = z.union([z.string().max(1024), z.array(z.string().max(1024)).min(1).max(1000)]);

export const SampleSearchRequestSchema = windowRequest({
  filters: z.partialRecord(z.enum(SAMPLE_FILTER_KEYS), filterValue).default({}),
  reasons: z.array(z.enum(SAMPLE_REASONS)).min(1).max(SAMPLE_REASONS.length).optional(),
  tags: z.array(z.string().min(1).max(64)).min(1).max(64).optional(),
  request_id: z.string().min(1).max(128).optional(),
  limit: z.number().int().min(1).max(1000).default(100),
});
export type SampleSearchRequest = z.output<typeof SampleSearchRequestSchema>;

// ---------- result quality ----------

export const QualitySummaryRequestSchema = windowRequest({
  filters: Filters_,
  group_by: z.array(z.enum(DIMENSIONS)).max(3).default([]),
  step: Step.optional(),
  /** Confidence below this counts as low (default: the server's `quality.low_confidence`, 0.6). */
  low_confidence: z.number().gt(0).lt(1).optional(),
  /** Classes whose share shift is reported; default: the 5 most frequent in each group. */
  key_classes: z.array(z.string().min(1).max(256)).min(1).max(20).optional(),
});
export type QualitySummaryRequest = z.output<typeof QualitySummaryRequestSchema>;

export const NUMERIC_DRIFT_FIELDS = ['confidence', 'output_length', 'score'] as const;
export const CATEGORICAL_DRIFT_FIELDS = ['label', 'finish_reason'] as const;
export const DRIFT_FIELDS = [...NUMERIC_DRIFT_FIELDS, ...CATEGORICAL_DRIFT_FIELDS] as const;
export type DriftField = (typeof DRIFT_FIELDS)[number];

export const DriftRequestSchema = z
  .object({
    from: Rfc3339,
    to: Rfc3339,
    filters: Filters_,
    reference: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('previous') }).strict(),
        z.object({ kind: z.literal('window'), from: Rfc3339, to: Rfc3339 }).strict(),
        z.object({ kind: z.literal('version'), model_version: z.string().min(1).max(256) }).strict(),
      ])
      .default({ kind: 'previous' }),
    fields: z
      .array(z.enum(DRIFT_FIELDS))
      .min(1)
      .max(DRIFT_FIELDS.length)
      .default([...DRIFT_FIELDS]),
    /** Fewest rows on each side for a verdict (default 30, as driftTest). */
    min_samples: z.number().int().min(2).max(100_000).default(30),
  })
  .strict()
  .superRefine((o, ctx) => {
    windowRefine(o, ctx);
    if (o.reference.kind === 'window') checkWindow(ctx, o.reference.from, o.reference.to, undefined, ['reference']);
  })
  .transform(({ reference, ...o }) => ({
    ...toWindow(o),
    reference: reference.kind === 'window' ? { kind: 'window' as const, fromMs: reference.from, toMs: reference.to } : reference,
  }));
export type DriftRequest = z.output<typeof DriftRequestSchema>;

export const FeedbackQualityRequestSchema = windowRequest({
  filters: Filters_,
  group_by: z
    .array(z.enum([...DIMENSIONS, 'label']))
    .max(4)
    .default([]),
  step: Step.optional(),
  limit: z.number().int().min(1).max(10_000).default(10_000),
});
export type FeedbackQualityRequest = z.output<typeof FeedbackQualityRequestSchema>;

/** `GET /v1/golden/results?from&to[&set][&model][&step]` (a query string: every value is text). */
export const GoldenResultsRequestSchema = windowRequest({
  set: z.string().min(1).max(64).optional(),
  model: z.string().min(1).max(256).optional(),
  step: Step.optional(),
});
export type GoldenResultsRequest = z.output<typeof GoldenResultsRequestSchema>;

// ---------- release comparison ----------

const fraction = z.number().min(0).max(1);
const CompareSideSchema = z.object({ filters: Filters_, from: Rfc3339.optional(), to: Rfc3339.optional() }).strict();

export const CompareRequestSchema = z
  .object({
    baseline: CompareSideSchema,
    candidate: CompareSideSchema,
    from: Rfc3339.optional(),
    to: Rfc3339.optional(),
    tenant: z.union([z.string().min(1).max(256), z.array(z.string().min(1).max(256)).min(1).max(1000)]).optional(),
    /** Families or metric names; src/release checks the names against its catalog. */
    metrics: z.array(z.string().min(1).max(128)).min(1).max(64).optional(),
    tolerance: z
      .object({
        latency_relative: fraction.optional(),
        latency_min_ms: z.number().min(0).max(1e9).optional(),
        error_rate_pp: z.number().min(0).max(100).optional(),
        reject_rate_pp: z.number().min(0).max(100).optional(),
        timeout_rate_pp: z.number().min(0).max(100).optional(),
        accuracy_pp: z.number().min(0).max(100).optional(),
        confidence_shift: fraction.optional(),
      })
      .strict()
      .default({}),
    correction: z.enum(['bh', 'holm']).default('bh'),
    min_requests: z.number().int().min(1).max(1e9).default(100),
    min_rate_samples: z.number().int().min(1).max(1e9).default(30),
    max_events_per_side: z.number().int().min(100).max(20_000).default(20_000),
    thresholds: z
      .object({ promote: z.number().min(0).max(100).default(75), rollback: z.number().min(0).max(100).default(50) })
      .strict()
      .default({ promote: 75, rollback: 50 }),
  })
  .strict();
export type CompareRequest = z.output<typeof CompareRequestSchema>;

// ---------- small GET requests ----------

/** `GET /v1/labels/:dimension?from&to&limit`: from/to default to the last day. */
export const LabelsRequestSchema = z
  .object({ dimension: z.enum(DIMENSIONS), from: Rfc3339.optional(), to: Rfc3339.optional(), limit: queryInt(1, 1000).default(200) })
  .strict()
  .superRefine((o, ctx) => {
    if (o.from !== undefined && o.to !== undefined) checkWindow(ctx, o.from, o.to, undefined);
  });

/** A request id in a path (`GET /v1/requests/:id`). */
export const RequestIdSchema = z.string().min(1).max(128);

/** An id in a path (silences, actions). */
export const PathIdSchema = z.string().min(1).max(128);

/** `GET /v1/alerts?state&severity&alertname`. */
export const AlertsRequestSchema = z
  .object({
    state: z.enum(['pending', 'firing', 'resolved']).optional(),
    severity: z.string().min(1).max(64).optional(),
    alertname: z.string().min(1).max(256).optional(),
  })
  .strict();

/** `GET /v1/incidents?from&to`: with both, incidents from the incident log; with neither, the live ones. */
export const IncidentsRequestSchema = z
  .object({ from: Rfc3339.optional(), to: Rfc3339.optional() })
  .strict()
  .superRefine((o, ctx) => {
    if ((o.from === undefined) !== (o.to === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [o.from === undefined ? 'from' : 'to'],
        message: 'give both from and to (the incident log over that window), or neither (the live incidents)',
      });
    if (o.from !== undefined && o.to !== undefined) checkWindow(ctx, o.from, o.to, undefined);
  });
export type IncidentsRequest = z.output<typeof IncidentsRequestSchema>;

/** `GET /v1/reports?period&format`: the review of the period ending now (1 h to 90 d), as JSON or Markdown. */
/** The dimensions a report may be narrowed to (the dashboard's filter bar). */
export const REPORT_FILTERS = ['model', 'model_version', 'tenant', 'entry', 'route_rule', 'node', 'replica'] as const;

export const ReportRequestSchema = z
  .object({
    period: z
      .string()
      .max(32)
      .default('24h')
      .refine(
        (s) => {
          const ms = parseDurationMs(s);
          return ms !== undefined && ms >= 3_600_000 && ms <= 90 * 86_400_000;
        },
        { error: 'expected a period between 1h and 90d such as 24h or 7d' },
      )
      .transform((s) => parseDurationMs(s)!),
    format: z.enum(['json', 'md', 'html']).default('json'),
    /** The dashboard's filter bar: one value each, narrowing every section (GPUs: node and replica only). */
    ...(Object.fromEntries(REPORT_FILTERS.map((d) => [d, z.string().min(1).max(256).optional()])) as Record<
      (typeof REPORT_FILTERS)[number],
      z.ZodOptional<z.ZodString>
    >),
  })
  .strict();
export type ReportRequest = z.output<typeof ReportRequestSchema>;

/** A body field that the caller may not set: who acts is the authenticated principal. */
const notFromBody = (what: string) =>
  z.never({ error: `not accepted: the ${what} is the caller (its API key or dashboard session), never a body field` }).optional();

const MatcherInput = z.union([
  z.string().min(1).max(1024),
  z
    .object({
      name: z
        .string()
        .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/)
        .max(256),
      value: z.string().max(1024),
      isRegex: z.boolean().default(false),
      isEqual: z.boolean().default(true),
    })
    .strict(),
]);

/** `POST /v1/silences`: matchers as `name="v"` strings or Alertmanager objects; endsAt or duration_s. */
export const SilenceRequestSchema = z
  .object({
    matchers: z.array(MatcherInput).min(1).max(32),
    startsAt: Rfc3339.optional(),
    endsAt: Rfc3339.optional(),
    /** Instead of endsAt: seconds from startsAt. */
    duration_s: z
      .number()
      .positive()
      .max(365 * 86_400)
      .optional(),
    comment: z.string().max(4096).default(''),
    createdBy: notFromBody('silencer'),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.endsAt === undefined && o.duration_s === undefined)
      ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'a silence needs endsAt or duration_s' });
    if (o.startsAt !== undefined && o.duration_s !== undefined && o.startsAt + o.duration_s * 1000 > MAX_TIME_MS) {
      ctx.addIssue({ code: 'custom', path: ['duration_s'], message: 'ends after the year 9999' });
    }
  });

/** `POST /v1/actions/:id/approve`: no fields; the approver is the caller. */
export const ApproveRequestSchema = z.object({ by: notFromBody('approver') }).strict();

/** `POST /v1/actions/:id/reject`: the rejecter is the caller too; an optional reason for the audit trail. */
export const RejectRequestSchema = z.object({ by: notFromBody('rejecter'), reason: z.string().min(1).max(1024).optional() }).strict();

/** `POST /v1/incidents/:id/ack`: the acknowledger is the caller; an optional comment for the incident log. */
export const AckRequestSchema = z.object({ by: notFromBody('acknowledger'), comment: z.string().min(1).max(1024).optional() }).strict();

/** `POST /v1/session`: exchange an API key for a dashboard session cookie. */
export const SessionRequestSchema = z.object({ key: z.string().min(1).max(512) }).strict();

/** `GET /v1/audit?from&to&limit&action`: newest first. */
export const AuditRequestSchema = z
  .object({ from: Rfc3339.optional(), to: Rfc3339.optional(), limit: queryInt(1, 1000).default(200), action: z.string().min(1).max(64).optional() })
  .strict()
  .superRefine((o, ctx) => {
    if (o.from !== undefined && o.to !== undefined) checkWindow(ctx, o.from, o.to, undefined);
  });
