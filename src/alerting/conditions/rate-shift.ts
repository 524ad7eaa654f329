/**
 * rate_shift: the share of bad requests (errors, timeouts, shed load, empty / refused / malformed
 * results) rose in a slice, judged by sequential evidence against the slice's normal rate.
 *
 * Normal is, by default, the slice's own past: the `reference.window` before the change point
 * tried. A child slice (a tenant, an entry or a replica of a model version, from `localize`) has a
 * thin past, so its reference is shrunk toward its parent's over the same minutes with 100
 * pseudo-requests: (k_ref + 100·p_parent) / (n_ref + 100). Worked: a tenant with 0 errors in its
 * last 144 requests, whose model version fails 0.5 % → (0 + 0.5) / 244 = 0.2 %, with a Wilson upper
 * bound on 244 requests of 1.3 %. The pseudo-requests are at most what its siblings sent
 * (`shrinkWeight`): a child that is all of its parent is judged as the parent is. With
 * `reference.peers`, normal is the pooled rate of the slices that differ only in that dimension at
 * the same time; with `fallback_peers`, a slice whose past is too thin (a new canary) is compared
 * with those peers instead, and one with a past has it pooled with the past of each busier peer
 * whose rate agrees with its own (`pooled`).
 *
 * Each window's evidence is tested against "rate ≤ tolerance × that reference" given the window's
 * and the reference's counts (`ratioMixtureLogLR` in analysis/sequential.ts: the reference's own
 * uncertainty is in the test, where a thin reference used to be replaced by tolerance × its upper
 * bound); the per-minute checks (persistence, hold, spread) judge against tolerance × that bound,
 * as before. The best window's p-value goes through Benjamini–Hochberg with every
 * other slice of the evaluation, and localisation reports the most general slice that explains it.
 * The value is the rate over the best window divided by the reference rate.
 */
import type { RateWindow } from '../../analysis/index.ts';
import { MAX_BUCKETS } from '../../schema/index.ts';
import type { QueryRow } from '../../schema/index.ts';
import type { Labels } from '../labels.ts';
import { durationMs } from '../rule-schema.ts';
import type { RateShiftCondition, RateSignal } from '../rule-schema.ts';
import { MINUTE_MS } from '../series.ts';
import type { Product, SliceSeries } from '../series.ts';
import { measure, num } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';
import {
  LIKENESS_HISTORY_MS,
  shrinkWeight,
  SPREAD_STEP_MS,
  axisFor,
  baselinePhi,
  confirmSpread,
  decide,
  held,
  holdFiring,
  holdMinutes,
  levelsOf,
  observation,
  parentKey,
  peerKey,
  resolveReference,
  scopeOf,
  seriesSpanMs,
  shareFilter,
  siblingsChanged,
  sliceFilters,
  stepBins,
  testWindows,
  referenceAnchor,
  usualDistance,
} from './shift.ts';
import type { Axis, ResolvedReference, Tested } from './shift.ts';

/** Every named signal's rates and denominators, read in one query per level. */
export const COUNT_MEASURES = [
  'count',
  'error_rate',
  'timeout_rate',
  'rejected_rate',
  'rate_limited_rate',
  'empty_rate',
  'n(empty)',
  'refused_rate',
  'n(refused)',
  'format_error_rate',
  'n(format_ok)',
] as const;

/** The bad requests of a minute, as rate × denominator, stored as counts by the series. */
const product = (rate: string, weight: string): Product => ({ name: `${rate}*${weight}`, rate, weight });
const NAMED_PRODUCTS = [
  product('error_rate', 'count'),
  product('timeout_rate', 'count'),
  product('rejected_rate', 'count'),
  product('rate_limited_rate', 'count'),
  product('empty_rate', 'n(empty)'),
  product('refused_rate', 'n(refused)'),
  product('format_error_rate', 'n(format_ok)'),
];

