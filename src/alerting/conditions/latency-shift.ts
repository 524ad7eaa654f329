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
import { binomialUpperTail } from '../../analysis/index.ts';
import type { RateWindow } from '../../analysis/index.ts';
import { MAX_BUCKETS } from '../../schema/index.ts';
import type { NumericField } from '../../schema/index.ts';
import type { Labels } from '../labels.ts';
import { durationMs } from '../rule-schema.ts';
import type { LatencyShiftCondition } from '../rule-schema.ts';
import { MINUTE_MS } from '../series.ts';
import type { SliceSeries } from '../series.ts';
import { emptyHisto, histoTotal, ownReferenceBucket, peersReferenceBucket, quantileBucket, shrunkReferenceBucket } from './histo.ts';
import type { Histo, ReferenceBucket } from './histo.ts';
import { measure, num } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';
import {
  SPREAD_STEP_MS,
  LIKENESS_HISTORY_MS,
  UNLIKE_PEERS,
  axisFor,
  baselinePhi,
  confirmSpread,
  decide,
  held,
  holdFiring,
  holdMinutes,
  levelsOf,
  loadBurst,
  observation,
  parentKey,
  peerKey,
  resolveReference,
  scopeOf,
  seriesSpanMs,
  shareFilter,
  shrinkWeight,
  siblingsChanged,
  sliceFilters,
  stepBins,
  testWindows,
  referenceAnchor,
  usualDistance,
} from './shift.ts';
import type { Axis, ResolvedReference, Tested } from './shift.ts';

/** A slice's bucket counts over the axis' minute bins; `sign` −1 mirrors the indices for direction: down. */
interface Hist {
  labels: Labels;
  series: SliceSeries;
  axis: Axis;
  sign: 1 | -1;
}

const binMs = (axis: Axis, j: number) => axis.firstMs + Math.max(0, j) * MINUTE_MS;

/** Rows per bucket index over bins [a, b), as a new histogram (ascending indices, zeros left out). */
function rangeHisto(h: Hist, a: number, b: number): Histo {
  const out = emptyHisto();
  const from = binMs(h.axis, a);
  const to = binMs(h.axis, b);
  if (to <= from) return out;
  const indices = h.series.indices();
  const count = h.series.countsOver(from, to);
  for (let x = 0; x < indices.length; x++) {
    const v = count(x);
    if (v !== 0) {
      out.keys.push(h.sign * indices[x]! + 0); // +0, not −0 (a Map key would be +0)
      out.vals.push(v);
    }
  }
  return out;
}

/**
 * Rows over bins [a, b), and those above a threshold index (in the mirrored space), without building
 * a histogram: what every window, every minute of the persistence and dispersion checks, and the
 * siblings ask for.
 */
function countRange(h: Hist, a: number, b: number, threshold: number): { n: number; k: number } {
  return countBetween(h, binMs(h.axis, a), binMs(h.axis, b), threshold);
}

/** `countRange` over [from, to) in milliseconds: a range that may begin before the axis. */
function countBetween(h: Hist, from: number, to: number, threshold: number): { n: number; k: number } {
  if (to <= from) return { n: 0, k: 0 };
  const n = h.series.total(from, to);
  let k = 0;
  if (threshold !== Infinity && n > 0) {
    // Only the tail: the indices are ascending, so walk in from the end the threshold looks at.
    const indices = h.series.indices();
    const count = h.series.countsOver(from, to);
    if (h.sign === 1) for (let x = indices.length - 1; x >= 0 && indices[x]! > threshold; x--) k += count(x);
    else for (let x = 0; x < indices.length && -indices[x]! > threshold; x++) k += count(x);
  }
  return { n, k };
}

