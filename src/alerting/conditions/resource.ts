/**
 * resource: a resource metric per node/replica/gpu/pool through the public resource query,
 * optionally divided by another metric of the same slice. Worked: gpu_memory_used_bytes max 75 GiB
 * and gpu_memory_total_bytes 80 GiB on node-1/gpu 0 → 0.9375 > 0.9 fires.
 * `increase` (counters such as replica_restarts_total): max of the last step minus max of the first,
 * clamped at 0 (a counter reset inside the window reads as no increase).
 * `trend` (a gauge that creeps): the step averages (each divided by the capacity when `divide_by`)
 * as a series; when Mann–Kendall rejects "no trend" at `alpha`, the value is the Theil–Sen slope per
 * hour. Worked: 20 steps of 15 s, flat at 0.40 then rising by 0.02 a step over the last 8 → S = 124,
 * p ≈ 6e-5, and the slope is read per hour; a load step (flat, jump, flat) gives p ≈ 0.04 only.
 */
import { mannKendall, spearman, theilSen } from '../../analysis/index.ts';
import { durationMs } from '../rule-schema.ts';
import type { ResourceCondition } from '../rule-schema.ts';
import type { Labels } from '../labels.ts';
import { compare, measure, sliceKey } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';

interface Row {
  bucketMs: number;
  metric: string;
  avg: number;
  max: number;
  n: number;
  node?: string | null;
  replica?: string | null;
  gpu?: string | null;
  pool?: string | null;
}

function reduce(rows: Row[], agg: ResourceCondition['agg']): number | null {
  if (rows.length === 0) return null;
  const sorted = [...rows].sort((a, b) => a.bucketMs - b.bucketMs);
  switch (agg) {
    case 'max':
      return Math.max(...rows.map((r) => r.max));
    case 'avg': {
      const n = rows.reduce((a, r) => a + r.n, 0);
      return n > 0 ? rows.reduce((a, r) => a + r.avg * r.n, 0) / n : null;
    }
    case 'last':
      return sorted[sorted.length - 1]!.avg;
    case 'increase':
      return Math.max(0, sorted[sorted.length - 1]!.max - sorted[0]!.max);
    case 'trend':
    case 'time_to_limit':
      throw new Error(`${agg} is reduced by trendPerHour`);
  }
}

const HOUR_MS = 3_600_000;

/** One step: time in hours, the level (÷ capacity), and the control metric's level when there is one. */
interface Point {
  t: number;
  y: number;
  x?: number;
}

/** The step averages as points, paired with the control metric's step averages when `ctl` is given. */
function pointsOf(num: Row[], capacity: number, ctl?: Row[]): Point[] {
  const x = new Map((ctl ?? []).map((r) => [r.bucketMs, r.avg]));
  return [...num]
    .sort((a, b) => a.bucketMs - b.bucketMs)
    .map((r) => ({ t: r.bucketMs / HOUR_MS, y: r.avg / capacity, ...(x.has(r.bucketMs) ? { x: x.get(r.bucketMs)! } : {}) }));
}

/**
 * The levels with the load's share taken out: y − β·x, β the Theil–Sen slope of y on the control
 * x over the points given (robust to the leak's own points). Without a control, or a control that
 * does not move, the levels themselves. Worked: memory 0.60 + 0.5·(util − 0.4): util 0.4 → 0.6 →
 * memory 0.60 → 0.70, β = 0.5, residuals flat at 0.40; a leak adding 0.01 a step keeps rising.
 */
function deloaded(points: readonly Point[], beta: number): number[] {
  return points.map((p) => p.y - beta * (p.x ?? 0));
}

/**
 * β of the level on the control, when the control explains it (Spearman ρ ≥ 0.5 at p < 0.01); 0
 * otherwise: with a flat load, the slope of a creeping level on the load's noise is noise itself.
 */
function loadBeta(points: readonly Point[]): number {
  const paired = points.filter((p) => p.x !== undefined);
  if (paired.length < 8 || paired.length < points.length * 0.8) return 0;
  const x = paired.map((p) => p.x!);
  const y = paired.map((p) => p.y);
  const r = spearman(x, y);
  if (!(r.r >= 0.5 && r.pValue < 0.01)) return 0;
  const beta = theilSen(x, y).slope;
  return Number.isFinite(beta) && beta > 0 ? beta : 0;
}

/** Theil–Sen slope per hour of the (deloaded) levels, or null without a significant trend (Mann–Kendall at alpha). */
function trendPerHour(points: readonly Point[], alpha: number, beta = 0): number | null {
  const y = deloaded(points, beta);
  if (y.length < 3 || mannKendall(y).pValue >= alpha) return null;
  const slope = theilSen(
    points.map((p) => p.t),
    y,
  ).slope;
  return Number.isFinite(slope) ? slope : null;
}

/**
 * Minutes until the level reaches `limit` at the lower 95 % bound of the Theil–Sen slope of the
 * (deloaded) levels, from the last step's level; null without a significant rise, or when the
 * latter half of the window no longer rises (a step with the load that is over: flat, jump, flat
 * reads as a rise while the jump is mid-window). Worked: 0.80 of the card at the last step, the
 * slope's lower bound 0.30 of the card per hour → (1 − 0.80) / 0.30 h = 40 minutes.
 */