/** What a signal reads: the measures and products of its series, and which sum to k and to n. */
export function signalSeries(signal: RateSignal): { measures: readonly string[]; products: readonly Product[]; k: string[]; n: string } {
  if (typeof signal !== 'string') {
    const rate = `below_rate(${signal.below.field}, ${signal.below.value})`;
    const n = `n(${signal.below.field})`;
    const p = product(rate, n);
    return { measures: [rate, n], products: [p], k: [p.name], n };
  }
  const k = (...rates: string[]) => rates.map((r) => NAMED_PRODUCTS.find((p) => p.rate === r)!.name);
  const named = { measures: COUNT_MEASURES, products: NAMED_PRODUCTS };
  switch (signal) {
    case 'error':
      return { ...named, k: k('error_rate'), n: 'count' };
    case 'timeout':
      return { ...named, k: k('timeout_rate'), n: 'count' };
    case 'errors':
      return { ...named, k: k('error_rate', 'timeout_rate'), n: 'count' };
    case 'rejected':
      return { ...named, k: k('rejected_rate'), n: 'count' };
    case 'rate_limited':
      return { ...named, k: k('rate_limited_rate'), n: 'count' };
    case 'shed':
      return { ...named, k: k('rejected_rate', 'rate_limited_rate'), n: 'count' };
    case 'empty':
      return { ...named, k: k('empty_rate'), n: 'n(empty)' };
    case 'refused':
      return { ...named, k: k('refused_rate'), n: 'n(refused)' };
    case 'format_error':
      return { ...named, k: k('format_error_rate'), n: 'n(format_ok)' };
  }
}

/** A slice's requests and bad requests over minute bins [a, b) of the axis. */
interface Counts {
  labels: Labels;
  n(a: number, b: number): number;
  k(a: number, b: number): number;
  /** Requests and bad ones over [fromMs, toMs), which may begin before the axis (a level-0 slice's history). */
  over(fromMs: number, toMs: number): { n: number; k: number };
}

function counts(series: ReadonlyMap<string, SliceSeries>, axis: Axis, sig: ReturnType<typeof signalSeries>): Map<string, Counts> {
  const ms = (j: number) => axis.firstMs + Math.max(0, j) * MINUTE_MS;
  const out = new Map<string, Counts>();
  for (const [key, s] of series) {
    const n = s.sumOf(sig.n);
    const ks = sig.k.map((name) => s.sumOf(name));
    const kOver = (fromMs: number, toMs: number) => {
      let t = 0;
      for (const k of ks) t += k(fromMs, toMs);
      return t;
    };
    out.set(key, {
      labels: s.labels,
      n: (a, b) => n(ms(a), ms(b)),
      k: (a, b) => kOver(ms(a), ms(b)),
      over: (fromMs, toMs) => ({ n: n(fromMs, toMs), k: kOver(fromMs, toMs) }),
    });
  }
  return out;
}

