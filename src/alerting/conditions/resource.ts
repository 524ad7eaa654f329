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
import { mannKendall, theilSen } from '../../analysis/index.ts';
import { durationMs } from '../rule-schema.ts';
import type { ResourceCondition } from '../rule-schema.ts';
import type { Labels } from '../labels.ts';
import { compare, sliceKey } from './context.ts';
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

/** Theil–Sen slope per hour of the step averages (÷ capacity), or null without a significant trend. */
function trendPerHour(num: Row[], capacity: number, alpha: number): number | null {
  const sorted = [...num].sort((a, b) => a.bucketMs - b.bucketMs);
  const t = sorted.map((r) => r.bucketMs / HOUR_MS);
  const y = sorted.map((r) => r.avg / capacity);
  if (y.length < 3 || mannKendall(y).pValue >= alpha) return null;
  const slope = theilSen(t, y).slope;
  return Number.isFinite(slope) ? slope : null;
}

/**
 * Minutes until the level reaches `limit` at the lower 95 % bound of the Theil–Sen slope, from
 * the last step's level; null without a significant rise, or when the latter half of the window no
 * longer rises (a step with the load that is over: flat, jump, flat reads as a rise while the jump
 * is mid-window). Worked: 0.80 of the card at the last step, the slope's lower bound 0.30 of the
 * card per hour → (1 − 0.80) / 0.30 h = 40 minutes.
 */
function minutesToLimit(num: Row[], capacity: number, alpha: number, limit: number): number | null {
  if (trendPerHour(num, capacity, alpha) === null) return null;
  // The slope's lower 95 % bound (Sen's interval): a rise that load alone could explain has a
  // lower bound near zero and projects no limit; a leak's steady rise keeps it well above.
  const sorted0 = [...num].sort((a, b) => a.bucketMs - b.bucketMs);
  const slope = theilSen(sorted0.map((r) => r.bucketMs / HOUR_MS), sorted0.map((r) => r.avg / capacity)).slopeLo;
  if (!(slope > 0)) return null;
  const sorted = [...num].sort((a, b) => a.bucketMs - b.bucketMs);
  const recent = sorted.slice(Math.floor(sorted.length / 2));
  if (recent.length < 3 || !(theilSen(recent.map((r) => r.bucketMs / HOUR_MS), recent.map((r) => r.avg / capacity)).slope > 0)) return null;
  const last = sorted[sorted.length - 1]!;
  const level = last.avg / capacity;
  return Math.max(0, ((limit - level) / slope) * 60);
}

export async function evalResource(c: ResourceCondition, ctx: ConditionContext): Promise<Observation[]> {
  const windowMs = durationMs(c.window);
  const stepMs = c.step ? durationMs(c.step) : c.agg === 'trend' || c.agg === 'time_to_limit' ? windowMs / 20 : c.agg === 'last' || c.agg === 'increase' ? Math.min(60_000, windowMs) : windowMs;
  const metrics = c.divide_by ? [c.metric, c.divide_by] : [c.metric];
  const rows = await ctx.reads.resources({
    fromMs: ctx.nowMs - windowMs,
    toMs: ctx.nowMs,
    stepMs: Math.max(1000, Math.round(stepMs / 1000) * 1000),
    metrics,
    filters: c.filters,
    groupBy: c.by,
  });
  const slices = new Map<string, { labels: Labels; num: Row[]; den: Row[] }>();
  for (const r of rows) {
    const labels: Labels = {};
    for (const d of c.by) {
      const v = r[d];
      if (v !== null && v !== undefined) labels[d] = v;
    }
    const key = sliceKey(labels, c.by);
    let s = slices.get(key);
    if (!s) slices.set(key, (s = { labels, num: [], den: [] }));
    (r.metric === c.metric ? s.num : s.den).push(r);
  }
  const out: Observation[] = [];
  for (const s of slices.values()) {
    // The denominator (a capacity) is read as its maximum over the window.
    const den = c.divide_by ? reduce(s.den, 'max') : 1;
    if (den === null || den <= 0) continue;
    let value: number | null;
    if (c.agg === 'trend') value = trendPerHour(s.num, den, c.alpha);
    else if (c.agg === 'time_to_limit') {
      // A fast creep shows over the last third of the window, a slow one over all of it: each of the
      // three nested windows ending now is tried at alpha / 3 (Bonferroni), the shortest time wins.
      const sorted = [...s.num].sort((a, b) => a.bucketMs - b.bucketMs);
      const ttl = [1, 2, 3].map((part) => minutesToLimit(sorted.slice(Math.floor((sorted.length * (3 - part)) / 3)), den, c.alpha / 3, c.limit)).filter((x): x is number => x !== null);
      value = ttl.length > 0 ? Math.min(...ttl) : null;
    }
    else {
      const top = reduce(s.num, c.agg);
      value = top === null ? null : top / den;
    }
    if (value !== null && compare(value, c.op, c.value)) out.push({ labels: s.labels, value });
  }
  return out;
}
