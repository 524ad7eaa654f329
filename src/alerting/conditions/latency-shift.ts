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
import { MAX_BUCKETS } from '../../schema/index.ts';
import type { NumericField } from '../../schema/index.ts';
import { durationMs } from '../rule-schema.ts';
import type { LatencyShiftCondition } from '../rule-schema.ts';
import { MINUTE_MS } from '../series.ts';
import type { SliceSeries } from '../series.ts';
import { ownReferenceBucket, peersReferenceBucket, quantileBucket, shrunkReferenceBucket } from './histo.ts';
import type { ReferenceBucket } from './histo.ts';
import { FAR_TAIL_FACTOR, REFERENCE_GROWTH, binMs, countRange, farPhi, farReference, pastOf, rangeHisto, referenceOf } from './latency-slices.ts';
import type { Hist, ParentPast } from './latency-slices.ts';
import { measure, num } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';
import {
  SPREAD_STEP_MS,
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
import type { Tested } from './shift.ts';

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
          // φ divides every window's log LR alike: whether a window qualifies, and which is best,
          // does not depend on it, so the far minutes' φ is read only for a slice that has one.
          const farTest = (phiFar: number) => testWindows(farWindows, axis.windows, c, judge(farThresholds), phiFar);
          const tf = pFar === false || !farTest(1) ? null : farTest(farPhi(h, farThresholds, baseFrom, axis.bins - H));
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
