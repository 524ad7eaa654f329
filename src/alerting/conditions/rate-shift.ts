/**
 * rate_shift: the share of bad requests (errors, timeouts, shed load, empty / refused / malformed
 * results) rose in a slice, judged by sequential evidence against the slice's normal rate.
 *
 * Normal is, by default, the slice's own past: the `reference.window` before the change point
 * tried. A child slice (a tenant, an entry or a replica of a model version, from `localize`) has a
 * thin past, so its reference is shrunk toward its parent's over the same minutes with 100
 * pseudo-requests: (k_ref + 100·p_parent) / (n_ref + 100). Worked: a tenant with 0 errors in its
 * last 144 requests, whose model version fails 0.5 % → (0 + 0.5) / 244 = 0.2 %, with a Wilson upper
 * bound on 244 requests of 1.3 %. With `reference.peers`, normal is the pooled rate of the slices
 * that differ only in that dimension at the same time; with `fallback_peers`, a slice whose past is
 * too thin (a new canary) is compared with those peers instead.
 *
 * Each window's evidence is tested against "rate ≤ tolerance × that reference" (see
 * analysis/sequential.ts); the best window's p-value goes through Benjamini–Hochberg with every
 * other slice of the evaluation, and localisation reports the most general slice that explains it.
 * The value is the rate over the best window divided by the reference rate.
 */
import type { RateWindow } from '../../analysis/index.ts';
import type { Labels } from '../labels.ts';
import { durationMs } from '../rule-schema.ts';
import type { RateShiftCondition, RateSignal } from '../rule-schema.ts';
import { MINUTE_MS } from '../series.ts';
import type { CountsBin, SliceSeries } from '../series.ts';
import type { ConditionContext, Observation } from './context.ts';
import { SHRINK_REQUESTS, axisFor, decide, dense, levelsOf, parentKey, peerKey, prefix, resolveReference, scopeOf, shareFilter, testWindows } from './shift.ts';
import type { Axis, ResolvedReference, Tested } from './shift.ts';

/** Every Bernoulli signal's numerator and denominator, read in one query per level. */
export const COUNT_MEASURES = ['count', 'error_rate', 'timeout_rate', 'rejected_rate', 'rate_limited_rate', 'empty_rate', 'n(empty)', 'refused_rate', 'n(refused)', 'format_error_rate', 'n(format_ok)'] as const;

/** The measures a signal reads: the named signals share one list; `below` reads its own rate and count. */
export function signalMeasures(signal: RateSignal): readonly string[] {
  return typeof signal === 'string' ? COUNT_MEASURES : [`below_rate(${signal.below.field}, ${signal.below.value})`, `n(${signal.below.field})`];
}

/** Bad requests and requests of one minute for a signal. */
export function signalCounts(signal: RateSignal, b: CountsBin): { n: number; k: number } {
  const count = b.count ?? 0;
  const rate = (...names: string[]) => names.reduce((a, m) => a + (b[m] ?? 0), 0);
  if (typeof signal !== 'string') {
    const [r, n] = signalMeasures(signal) as [string, string];
    return { n: b[n] ?? 0, k: (b[r] ?? 0) * (b[n] ?? 0) };
  }
  switch (signal) {
    case 'error':
      return { n: count, k: rate('error_rate') * count };
    case 'timeout':
      return { n: count, k: rate('timeout_rate') * count };
    case 'errors':
      return { n: count, k: rate('error_rate', 'timeout_rate') * count };
    case 'rejected':
      return { n: count, k: rate('rejected_rate') * count };
    case 'rate_limited':
      return { n: count, k: rate('rate_limited_rate') * count };
    case 'shed':
      return { n: count, k: rate('rejected_rate', 'rate_limited_rate') * count };
    case 'empty':
      return { n: b['n(empty)'] ?? 0, k: rate('empty_rate') * (b['n(empty)'] ?? 0) };
    case 'refused':
      return { n: b['n(refused)'] ?? 0, k: rate('refused_rate') * (b['n(refused)'] ?? 0) };
    case 'format_error':
      return { n: b['n(format_ok)'] ?? 0, k: rate('format_error_rate') * (b['n(format_ok)'] ?? 0) };
  }
}


/** A slice's bad requests and requests per minute, as prefix sums. */
interface Sums {
  labels: Labels;
  n: Float64Array;
  k: Float64Array;
}

function sums(series: Map<string, SliceSeries<CountsBin>>, axis: Axis, signal: RateSignal): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const [key, s] of series) {
    const c = new Map([...s.bins].map(([m, b]) => [m, signalCounts(signal, b)] as const));
    out.set(key, { labels: s.labels, n: prefix(dense(c, axis, (x) => x.n)), k: prefix(dense(c, axis, (x) => x.k)) });
  }
  return out;
}

const range = (p: Float64Array, a: number, b: number) => p[Math.max(0, b)]! - p[Math.max(0, a)]!;

