/**
 * latency_shift: requests of a slice got slower. A quantile shift is tested as a rate (METHODS.md):
 * the reference's q-quantile fixes a threshold, and the share of current requests above it is
 * judged with the same sequential evidence as rate_shift. Worked: a replica's peers put their P95
 * exec time in the bucket ending at 12.6 ms, 4.1 % of their requests lie above it; the replica has
 * 38 of 60 requests above it → rate 63 % against 4.1 %.
 *
 * Latencies are counted per minute in log buckets (`buckets_per_decade`, 20 by default: bounds
 * 12 % apart); the threshold is a bucket bound, so both sides are counted exactly against the same
 * threshold (the bucket only decides which threshold near the quantile is used). The reference is
 * the slice's own past, or its peers at the same time (`reference.peers`: a replica against the
 * other replicas of its model and version, so a load change that slows every replica cancels).
 * The value is the current q-quantile over the reference's (bucket bounds), which must reach
 * `min_slowdown`. With several fields, each is tested and named in a `field` label.
 */
import type { RateWindow } from '../../analysis/index.ts';
import type { NumericField } from '../../schema/index.ts';
import type { Labels } from '../labels.ts';
import { durationMs } from '../rule-schema.ts';
import type { LatencyShiftCondition } from '../rule-schema.ts';
import { MINUTE_MS } from '../series.ts';
import type { BucketsBin, SliceSeries } from '../series.ts';
import type { ConditionContext, Observation } from './context.ts';
import { SHRINK_REQUESTS, axisFor, decide, levelsOf, parentKey, peerKey, resolveReference, scopeOf, shareFilter, testWindows } from './shift.ts';
import type { Axis, ResolvedReference, Tested } from './shift.ts';

/** A slice's bucket counts as cumulative rows over bins: cum[j·u + i] = rows in bins < j at index idx[i]. */
interface Hist {
  labels: Labels;
  /** Bucket indices present, ascending. */
  idx: number[];
  cum: Float64Array;
}

function hist(s: SliceSeries<BucketsBin>, axis: Axis): Hist {
  const set = new Set<number>();
  for (const b of s.bins.values()) for (const i of b.keys()) set.add(i);
  const idx = [...set].sort((a, b) => a - b);
  const pos = new Map(idx.map((v, i) => [v, i]));
  const u = idx.length;
  const cum = new Float64Array((axis.bins + 1) * u);
  for (const [m, b] of s.bins) {
    const j = (m - axis.firstMs) / MINUTE_MS;
    if (j < 0 || j >= axis.bins) continue;
    for (const [i, n] of b) cum[(j + 1) * u + pos.get(i)!]! += n;
  }
  for (let j = 1; j <= axis.bins; j++) for (let i = 0; i < u; i++) cum[j * u + i]! += cum[(j - 1) * u + i]!;
  return { labels: s.labels, idx, cum };
}

/** Rows per bucket index over bins [a, b), into `into` (keyed by bucket index). */
function addRange(h: Hist, a: number, b: number, into: Map<number, number>, sign = 1): void {
  const u = h.idx.length;
  const A = Math.max(0, a);
  const B = Math.max(0, b);
  for (let i = 0; i < u; i++) {
    const v = h.cum[B * u + i]! - h.cum[A * u + i]!;
    if (v !== 0) into.set(h.idx[i]!, (into.get(h.idx[i]!) ?? 0) + sign * v);
  }
}

/** The bucket holding the q-quantile of a histogram (keyed by index), and the share above it. */
export function quantileBucket(h: Map<number, number>, q: number): { index: number; total: number; above: number } | null {
  const keys = [...h.keys()].sort((a, b) => a - b);
  let total = 0;
  for (const k of keys) total += h.get(k)!;
  if (total <= 0) return null;
  let cum = 0;
  for (const k of keys) {
    cum += h.get(k)!;
    if (cum >= q * total) return { index: k, total, above: total - cum };
  }
  return { index: keys[keys.length - 1]!, total, above: 0 };
}

/** Rows above bucket `index`, and all rows. */
function countAbove(h: Map<number, number>, index: number): { n: number; k: number } {
  let n = 0;
  let k = 0;
  for (const [i, v] of h) {
    n += v;
    if (i > index) k += v;
  }
  return { n, k };
}