function minutesToLimit(points: readonly Point[], alpha: number, limit: number, beta: number): number | null {
  const y = deloaded(points, beta);
  if (y.length < 3 || mannKendall(y).pValue >= alpha) return null;
  const t = points.map((p) => p.t);
  const fit = theilSen(t, y);
  if (!Number.isFinite(fit.slope)) return null;
  // The slope's lower 95 % bound (Sen's interval): a rise that noise could explain has a lower bound
  // near zero and projects no limit; a leak's steady rise keeps it well above.
  const slope = fit.slopeLo;
  if (!(slope > 0)) return null;
  const half = Math.floor(points.length / 2);
  if (points.length - half < 3 || !(theilSen(t.slice(half), y.slice(half)).slope > 0)) return null;
  const level = points[points.length - 1]!.y;
  return Math.max(0, ((limit - level) / slope) * 60);
}

export async function evalResource(c: ResourceCondition, ctx: ConditionContext): Promise<Observation[]> {
  const windowMs = durationMs(c.window);
  const stepMs = c.step
    ? durationMs(c.step)
    : c.agg === 'trend' || c.agg === 'time_to_limit'
      ? windowMs / 20
      : c.agg === 'last' || c.agg === 'increase'
        ? Math.min(60_000, windowMs)
        : windowMs;
  const metrics = [c.metric, ...(c.divide_by ? [c.divide_by] : []), ...(c.control ? [c.control] : [])];
  const spec = { stepMs: Math.max(1000, Math.round(stepMs / 1000) * 1000), metrics, filters: c.filters, groupBy: c.by };
  // Steps that divide a minute are held by the series cache and read incrementally (a tick reads the
  // newest minute); a longer step (an average over the whole window) is one small read as it is.
  const rows =
    60_000 % spec.stepMs === 0
      ? await ctx.series.resources(spec, ctx.nowMs, windowMs)
      : await ctx.reads.resources({ ...spec, fromMs: ctx.nowMs - windowMs, toMs: ctx.nowMs });
  const slices = new Map<string, { labels: Labels; num: Row[]; den: Row[]; ctl: Row[] }>();
  for (const r of rows) {
    const labels: Labels = {};
    for (const d of c.by) {
      const v = r[d];
      if (v !== null && v !== undefined) labels[d] = v;
    }
    const key = sliceKey(labels, c.by);
    let s = slices.get(key);
    if (!s) slices.set(key, (s = { labels, num: [], den: [], ctl: [] }));
    (r.metric === c.metric ? s.num : r.metric === c.control ? s.ctl : s.den).push(r);
  }
  const out: Observation[] = [];
  for (const s of slices.values()) {
    // The denominator (a capacity) is read as its maximum over the window.
    const den = c.divide_by ? reduce(s.den, 'max') : 1;
    if (den === null || den <= 0) continue;
    let value: number | null;
    const points = pointsOf(s.num, den, c.control ? s.ctl : undefined);
    const beta = c.control ? loadBeta(points) : 0;
    if (c.agg === 'trend') value = trendPerHour(points, c.alpha, beta);
    else if (c.agg === 'time_to_limit') {
      // A fast creep shows over the last third of the window, a slow one over all of it: each of the
      // three nested windows ending now is tried at alpha / 3 (Bonferroni), the shortest time wins.
      const ttl = [1, 2, 3]
        .map((part) => minutesToLimit(points.slice(Math.floor((points.length * (3 - part)) / 3)), c.alpha / 3, c.limit, beta))
        .filter((x): x is number => x !== null);
      value = ttl.length > 0 ? Math.min(...ttl) : null;
    } else {
      const top = reduce(s.num, c.agg);
      value = top === null ? null : top / den;
    }
    if (value !== null && compare(value, c.op, c.value)) out.push({ labels: s.labels, value });
  }
  return servedBy(out, ctx, windowMs);
}

/**
 * A resource alert on a replica also names the model and version the replica served in the window,
 * from its requests, when it served exactly one (resource samples carry node, replica, gpu and pool,
 * not the model): "replica r3 restarted" becomes "replica r3 of ranker v2 restarted", the slice the
 * on-call and the routing action need. A replica that served several, or none, is left as it is.
 */
async function servedBy(out: Observation[], ctx: ConditionContext, windowMs: number): Promise<Observation[]> {
  const replicas = [...new Set(out.filter((o) => o.labels.replica !== undefined && o.labels.model === undefined).map((o) => o.labels.replica!))];
  if (replicas.length === 0) return out;
  const rows = await ctx.reads.aggregate({
    fromMs: ctx.nowMs - windowMs,
    toMs: ctx.nowMs,
    filters: { replica: replicas },
    groupBy: ['replica', 'model', 'model_version'],
    measures: [measure('count')],
    includeProbes: true,
    limit: 1000,
  });
  const served = new Map<string, Labels[]>();
  for (const r of rows) {
    if (typeof r.replica !== 'string' || typeof r.model !== 'string') continue;
    const list = served.get(r.replica) ?? [];
    list.push({ model: r.model, ...(typeof r.model_version === 'string' && { model_version: r.model_version }) });
    served.set(r.replica, list);
  }
  return out.map((o) => {
    const list = o.labels.replica === undefined || o.labels.model !== undefined ? undefined : served.get(o.labels.replica);
    if (!list || new Set(list.map((l) => l.model)).size !== 1) return o;
    const labels: Labels = { ...o.labels, model: list[0]!.model! };
    const version = list[0]!.model_version;
    if (version !== undefined && list.every((l) => l.model_version === version)) labels.model_version = version;
    return { ...o, labels };
  });
}