export async function evalLatencyShift(c: LatencyShiftCondition, ctx: ConditionContext): Promise<Observation[]> {
  const fields: NumericField[] = Array.isArray(c.field) ? c.field : [c.field];
  // Up: the share above the reference's q-quantile; down (a confidence that drops): the share below
  // its (1 − q)-quantile, counted on mirrored bucket indices so the same code serves both.
  const sign = c.direction === 'down' ? -1 : 1;
  const buckets: { width: number } | { perDecade: number } = c.bins
    ? 'width' in c.bins
      ? { width: c.bins.width }
      : { perDecade: c.bins.per_decade }
    : { perDecade: c.buckets_per_decade };
  // A bucket's value: its upper bound (log) or its middle (linear); the slowdown is current / reference
  // up, reference / current down.
  const valueOf0 = (i: number) => ('width' in buckets ? (i + 0.5) * buckets.width : 10 ** (i / buckets.perDecade));
  const valueOf = (i: number) => (sign === 1 ? valueOf0(i) : 1 / Math.max(1e-9, valueOf0(i)));
  // The value that separates "above" from the rest for a threshold index (mirrored when down), as a
  // below_rate cut (rows < cut): up, above = n − below(upper bound of the bucket); down, the rows
  // below the threshold bucket's lower bound.
  const cutOf = (th: number) => {
    const i = sign * th;
    const lower = (j: number) => ('width' in buckets ? j * buckets.width : 10 ** ((j - 1) / buckets.perDecade));
    return sign === 1 ? lower(i + 1) : lower(i);
  };
  const cuts = new Map<Tested, { field: NumericField; cut: number }>();
  const ref = resolveReference(c);
  // The far tail, judged beside the threshold: up, on log buckets, against the slice's own past.
  const far = sign === 1 && 'perDecade' in buckets && ref.kind === 'self' ? Math.round(buckets.perDecade * Math.log10(FAR_TAIL_FACTOR)) : 0;
  const axis = axisFor(ctx.nowMs, durationMs(c.horizon), ref.bins * MINUTE_MS);
  const levels = levelsOf(c);
  const hold = holdMinutes(c.hold);
  const burstHold = holdMinutes(c.burst_hold);
  // A parent's past, read once per window for all of its children.
  const parentPast: ParentPast = new Map();
  const tested: Tested[] = [];
  let judged = 0;
  let without = 0;
  for (const field of fields) {
    const perLevel: Map<string, Hist>[] = [];
    for (const [level, dims] of levels.entries()) {
      // The rule's own slices also keep the history a thin one's reference reaches back to (REFERENCE_GROWTH).
      const growth = ref.kind === 'self' ? (axis.bins + (REFERENCE_GROWTH - 1) * ref.bins) * MINUTE_MS : 0;
      const spanMs = seriesSpanMs(axis, level, c.fallback_peers !== undefined, growth);
      const series = await ctx.series.buckets({ kind: 'buckets', filters: c.filters, by: dims, column: field, buckets }, ctx.nowMs, spanMs);
      const m = new Map<string, Hist>();
      for (const [k, s] of series) m.set(k, { labels: s.labels, series: s, axis, sign });
      perLevel.push(m);
    }
    const H = axis.windows[axis.windows.length - 1]!;
    const parentPhi = new Map<string, { phi: number; n: number }>();
    // Which threshold each parent was judged at (true: the far tail): its children are judged there too.
    const parentFar = new Map<string, boolean>();
    const keep = shareFilter(
      new Map([...perLevel[0]!].map(([k, h]) => [k, { labels: h.labels, n: countRange(h, axis.bins - H, axis.bins, Infinity).n }])),
      c.by,
      c.share,
    );
    perLevel.forEach((slices, level) => {
      const dims = levels[level]!;
      const peerDim = ref.kind === 'peers' ? ref.dim : c.fallback_peers;
      const groups = new Map<string, SliceSeries[]>();
      if (peerDim)
        for (const h of slices.values()) {
          const k = peerKey(h.labels, dims, peerDim);
          const g = groups.get(k);
          if (g) g.push(h.series);
          else groups.set(k, [h.series]);
        }
      for (const h of slices.values()) {
        if (!keep(h.labels)) continue;
        const parent = level === 0 ? undefined : perLevel[0]!.get(parentKey(h.labels, c.by));
        const peers = peerDim ? (groups.get(peerKey(h.labels, dims, peerDim)) ?? []) : [];
        const windows: RateWindow[] = [];
        const thresholds: number[] = [];
        const farWindows: RateWindow[] = [];
        const farThresholds: number[] = [];
        const quantiles: number[] = [];
        // No request in the horizon: nothing to judge.
        if (countRange(h, axis.bins - H, axis.bins, Infinity).n === 0) continue;
        // A window's own reference ends at its `referenceAnchor` (short windows share one); against
        // peers, the slice's usual distance from them is read over the same minutes.
        const qbs = new Map<number, ReferenceBucket | null>();
        const farRefs = new Map<number, { n: number; k: number }>();
        const usual = new Map<number, { own: { n: number; k: number }; past: number } | null>();
        const usualAt = (anchor: number) => {
          if (!usual.has(anchor)) {
            const a = axis.bins - anchor - ref.bins;
            const b = axis.bins - anchor;
            const qb = peersReferenceBucket(peers, h.series, sign, binMs(axis, a), binMs(axis, b), c.quantile, ref.minCount);
            usual.set(anchor, qb && { own: countRange(h, a, b, qb.index), past: qb.above / qb.total });
          }
          return usual.get(anchor)!;
        };
        for (const w of axis.windows) {
          const shared = referenceAnchor(w, H);
          const anchor = ref.kind === 'self' ? shared : w;
          if (!qbs.has(anchor)) {
            // Against its own past, the bucket is read straight from the slice's columns (the same
            // numbers as from its histogram): a child's shrunk toward its parent's past, another's
            // when it has enough past (else its peers', in referenceHist).
            const a = binMs(axis, axis.bins - anchor - (ref.kind === 'self' ? ref.bins : 0));
            const b = binMs(axis, axis.bins - anchor);
            const own = b <= a ? 0 : h.series.total(a, b);
            if (ref.kind === 'self' && level > 0 && parent) {
              const { p, pt } = pastOf(parentPast, parent, anchor, axis.bins, ref.bins);
              qbs.set(anchor, pt < ref.minCount ? null : shrunkReferenceBucket(h.series, sign, a, b, p, pt, shrinkWeight(pt, own), c.quantile, far));
            } else if (ref.kind === 'self' && own >= ref.minCount) qbs.set(anchor, ownReferenceBucket(h.series, sign, a, b, c.quantile, far));
            else qbs.set(anchor, referenceOf(ref, h, peers, anchor, axis.bins, c.fallback_peers !== undefined, c.quantile, far));
          }
          const qb = qbs.get(anchor)!;
          if (far > 0 && qb && !farRefs.has(anchor)) farRefs.set(anchor, farReference(h, qb, far, axis.firstMs, binMs(axis, axis.bins - anchor)));
          thresholds.push(qb?.index ?? NaN);
          quantiles.push(qb?.q ?? NaN);
          farThresholds.push(qb && far > 0 ? qb.index + far : NaN);
          if (!qb) {
            windows.push({ n: 0, k: 0, pRef: NaN, nRef: 0 });
            farWindows.push({ n: 0, k: 0, pRef: NaN, nRef: 0 });
            continue;
          }
          const { n, k } = countRange(h, axis.bins - w, axis.bins, qb.index);
          const now = { pRef: qb.above / qb.total, nRef: qb.total };
          const u = ref.kind === 'peers' && ref.bins > 0 ? usualAt(shared) : null;
          windows.push({ n, k, ...(u ? usualDistance(now, u.own, u.past) : now) });
          if (far > 0) {
            const fr = farRefs.get(anchor)!;
            farWindows.push({ n, k: countRange(h, axis.bins - w, axis.bins, qb.index + far).k, pRef: fr.k / fr.n, nRef: fr.n });
          }
        }
        if (windows.every((w) => !Number.isFinite(w.pRef))) {
          if (level === 0) without++;
          continue;
        }
        if (level === 0) judged++;
        const minuteAbove = (j: number, threshold: number) => countRange(h, j, j + 1, threshold);
        // Overdispersion of the exceedances over the baseline minutes, against the longest window's threshold.
        const pKey = `${field}\u0001${parentKey(h.labels, c.by)}`;
        const lastThreshold = thresholds.findLast((x) => Number.isFinite(x));
        const baseFrom = ref.kind === 'self' ? axis.bins - H - ref.bins : 0;
        const phi =
          lastThreshold === undefined || ref.kind !== 'self'
            ? 1
            : baselinePhi(
                (j) => minuteAbove(j, lastThreshold),
                baseFrom,
                axis.bins - H,
                level === 0 ? undefined : parentPhi.get(pKey),
                (a, b) => countRange(h, a, b, lastThreshold),
              );
        if (level === 0) parentPhi.set(pKey, { phi, n: countRange(h, baseFrom, axis.bins - H, Infinity).n });
        const judge = (ths: readonly number[]) => (back: number, wi: number) => minuteAbove(axis.bins - 1 - back, ths[wi]!);
        let t = testWindows(windows, axis.windows, c, judge(thresholds), phi);
        let at = thresholds;
        if (far > 0) {
          // Two thresholds judged: each p-value doubled (Bonferroni), the smaller kept — or the one the parent was judged at.
          const pFar = parentFar.get(pKey);
          const tf = pFar === false ? null : testWindows(farWindows, axis.windows, c, judge(farThresholds), farPhi(h, farThresholds, baseFrom, axis.bins - H));
          if (tf && (pFar === true || !t || tf.pValue < t.pValue)) {
            t = tf;
            at = farThresholds;
          } else if (pFar === true) t = null;
          if (t) t = { ...t, pValue: Math.min(1, 2 * t.pValue) };
          if (level === 0 && t) parentFar.set(pKey, at === farThresholds);
        }
        const minute = judge(at);
        if (!t) continue;
        const labels = fields.length > 1 ? { ...h.labels, field } : h.labels;
        const w0 = axis.windows[t.evidence.window]!;
        // A rise must hold before it is raised (pending), and a burst's rise `burst_hold` long; once
        // raised, it stays as any change does.
        if (
          !ctx.active?.(labels) &&
          ((hold > 1 && !held(t.evidence, minute, hold, H)) ||
            (burstHold > 1 &&
              ref.kind === 'self' &&
              loadBurst(
                countRange(h, axis.bins - w0, axis.bins, Infinity).n,
                countRange(h, axis.bins - w0 - ref.bins, axis.bins - w0, Infinity).n,
                w0,
                ref.bins,
              ) &&
              !held(t.evidence, minute, burstHold, H)))
        )
          continue;
        const e = t.evidence;
        // The current q-quantile over the reference's, on the best window only.
        const cur = rangeHisto(h, axis.bins - axis.windows[e.window]!, axis.bins);
        const cq = quantileBucket(cur, quantiles[e.window]!);
        const ratio = cq ? valueOf(sign * cq.index) / valueOf(sign * thresholds[e.window]!) : NaN;
        if (!(ratio >= c.min_slowdown)) continue;
        let shared = false;
        if (parent && ref.kind === 'self') {
          const w = axis.windows[e.window]!;
          const th = at[e.window]!;
          const above = (x: Hist, a: number, b: number) => countRange(x, a, b, th);
          const pc = above(parent, axis.bins - w, axis.bins);
          const pr = above(parent, axis.bins - w - ref.bins, axis.bins - w);
          const cc = above(h, axis.bins - w, axis.bins);
          const cr = above(h, axis.bins - w - ref.bins, axis.bins - w);
          shared = siblingsChanged({ n: pc.n, k: pc.k, nRef: pr.n, kRef: pr.k }, { n: cc.n, k: cc.k, nRef: cr.n, kRef: cr.k }, c);
        }
        const tt: Tested = {
          shared,
          level,
          labels,
          parent: `${field}\u0001${parentKey(h.labels, c.by)}`,
          scope: scopeOf(h.labels, dims, c.by),
          ...t,
          phi,
          dims,
          value: ratio,
          details: {
            // Above the old quantile (what the annotations say), whichever threshold judged it.
            share_above: windows[e.window]!.k / Math.max(1, e.n),
            reference_share: windows[e.window]!.pRef,
            requests: e.n,
            above: windows[e.window]!.k,
            // 1: judged above the old quantile; FAR_TAIL_FACTOR: above that many times it (the far tail).
            threshold_factor: at === thresholds ? 1 : FAR_TAIL_FACTOR,
            window_minutes: axis.windows[e.window]!,
            quantile: quantiles[e.window]!,
          },
        };
        tested.push(tt);
        cuts.set(tt, { field, cut: cutOf(at[e.window]!) });
      }
    });
  }
  ctx.note?.({ judged, without_reference: without });
  const kept = await confirmSpread(decide(tested, c.fdr), axis, async (t, fromMs, toMs) => {
    const filters = sliceFilters(c.filters, t.labels, t.dims);
    const at = cuts.get(t)!;
    if (!filters) return null;
    const below = `below_rate(${at.field}, ${at.cut})`;
    const count = `n(${at.field})`;
    const rows = await ctx.reads.aggregate({
      fromMs,
      toMs,
      filters,
      groupBy: [],
      stepMs: SPREAD_STEP_MS,
      measures: [measure(count), measure(below)],
      includeProbes: false,
      limit: MAX_BUCKETS,
    });
    return stepBins(rows, fromMs, toMs, SPREAD_STEP_MS, (row) => {
      const n = num(row[count]) ?? 0;
      const b = n * (num(row[below]) ?? 0);
      return { n, k: sign === 1 ? n - b : b };
    });
  });
  return holdFiring(kept, tested, ctx.firing).map(observation);
}