export async function evalLatencyShift(c: LatencyShiftCondition, ctx: ConditionContext): Promise<Observation[]> {
  const fields: NumericField[] = Array.isArray(c.field) ? c.field : [c.field];
  const ref = resolveReference(c);
  const axis = axisFor(ctx.nowMs, durationMs(c.horizon), ref.kind === 'self' ? ref.bins * MINUTE_MS : 0);
  const levels = levelsOf(c);
  const tested: Tested[] = [];
  let judged = 0;
  let without = 0;
  for (const field of fields) {
    const perLevel: Map<string, Hist>[] = [];
    for (const dims of levels) {
      const series = await ctx.series.buckets({ kind: 'buckets', filters: c.filters, by: dims, column: field, buckets: { perDecade: c.buckets_per_decade } }, ctx.nowMs, axis.bins * MINUTE_MS);
      const m = new Map<string, Hist>();
      for (const [k, s] of series) m.set(k, hist(s, axis));
      perLevel.push(m);
    }
    const H = axis.windows[axis.windows.length - 1]!;
    const keep = shareFilter(new Map([...perLevel[0]!].map(([k, h]) => [k, { labels: h.labels, n: addRangeTotal(h, axis.bins - H, axis.bins) }])), c.by, c.share);
    perLevel.forEach((slices, level) => {
      const dims = levels[level]!;
      const peerDim = ref.kind === 'peers' ? ref.dim : c.fallback_peers;
      const groups = new Map<string, Hist[]>();
      if (peerDim)
        for (const h of slices.values()) {
          const k = peerKey(h.labels, dims, peerDim);
          const g = groups.get(k);
          if (g) g.push(h);
          else groups.set(k, [h]);
        }
      for (const h of slices.values()) {
        if (!keep(h.labels)) continue;
        const parent = level === 0 ? undefined : perLevel[0]!.get(parentKey(h.labels, c.by));
        const peers = peerDim ? (groups.get(peerKey(h.labels, dims, peerDim)) ?? []).filter((p) => p !== h) : [];
        const windows: RateWindow[] = [];
        const slowdown: number[] = [];
        for (const w of axis.windows) {
          const cur = new Map<number, number>();
          addRange(h, axis.bins - w, axis.bins, cur);
          const refHist = referenceHist(ref, h, parent, peers, w, axis.bins, level > 0, c.fallback_peers !== undefined);
          const qb = refHist ? quantileBucket(refHist, c.quantile) : null;
          if (!qb) {
            windows.push({ n: 0, k: 0, pRef: NaN, nRef: 0 });
            slowdown.push(NaN);
            continue;
          }
          const { n, k } = countAbove(cur, qb.index);
          windows.push({ n, k, pRef: qb.above / qb.total, nRef: qb.total });
          const cq = quantileBucket(cur, c.quantile);
          slowdown.push(cq ? 10 ** ((cq.index - qb.index) / c.buckets_per_decade) : NaN);
        }
        if (windows.every((w) => !Number.isFinite(w.pRef))) {
          if (level === 0 && windows.length > 0 && addRangeTotal(h, axis.bins - axis.windows[axis.windows.length - 1]!, axis.bins) > 0) without++;
          continue;
        }
        if (level === 0) judged++;
        const t = testWindows(windows, axis.windows, c);
        if (!t) continue;
        const e = t.evidence;
        const ratio = slowdown[e.window]!;
        if (!(ratio >= c.min_slowdown)) continue;
        tested.push({
          level,
          labels: fields.length > 1 ? { ...h.labels, field } : h.labels,
          parent: `${field}\u0001${parentKey(h.labels, c.by)}`,
          scope: scopeOf(h.labels, dims, c.by),
          ...t,
          value: ratio,
          details: { share_above: e.rate, reference_share: e.pRef, requests: e.n, above: e.k, window_minutes: axis.windows[e.window]!, quantile: c.quantile },
        });
      }
    });
  }
  ctx.note?.({ judged, without_reference: without });
  return decide(tested, c.fdr);
}

function addRangeTotal(h: Hist, a: number, b: number): number {
  const m = new Map<number, number>();
  addRange(h, a, b, m);
  let t = 0;
  for (const v of m.values()) t += v;
  return t;
}

/** The reference histogram of one window: own past (shrunk toward the parent's for a child), or the pooled peers; null when too thin. */
function referenceHist(ref: ResolvedReference, h: Hist, parent: Hist | undefined, peers: Hist[], w: number, L: number, child: boolean, fallback: boolean): Map<number, number> | null {
  const total = (m: Map<number, number>) => {
    let t = 0;
    for (const v of m.values()) t += v;
    return t;
  };
  const fromPeers = () => {
    const m = new Map<number, number>();
    for (const p of peers) addRange(p, L - w, L, m);
    return total(m) >= ref.minCount ? m : null;
  };
  if (ref.kind === 'peers') return fromPeers();
  const m = new Map<number, number>();
  addRange(h, L - w - ref.bins, L - w, m);
  if (child && parent) {
    // A child's own past is thin: shrink it toward its parent's past with 100 pseudo-requests of
    // the parent's shape, as rate_shift shrinks rates (a tenant that is always slower keeps its own
    // level once it has a past; a new one starts from its model version's).
    const p = new Map<number, number>();
    addRange(parent, L - w - ref.bins, L - w, p);
    const pt = total(p);
    if (pt < ref.minCount) return null;
    for (const [i, v] of p) m.set(i, (m.get(i) ?? 0) + (SHRINK_REQUESTS * v) / pt);
    return m;
  }
  if (total(m) >= ref.minCount) return m;
  return fallback ? fromPeers() : null;
}