/** The pooled slices of each peer group (same key without `dim`), as one Counts. */
/** The slices of each peer group (the slices that differ only in `dim`), by peer key. */
function peerGroups(all: Map<string, Counts>, dims: readonly string[], dim: string): Map<string, Counts[]> {
  const groups = new Map<string, Counts[]>();
  for (const c of all.values()) {
    const key = peerKey(c.labels, dims, dim);
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  return groups;
}

/** A peer group's slices summed (over the axis: the history is read per member). */
const total = (g: Counts[]): Omit<Counts, 'over'> => ({
  labels: g[0]!.labels,
  n: (a, b) => g.reduce((t, c) => t + c.n(a, b), 0),
  k: (a, b) => g.reduce((t, c) => t + c.k(a, b), 0),
});

export async function evalRateShift(c: RateShiftCondition, ctx: ConditionContext): Promise<Observation[]> {
  const ref = resolveReference(c);
  const horizonMs = durationMs(c.horizon);
  const axis = axisFor(ctx.nowMs, horizonMs, ref.bins * MINUTE_MS);
  const levels = levelsOf(c);
  const hold = holdMinutes(c.hold);
  const sig = signalSeries(c.signal);
  const perLevel: Map<string, Counts>[] = [];
  for (const [level, dims] of levels.entries()) {
    const spanMs = seriesSpanMs(axis, level, c.fallback_peers !== undefined);
    const series = await ctx.series.counts({ kind: 'counts', filters: c.filters, by: dims, measures: sig.measures, products: sig.products }, ctx.nowMs, spanMs);
    perLevel.push(counts(series, axis, sig));
  }
  const tested: Tested[] = [];
  let judged = 0;
  let without = 0;
  const L = axis.bins;
  const H = axis.windows[axis.windows.length - 1]!;
  // Overdispersion per slice from its baseline minutes (before the longest window), children at least their parent's.
  const baseFrom = ref.kind === 'self' ? L - H - ref.bins : L - H;
  const phiOf = (s: Counts, parent?: { phi: number; n: number }) =>
    baselinePhi(
      (j) => ({ n: s.n(j, j + 1), k: s.k(j, j + 1) }),
      baseFrom,
      L - H,
      parent,
      (a, b) => ({ n: s.n(a, b), k: s.k(a, b) }),
    );
  const parentPhis = new Map([...perLevel[0]!].map(([key, s]) => [key, { phi: phiOf(s), n: s.n(baseFrom, L - H) }]));
  const keep = shareFilter(new Map([...perLevel[0]!].map(([k, s]) => [k, { labels: s.labels, n: s.n(L - H, L) }])), c.by, c.share);
  perLevel.forEach((slices, level) => {
    const dims = levels[level]!;
    const peerDim = ref.kind === 'peers' ? ref.dim : c.fallback_peers;
    const groups = peerDim ? peerGroups(slices, dims, peerDim) : undefined;
    const totals = groups && new Map([...groups].map(([key, g]) => [key, total(g)]));
    for (const s of slices.values()) {
      if (s.n(0, L) === 0 || !keep(s.labels)) continue;
      const parent = level === 0 ? undefined : perLevel[0]!.get(parentKey(s.labels, c.by));
      const key = peerDim ? peerKey(s.labels, dims, peerDim) : undefined;
      const peers = key === undefined ? undefined : totals?.get(key);
      const siblings = key === undefined || !c.fallback_peers ? undefined : groups?.get(key)?.filter((x) => x !== s);
      const windows: RateWindow[] = axis.windows.map((w) => {
        const n = s.n(L - w, L);
        const k = s.k(L - w, L);
        const r = reference(ref, s, parent, peers, siblings, w, L, level > 0, c.fallback_peers !== undefined, axis);
        return { n, k, pRef: r.pRef, nRef: r.nRef };
      });
      if (windows.every((w) => !Number.isFinite(w.pRef))) {
        if (level === 0) without++;
        continue;
      }
      if (level === 0) judged++;
      const phi = level === 0 ? parentPhis.get(parentKey(s.labels, c.by))!.phi : phiOf(s, parentPhis.get(parentKey(s.labels, c.by)));
      const minute = (back: number) => ({ n: s.n(L - 1 - back, L - back), k: s.k(L - 1 - back, L - back) });
      const t = testWindows(windows, axis.windows, c, minute, phi);
      if (!t || (hold > 1 && !ctx.active?.(s.labels) && !held(t.evidence, minute, hold, H))) continue;
      const e = t.evidence;
      const w = axis.windows[e.window]!;
      const shared =
        parent !== undefined && ref.kind === 'self'
          ? siblingsChanged(
              { n: parent.n(L - w, L), k: parent.k(L - w, L), nRef: parent.n(L - w - ref.bins, L - w), kRef: parent.k(L - w - ref.bins, L - w) },
              { n: s.n(L - w, L), k: s.k(L - w, L), nRef: s.n(L - w - ref.bins, L - w), kRef: s.k(L - w - ref.bins, L - w) },
              c,
            )
          : false;
      tested.push({
        level,
        labels: s.labels,
        parent: parentKey(s.labels, c.by),
        scope: scopeOf(s.labels, dims, c.by),
        shared,
        ...t,
        phi,
        dims,
        value: e.pRef > 0 ? e.rate / e.pRef : e.rate / Math.max(e.p0, 1e-6),
        details: { rate: e.rate, reference_rate: e.pRef, requests: e.n, bad: e.k, window_minutes: axis.windows[e.window]!, dispersion: phi },
      });
    }
  });
  ctx.note?.({ judged, without_reference: without });
  const kept = await confirmSpread(decide(tested, c.fdr), axis, async (t, fromMs, toMs) => {
    const filters = sliceFilters(c.filters, t.labels, t.dims);
    if (!filters) return null;
    const rows = await ctx.reads.aggregate({
      fromMs,
      toMs,
      filters,
      groupBy: [],
      stepMs: SPREAD_STEP_MS,
      measures: sig.measures.map(measure),
      includeProbes: false,
      limit: MAX_BUCKETS,
    });
    const value = (row: QueryRow, name: string) => num(row[name]) ?? 0;
    return stepBins(rows, fromMs, toMs, SPREAD_STEP_MS, (row) => ({
      n: value(row, sig.n),
      k: sig.products.filter((p) => sig.k.includes(p.name)).reduce((t, p) => t + value(row, p.rate) * value(row, p.weight), 0),
    }));
  });
  return holdFiring(kept, tested, ctx.firing).map(observation);
}

/** The reference of one window: own past (shrunk toward the parent for a child), or the peers. */
function reference(
  ref: ResolvedReference,
  s: Counts,
  parent: Counts | undefined,
  peers: Omit<Counts, 'over'> | undefined,
  siblings: Counts[] | undefined,
  w: number,
  L: number,
  child: boolean,
  fallback: boolean,
  axis: Axis,
): { pRef: number; nRef: number } {
  const fromPeers = () => {
    if (!peers) return { pRef: NaN, nRef: 0 };
    const n = peers.n(L - w, L) - s.n(L - w, L);
    const k = peers.k(L - w, L) - s.k(L - w, L);
    return n >= ref.minCount ? { pRef: k / n, nRef: n } : { pRef: NaN, nRef: 0 };
  };
  if (ref.kind === 'peers') {
    const now = fromPeers();
    if (ref.bins === 0 || !peers) return now;
    // Its usual distance from them, over `reference.window` before the window's reference anchor.
    const anchor = referenceAnchor(w, L - ref.bins);
    const a = L - anchor - ref.bins;
    const b = L - anchor;
    const nPast = peers.n(a, b) - s.n(a, b);
    return nPast >= ref.minCount ? usualDistance(now, { n: s.n(a, b), k: s.k(a, b) }, (peers.k(a, b) - s.k(a, b)) / nPast) : now;
  }
  const a = L - w - ref.bins;
  const b = L - w;
  const nRef = s.n(a, b);
  const kRef = s.k(a, b);
  if (child && parent) {
    const nP = parent.n(a, b);
    if (nP < ref.minCount) return { pRef: NaN, nRef: 0 };
    const pP = parent.k(a, b) / nP;
    const m = shrinkWeight(nP, nRef);
    return { pRef: (kRef + m * pP) / (nRef + m), nRef: nRef + m };
  }
  if (nRef >= ref.minCount) {
    if (!siblings) return { pRef: kRef / nRef, nRef };
    // Alike or not is read over LIKENESS_HISTORY_MS before the window, the same minutes on both sides.
    const toMs = axis.firstMs + b * MINUTE_MS;
    const fromMs = axis.firstMs + L * MINUTE_MS - LIKENESS_HISTORY_MS;
    return pooled(
      kRef,
      nRef,
      siblings.map((x) => ({ k: x.k(a, b), n: x.n(a, b), past: x.over(fromMs, toMs) })),
      s.over(fromMs, toMs),
    );
  }
  return fallback ? fromPeers() : { pRef: NaN, nRef: 0 };
}

/** |z| under which a slice's past and a peer's past over the same minutes are taken as one rate. */
export const POOL_Z = 1.96;

/**
 * A slice's own past, pooled with the past of each peer (another version of its model, with
 * `fallback_peers: model_version`) over the same minutes that served more requests and whose rate
 * agrees with its own (a two-proportion z-test does not tell them apart at 5 %, two-sided). A
 * canary's hour is a few hundred requests, whose Wilson bound lets a rate triple before a window is
 * raised; beside it, the main version served thousands at the same rate (the simulator's seed 916:
 * 4 errors in 550 → bound 1.6 %, tolerated 2.4 %; pooled with 50 in 7,800 → 0.8 %, tolerated
 * 1.2 %). A peer whose past differs — a pinned tenant's other inputs, a main version mid-incident —
 * is left out, and a thinner peer adds little and is left out too.
 * Worked: 4 of 550 beside 50 of 7,800 (z = 0.24) and 15 of 515 (thinner) → 54 of 8,350 (0.65 %);
 * 12 of 550 beside 50 of 7,800 → z = 4.1: its own 2.2 %.
 */
export function pooled(
  k: number,
  n: number,
  peers: readonly { k: number; n: number; past?: { k: number; n: number } }[],
  past?: { k: number; n: number },
): { pRef: number; nRef: number } {
  let kAll = k;
  let nAll = n;
  for (const x of peers) {
    if (!(x.n > n)) continue;
    // The test reads the longer past when there is one (both sides over the same minutes).
    const [a, o] = past && x.past ? [past, x.past] : [{ k, n }, x];
    const p = (a.k + o.k) / (a.n + o.n);
    const se = Math.sqrt(p * (1 - p) * (1 / a.n + 1 / o.n));
    if (!(se > 0) || Math.abs(a.k / a.n - o.k / o.n) / se >= POOL_Z) continue;
    kAll += x.k;
    nAll += x.n;
  }
  return { pRef: kAll / nAll, nRef: nAll };
}