/**
 * The far tail: a second threshold FAR_TAIL_FACTOR × the reference's (its log bucket that many
 * buckets higher), judged beside it. A share of requests that got several times slower (a slow
 * dependency, a cold cache) lands far beyond the old quantile, where the past has almost nothing,
 * while the share just above it is padded, for a thin reference, by the tolerance over the upper
 * bound of a q at 1 − 10 / n: seed 1138's query-suggest version, 5.5 requests a minute and 13 % of
 * them 8.6× slower for 39 minutes, judged at 3.6 % (p0 ≈ 9 %) above its P96, was never raised.
 * Judged with the rule's tolerance as the quantile is: without it (tried on the seen seeds
 * 1101–1140), 2 more incidents and 3 more clean-run episodes.
 */
export const FAR_TAIL_FACTOR = 2;

/** The overdispersion of a slice's minutes above the far threshold (that of its longest window), over the baseline [from, to). */
function farPhi(h: Hist, farThresholds: readonly number[], from: number, to: number): number {
  const last = farThresholds.findLast((x) => Number.isFinite(x));
  if (last === undefined) return 1;
  return baselinePhi(
    (j) => countRange(h, j, j + 1, last),
    from,
    to,
    undefined,
    (a, b) => countRange(h, a, b, last),
  );
}