/** Pooled peers (same key without `dim`) minus the slice itself, per window: [n, k]. */
function peerTotals(all: Map<string, Sums>, dims: readonly string[], dim: string): Map<string, Sums> {
  const out = new Map<string, Sums>();
  for (const s of all.values()) {
    const key = peerKey(s.labels, dims, dim);
    const t = out.get(key);
    if (!t) out.set(key, { labels: s.labels, n: Float64Array.from(s.n), k: Float64Array.from(s.k) });
    else
      for (let i = 0; i < t.n.length; i++) {
        t.n[i]! += s.n[i]!;
        t.k[i]! += s.k[i]!;
      }
  }
  return out;
}

export async function evalRateShift(c: RateShiftCondition, ctx: ConditionContext): Promise<Observation[]> {
  const ref = resolveReference(c);
  const horizonMs = durationMs(c.horizon);
  const axis = axisFor(ctx.nowMs, horizonMs, ref.kind === 'self' ? ref.bins * MINUTE_MS : 0);
  const levels = levelsOf(c);
  const spanMs = axis.bins * MINUTE_MS;
  const perLevel: Map<string, Sums>[] = [];
  for (const dims of levels) {
    const series = await ctx.series.counts({ kind: 'counts', filters: c.filters, by: dims, measures: signalMeasures(c.signal) }, ctx.nowMs, spanMs);
    perLevel.push(sums(series, axis, c.signal));
  }
  const tested: Tested[] = [];
  let judged = 0;
  let without = 0;
  const L = axis.bins;
  const H = axis.windows[axis.windows.length - 1]!;
  const keep = shareFilter(new Map([...perLevel[0]!].map(([k, s]) => [k, { labels: s.labels, n: range(s.n, L - H, L) }])), c.by, c.share);
  perLevel.forEach((slices, level) => {
    const dims = levels[level]!;
    const peers = ref.kind === 'peers' ? peerTotals(slices, dims, ref.dim) : c.fallback_peers ? peerTotals(slices, dims, c.fallback_peers) : undefined;
    const peerDim = ref.kind === 'peers' ? ref.dim : c.fallback_peers;
    for (const s of slices.values()) {
      if (range(s.n, 0, L) === 0 || !keep(s.labels)) continue;
      const parent = level === 0 ? undefined : perLevel[0]!.get(parentKey(s.labels, c.by));
      const windows: RateWindow[] = axis.windows.map((w) => {
        const n = range(s.n, L - w, L);
        const k = range(s.k, L - w, L);
        const r = reference(ref, s, parent, peerDim ? peers?.get(peerKey(s.labels, dims, peerDim)) : undefined, w, L, level > 0, c.fallback_peers !== undefined);
        return { n, k, pRef: r.pRef, nRef: r.nRef };
      });
      if (windows.every((w) => !Number.isFinite(w.pRef))) {
        if (level === 0) without++;
        continue;
      }
      if (level === 0) judged++;
      const t = testWindows(windows, axis.windows, c);
      if (!t) continue;
      const e = t.evidence;
      tested.push({
        level,
        labels: s.labels,
        parent: parentKey(s.labels, c.by),
        scope: scopeOf(s.labels, dims, c.by),
        ...t,
        value: e.pRef > 0 ? e.rate / e.pRef : e.rate / Math.max(e.p0, 1e-6),
        details: { rate: e.rate, reference_rate: e.pRef, requests: e.n, bad: e.k, window_minutes: axis.windows[e.window]! },
      });
    }
  });
  ctx.note?.({ judged, without_reference: without });
  return decide(tested, c.fdr);
}

/** The reference of one window: own past (shrunk toward the parent for a child), or the peers. */
function reference(ref: ResolvedReference, s: Sums, parent: Sums | undefined, peers: Sums | undefined, w: number, L: number, child: boolean, fallback: boolean): { pRef: number; nRef: number } {
  const fromPeers = () => {
    if (!peers) return { pRef: NaN, nRef: 0 };
    const n = range(peers.n, L - w, L) - range(s.n, L - w, L);
    const k = range(peers.k, L - w, L) - range(s.k, L - w, L);
    return n >= ref.minCount ? { pRef: k / n, nRef: n } : { pRef: NaN, nRef: 0 };
  };
  if (ref.kind === 'peers') return fromPeers();
  const a = L - w - ref.bins;
  const b = L - w;
  const nRef = range(s.n, a, b);
  const kRef = range(s.k, a, b);
  if (child && parent) {
    const nP = range(parent.n, a, b);
    if (nP < ref.minCount) return { pRef: NaN, nRef: 0 };
    const pP = range(parent.k, a, b) / nP;
    return { pRef: (kRef + SHRINK_REQUESTS * pP) / (nRef + SHRINK_REQUESTS), nRef: nRef + SHRINK_REQUESTS };
  }
  if (nRef >= ref.minCount) return { pRef: kRef / nRef, nRef };
  return fallback ? fromPeers() : { pRef: NaN, nRef: 0 };
}
