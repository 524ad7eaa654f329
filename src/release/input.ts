/**
 * The `POST /v1/compare` body: zod shape, then the rules zod cannot say (each side needs a window,
 * the two sides must differ, the tenant is given once), resolved into a `ComparePlan` in epoch ms.
 */
import { z } from 'zod';
import { FiltersSchema, InferlensError } from '../schema/index.ts';
import type { FieldIssue, Filters } from '../schema/index.ts';
import { parseOrThrow, timeRange } from '../query/index.ts';
import { DEFAULT_TOLERANCE, METRIC_FAMILIES, isKnownMetric } from './metrics.ts';
import type { MetricFamily, Tolerance } from './metrics.ts';

/** Most raw rows read per side (the bound on `queries.events`). */
export const MAX_EVENTS_PER_SIDE = 20_000;

const rfc3339 = z.string().refine((s) => Number.isFinite(Date.parse(s)), { error: 'expected an RFC 3339 timestamp' });

const SideSchema = z
  .object({
    filters: FiltersSchema.default({}),
    from: rfc3339.optional(),
    to: rfc3339.optional(),
  })
  .strict();

const fraction = z.number().min(0).max(1);

const ToleranceSchema = z
  .object({
    latency_relative: fraction.optional(),
    latency_min_ms: z.number().min(0).optional(),
    error_rate_pp: z.number().min(0).max(100).optional(),
    reject_rate_pp: z.number().min(0).max(100).optional(),
    timeout_rate_pp: z.number().min(0).max(100).optional(),
    accuracy_pp: z.number().min(0).max(100).optional(),
    confidence_shift: fraction.optional(),
  })
  .strict();

export const CompareInputSchema = z
  .object({
    baseline: SideSchema,
    candidate: SideSchema,
    from: rfc3339.optional(),
    to: rfc3339.optional(),
    tenant: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(1000)]).optional(),
    metrics: z
      .array(z.string().refine((m) => (METRIC_FAMILIES as readonly string[]).includes(m) || isKnownMetric(m), {
        error: `expected a family (${METRIC_FAMILIES.join(', ')}) or a metric name such as p99(total_ms), shift(exec_ms), error_rate`,
      }))
      .min(1)
      .max(64)
      .optional(),
    tolerance: ToleranceSchema.default({}),
    correction: z.enum(['bh', 'holm']).default('bh'),
    min_requests: z.number().int().min(1).default(100),
    min_rate_samples: z.number().int().min(1).default(30),
    max_events_per_side: z.number().int().min(100).max(MAX_EVENTS_PER_SIDE).default(MAX_EVENTS_PER_SIDE),
    thresholds: z
      .object({ promote: z.number().min(0).max(100).default(75), rollback: z.number().min(0).max(100).default(50) })
      .strict()
      .default({ promote: 75, rollback: 50 }),
  })
  .strict();

export type CompareInput = z.input<typeof CompareInputSchema>;

/** One side of the comparison, resolved. */
export interface SideWindow {
  fromMs: number;
  toMs: number;
  filters: Filters;
}

/** A validated comparison request. */
export interface ComparePlan {
  baseline: SideWindow;
  candidate: SideWindow;
  /** Families and metric names to keep; undefined = all. */
  metrics?: ReadonlySet<string>;
  tolerance: Tolerance;
  correction: 'bh' | 'holm';
  minRequests: number;
  minRateSamples: number;
  maxEventsPerSide: number;
  promoteScore: number;
  rollbackScore: number;
}

/** Validates a compare body; throws invalid_argument with every field problem listed. */
export function toComparePlan(input: unknown): ComparePlan {
  const raw = parseOrThrow(CompareInputSchema, input, 'compare request');
  const issues: FieldIssue[] = [];
  const side = (name: 'baseline' | 'candidate'): SideWindow | undefined => {
    const s = raw[name];
    const from = s.from ?? raw.from;
    const to = s.to ?? raw.to;
    if (from === undefined || to === undefined) {
      issues.push({ path: from === undefined ? `${name}.from` : `${name}.to`, message: 'required: give the top-level from/to (same window for both) or this side its own' });
      return undefined;
    }
    const filters: Filters = { ...(s.filters as Filters) };
    if (raw.tenant !== undefined) {
      if (filters.tenant !== undefined) issues.push({ path: `${name}.filters.tenant`, message: 'given twice: also as the top-level tenant; give it once' });
      filters.tenant = raw.tenant;
    }
    try {
      return { ...timeRange(from, to), filters };
    } catch (e) {
      if (e instanceof InferlensError) for (const i of e.issues) issues.push({ path: `${name}.${i.path}`, message: i.message });
      return undefined;
    }
  };
  const baseline = side('baseline');
  const candidate = side('candidate');
  if (raw.thresholds.rollback > raw.thresholds.promote) issues.push({ path: 'thresholds.rollback', message: 'must not be above thresholds.promote' });
  if (baseline && candidate && sameSide(baseline, candidate)) {
    issues.push({ path: 'candidate', message: 'same filters and window as the baseline: change the version filter or the window' });
  }
  if (issues.length || !baseline || !candidate) {
    throw new InferlensError('invalid_argument', `invalid compare request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  }
  const t = raw.tolerance;
  const plan: ComparePlan = {
    baseline,
    candidate,
    tolerance: {
      latencyRelative: t.latency_relative ?? DEFAULT_TOLERANCE.latencyRelative,
      latencyMinMs: t.latency_min_ms ?? DEFAULT_TOLERANCE.latencyMinMs,
      errorRatePp: t.error_rate_pp ?? DEFAULT_TOLERANCE.errorRatePp,
      rejectRatePp: t.reject_rate_pp ?? DEFAULT_TOLERANCE.rejectRatePp,
      timeoutRatePp: t.timeout_rate_pp ?? DEFAULT_TOLERANCE.timeoutRatePp,
      accuracyPp: t.accuracy_pp ?? DEFAULT_TOLERANCE.accuracyPp,
      confidenceShift: t.confidence_shift ?? DEFAULT_TOLERANCE.confidenceShift,
    },
    correction: raw.correction,
    minRequests: raw.min_requests,
    minRateSamples: raw.min_rate_samples,
    maxEventsPerSide: raw.max_events_per_side,
    promoteScore: raw.thresholds.promote,
    rollbackScore: raw.thresholds.rollback,
  };
  if (raw.metrics) plan.metrics = new Set(raw.metrics as (MetricFamily | string)[]);
  return plan;
}

function canonical(filters: Filters): string {
  return JSON.stringify(
    Object.entries(filters)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : [v]])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
}

function sameSide(a: SideWindow, b: SideWindow): boolean {
  return a.fromMs === b.fromMs && a.toMs === b.toMs && canonical(a.filters) === canonical(b.filters);
}