/**
 * The far tail's reference: rows, and rows above the far threshold, of the slice's own past from
 * the axis' start (the horizon and a reference window before it: the span every level's series
 * holds, so a child that is all of its parent is judged as the parent is) — a rare tail's share is
 * measured on all of it, not on the reference window alone (3 of 280 requests in seed 1138's hour:
 * an upper bound of 2.6 %) — or the reference bucket's own when that holds more rows (a new
 * version judged against its peers).
 */
function farReference(h: Hist, qb: ReferenceBucket, far: number, fromMs: number, toMs: number): { n: number; k: number } {
  const long = countBetween(h, fromMs, toMs, qb.index + far);
  return long.n > qb.total ? long : { n: qb.total, k: qb.farAbove ?? 0 };
}

/** A parent's past per window, built once for all of its children. */
type ParentPast = Map<Hist, Map<number, { p: Histo; pt: number }>>;

/** A parent's past before window w, built once for all of its children. */
function pastOf(parentPast: ParentPast, parent: Hist, w: number, L: number, bins: number): { p: Histo; pt: number } {
  let byWindow = parentPast.get(parent);
  if (!byWindow) parentPast.set(parent, (byWindow = new Map()));
  let past = byWindow.get(w);
  if (!past) {
    const p = rangeHisto(parent, L - w - bins, L - w);
    byWindow.set(w, (past = { p, pt: histoTotal(p) }));
  }
  return past;
}

