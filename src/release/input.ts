/**
 * A decoded `POST /v1/compare` request (`CompareRequestSchema`, src/schema) and the rules its
 * schema cannot say (each side needs a window, the two sides must differ, the tenant is given
 * once, metric names are in the catalog), resolved into a `ComparePlan` in epoch ms.
 */
import { InferlensError } from '../schema/index.ts';
import type { CompareRequest, FieldIssue, Filters } from '../schema/index.ts';
import { DEFAULT_TOLERANCE, METRIC_FAMILIES, isKnownMetric } from './metrics.ts';
import type { MetricFamily, Tolerance } from './metrics.ts';

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

/**
 * Resolves a decoded compare request into a plan: each side needs a window (its own or the
 * top-level one), the two sides must differ, the tenant is given once, metric names must be in
 * the catalog. Throws invalid_argument with every problem listed.
 */
export function toComparePlan(raw: CompareRequest): ComparePlan {
  const issues: FieldIssue[] = [];
  raw.metrics?.forEach((m, i) => {
    if (!(METRIC_FAMILIES as readonly string[]).includes(m) && !isKnownMetric(m)) {
      issues.push({
        path: `metrics.${i}`,
        message: `expected a family (${METRIC_FAMILIES.join(', ')}) or a metric name such as p99(total_ms), shift(exec_ms), error_rate`,
      });
    }
  });
  const side = (name: 'baseline' | 'candidate'): SideWindow | undefined => {
    const s = raw[name];
    const from = s.from ?? raw.from;
    const to = s.to ?? raw.to;
    if (from === undefined || to === undefined) {
      issues.push({
        path: from === undefined ? `${name}.from` : `${name}.to`,
        message: 'required: give the top-level from/to (same window for both) or this side its own',
      });
      return undefined;
    }
    const filters: Filters = { ...(s.filters as Filters) };
    if (raw.tenant !== undefined) {
      if (filters.tenant !== undefined) issues.push({ path: `${name}.filters.tenant`, message: 'given twice: also as the top-level tenant; give it once' });
      filters.tenant = raw.tenant;
    }
    if (!(to > from)) {
      issues.push({ path: `${name}.to`, message: 'must be after from' });
      return undefined;
    }
    return { fromMs: from, toMs: to, filters };
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