/**
 * The reference bucket of one window, for a slice that is not a child judged against its past: own
 * past, or the pooled peers (a thin or new version's, if its past looked like theirs); null when
 * too thin. A child's own past is thin: it is shrunk toward its parent's past with 100
 * pseudo-requests of the parent's shape (`shrunkReferenceBucket`), as rate_shift shrinks rates (a
 * tenant that is always slower keeps its own level once it has a past; a new one starts from its
 * model version's). `peers`: the slices of h's peer group, h among them.
 */
function referenceOf(
  ref: ResolvedReference,
  h: Hist,
  peers: readonly SliceSeries[],
  w: number,
  L: number,
  fallback: boolean,
  quantile: number,
  far: number,
): ReferenceBucket | null {
  const fromPeers = () => peersReferenceBucket(peers, h.series, h.sign, binMs(h.axis, L - w), binMs(h.axis, L), quantile, ref.minCount, far);
  if (ref.kind === 'peers') return fromPeers();
  const b = binMs(h.axis, L - w);
  // Its own past: the reference window, or for a thin slice without alike peers up to
  // REFERENCE_GROWTH windows back for its min_count (seed 1038's summarizer entry, ~40 requests an
  // hour, ingress 10 ms → 23 s, was judged against nothing). Alike peers come first: thousands of
  // their requests fix a P99 that a thin past's few dozen cannot.
  const own = (windows: number) => {
    for (let g = 1; g <= windows; g++) {
      const a = b - g * ref.bins * MINUTE_MS;
      if (h.series.total(a, b) >= ref.minCount) return ownReferenceBucket(h.series, h.sign, a, b, quantile, far);
    }
    return null;
  };
  const first = own(1);
  if (first || !fallback) return first ?? own(REFERENCE_GROWTH);
  // Too thin a past: the other versions at the same time, if this one looked like them before. A
  // version new in the window has no past to tell; one that served before, however thinly, may have
  // its own speed (a smaller model, another build): when more of its past lay beyond the others'
  // quantile over the same minutes than their share allows (binomial tail < 1 %), their tail is not
  // its reference. Its past: LIKENESS_HISTORY_MS before the window, not the axis' two hours, since a
  // thin version's hour is a dozen requests (seed 995's canary: 2 of 13 above in the hour, 23 of 50
  // in the two before).
  const qb = fromPeers();
  if (!qb) return own(REFERENCE_GROWTH);
  const fromMs = binMs(h.axis, L) - LIKENESS_HISTORY_MS;
  const past = peersReferenceBucket(peers, h.series, h.sign, fromMs, b, quantile, ref.minCount);
  if (!past) return qb;
  const { n, k } = countBetween(h, fromMs, b, past.index);
  if (n === 0) return qb;
  return binomialUpperTail(k, n, past.above / past.total) < UNLIKE_PEERS ? own(REFERENCE_GROWTH) : qb;
}

/** How many reference windows a thin slice's own past may reach back for its `min_count`. */
export const REFERENCE_GROWTH = 3;
