/**
 * What the sequential detectors (rate_shift, latency_shift) share: the minute axis, the windows a
 * change may have started in, the reference a slice is judged against, the false-discovery control
 * across the slices of one evaluation whose change clears the rule's floors, and the localisation
 * that reports the most general slice that explains a change.
 *
 * The windows end at the evaluation time and are 1, 2, 3, 5, 8, 13, 20, 30, 45, 60, 90, 120
 * minutes long (up to the rule's horizon): the maximum of the evidence over them is a CUSUM whose
 * change point is tried at those distances, so a burst is seen in a minute and a tenant sending six
 * requests in five minutes accumulates evidence for as long as the horizon allows.
 */
import {
  MIN_DISPERSION_BAD,
  benjaminiHochberg,
  binomialUpperTail,
  dispersion,
  evidencePValue,
  fisherExact,
  rateShift,
  spreadPValue,
} from '../../analysis/index.ts';
import type { RateShift, RateWindow } from '../../analysis/index.ts';
import { FILTER_KEYS } from '../../schema/index.ts';
import type { FilterKey, Filters, GroupKey, QueryRow } from '../../schema/index.ts';
import { fingerprint } from '../labels.ts';
import type { Labels } from '../labels.ts';
import { durationMs } from '../rule-schema.ts';
import type { LatencyShiftCondition, RateShiftCondition } from '../rule-schema.ts';
import { MINUTE_MS, floorMinute, labelsKey } from '../series.ts';
import type { Observation } from './context.ts';

/** Window lengths tried, in minutes. */
export const WINDOW_MINUTES = [1, 2, 3, 5, 8, 13, 20, 30, 45, 60, 90, 120] as const;

/** The minute axis of one evaluation: `bins` minutes ending with the one that holds nowMs − 1. */
export interface Axis {
  /** Start of the first bin. */
  firstMs: number;
  bins: number;
  /** Window lengths (bins) tried, ascending. */
  windows: number[];
}

export function axisFor(nowMs: number, horizonMs: number, referenceMs: number): Axis {
  const lastMs = floorMinute(nowMs - 1);
  const horizon = Math.max(1, Math.ceil(horizonMs / MINUTE_MS));
  const bins = horizon + Math.ceil(referenceMs / MINUTE_MS);
  return { firstMs: lastMs - (bins - 1) * MINUTE_MS, bins, windows: WINDOW_MINUTES.filter((w) => w <= horizon) };
}

/** The reference part of a rule, resolved: own past of `bins` minutes, or peers in one dimension (and `bins` of the slice's usual distance from them). */
export type ResolvedReference = { kind: 'self'; bins: number; minCount: number } | { kind: 'peers'; dim: GroupKey; bins: number; minCount: number };

/** Minutes of past a rule's reference reads: its own past, or (peers) its usual distance from them. */
export function resolveReference(c: RateShiftCondition | LatencyShiftCondition): ResolvedReference {
  const r = c.reference;
  const bins = Math.ceil(durationMs(r.window) / MINUTE_MS);
  return 'peers' in r ? { kind: 'peers', dim: r.peers, bins, minCount: r.min_count } : { kind: 'self', bins, minCount: r.min_count };
}

/** A slice whose past lies beyond its peers' this improbably (binomial tail) is not like them. */
export const UNLIKE_PEERS = 0.01;

/**
 * History a rule with `fallback_peers` reads to tell whether a thin slice is like its peers: a thin
 * version's hour is a few dozen requests, too few to tell a rate or a speed of its own from theirs.
 */
export const LIKENESS_HISTORY_MS = 6 * 60 * MINUTE_MS;

/**
 * How far back a rule reads its series at one level: its axis; its own slices (level 0) also
 * `historyMs` and, with `fallback_peers`, LIKENESS_HISTORY_MS.
 */
export const seriesSpanMs = (axis: Axis, level: number, fallback: boolean, historyMs = 0): number =>
  level === 0 ? Math.max(axis.bins * MINUTE_MS, historyMs, fallback ? LIKENESS_HISTORY_MS : 0) : axis.bins * MINUTE_MS;

/** Windows up to this long share the reference that ends this long ago. */
const SHARED_REFERENCE_MINUTES = 13;

/**
 * Minutes before now at which the reference of a window of `w` minutes ends: where the window
 * starts, or for windows up to 13 minutes (no longer than `longest`) 13 minutes ago, one reference
 * read for all of them (a threshold from the hour before a fresh change).
 */
export const referenceAnchor = (w: number, longest: number): number => Math.max(w, Math.min(SHARED_REFERENCE_MINUTES, longest));

/**
 * A slice judged against its peers at the same time, adjusted by its usual distance from them: when
 * over its past (`own`, the peers' `past` rate beside it) its rate lay above theirs improbably (one-
 * sided binomial tail < UNLIKE_PEERS), the peers' rate now times that ratio, known as well as the
 * slice's own past (nRef = its requests); otherwise the peers' as they are. A batch tier's entry that
 * always queues longer than the others (7.5 % of its requests above their P96.5 against their 3.5 %)
 * would otherwise look changed whenever its own traffic bursts: the excess is constant, the evidence
 * grows with the requests (the clean twins of seeds 813, 822, 833, 926 and 953). Worked: peers now
 * 3.5 % over 600; the slice's past hour 240 of 3,200 (7.5 %) against their 3.5 % then (tail ≈ 5e−27):
 * reference 3.5 % × 2.14 = 7.5 % over 3,200 requests.
 */
export function usualDistance(now: { pRef: number; nRef: number }, own: { n: number; k: number }, past: number): { pRef: number; nRef: number } {
  if (!Number.isFinite(now.pRef) || !(own.n > 0) || !(own.k / own.n > past)) return now;
  if (binomialUpperTail(own.k, own.n, past) >= UNLIKE_PEERS) return now;
  const pRef = past > 0 ? Math.min(1, (now.pRef * own.k) / own.n / past) : Math.max(now.pRef, own.k / own.n);
  return { pRef, nRef: own.n };
}

/** The levels a rule tests: its `by`, then `by` + each localize dimension. */
export function levelsOf(c: { by: readonly GroupKey[]; localize: readonly GroupKey[] }): GroupKey[][] {
  return [[...c.by], ...c.localize.filter((d) => !c.by.includes(d)).map((d) => [...c.by, d])];
}

/** Everything one tested slice contributes to the decision. */
export interface Tested {
  level: number;
  labels: Labels;
  /** Key of the level-0 slice it belongs to. */
  parent: string;
  evidence: RateShift;
  /** Excess bad requests (k − n·pRef) in each window, for localisation. */
  excess: Float64Array;
  /** What the observation reports (value and details). */
  value: number;
  /** ' for tenant t7' when a child was tested (annotations read it as `$details.scope`), else ''. */
  scope: string;
  /**
   * A child whose siblings (its parent without it) changed as much over the same window: the change
   * was the parent's, not its own. Such a child is never reported on its own (once its parent's alert
   * is over, the tail of the parent's change would otherwise surface as alerts on its children).
   */
  shared?: boolean;
  details: Record<string, number | string>;
  pValue: number;
  /** The dispersion its evidence was judged with. */
  phi: number;
  /** The dimensions of its level (the rule's `by` plus a localize dimension). */
  dims: readonly string[];
}

/**
 * The overdispersion of a slice from its baseline minutes (the reference of the longest window:
 * before any change the horizon can hold), at least its parent's share of it: a tenant's few
 * requests a minute cannot measure it, its model version's can. Extra-binomial variance from a rate
 * that wanders minute to minute (errors × e^{σZ}) grows with the requests of a minute:
 * φ = 1 + n·p·(e^{σ²} − 1), so a child that sends a share s of its parent's requests inherits
 * 1 + (φ_parent − 1)·s, not φ_parent. Worked: a version at φ = 3 (a past incident in one of its
 * entries inflates it) and a tenant sending 12 % of its requests: the tenant is judged at
 * 1 + 2 × 0.12 = 1.24. See `dispersion` in analysis/sequential.ts.
 */
export function baselinePhi(
  minute: (j: number) => { n: number; k: number },
  from: number,
  to: number,
  parent?: { phi: number; n: number },
  range?: (a: number, b: number) => { n: number; k: number },
): number {
  const inherit = (total: number) => (parent && parent.n > 0 ? 1 + (parent.phi - 1) * Math.min(1, total / parent.n) : 1);
  // With the sums over the whole baseline at hand (`range`): a slice with fewer bad requests than
  // `dispersion` needs has no own measure whatever its minutes hold (the bad requests are whole
  // numbers up to rounding, hence the half), and its minutes are not read — most tenants, most ticks.
  if (range) {
    const r = range(Math.max(0, from), to);
    if (r.k < MIN_DISPERSION_BAD - 0.5) return Math.max(inherit(r.n), 1);
  }
  const n: number[] = [];
  const k: number[] = [];
  let total = 0;
  for (let j = Math.max(0, from); j < to; j++) {
    const m = minute(j);
    n.push(m.n);
    k.push(m.k);
    total += m.n;
  }
  const own = dispersion(n, k);
  return Math.max(inherit(total), Number.isFinite(own) ? own : 1);
}

/**
 * The change points one p-value is union-bounded over: an hour of minutes. Each change point's
 * mixture likelihood ratio crosses 1/a with probability ≤ a however long it is watched (Ville), so
 * p = 60·e^{−ln LR} bounds the chance that any change point of an hour ever produced the evidence;
 * `fdr` then controls false discoveries across the slices of an evaluation. A day (1,440) asked
 * for 3.2 more nats (about one more minute of a typical incident's evidence) and, on the tuning
 * seeds, bought no quieter clean run: what raised alerts there was nuisance (bursts, blips), not
 * noise, and the spread check and recovery gate answer those.
 */
export const CHANGE_POINTS = 60;

/** Minutes with excess a change must show in (and the shortest window tried); see `confirmSpread` for bursts. */
export const PERSIST_MINUTES = 1;

/**
 * The shortest window a rate is judged over: 2 minutes. A rate wanders from minute to minute, now
 * and then far: on the clean twins of seeds 1062, 1066 and 1079, a version's errors rose 6–9× for
 * one minute, on every replica, in every error type, spread across the minute (so the 10-second
 * spread check keeps it), and went pending as ErrorsUp. Over two minutes such a minute is half as
 * strong; a change that matters is still plain in the 2-minute window ending one minute in (30 %
 * failing for one minute after 1 % is 15 % over two). Replayed on seeds 1061–1080 (seen): clean-twin
 * episodes 7 → 4, recall and median delay unchanged (4 incidents a minute later, 3 a minute sooner).
 * Latency keeps one minute: a slow minute under load is `burst_hold`'s to judge.
 */
export const RATE_SHORTEST_WINDOW = 2;

/** The trailing window that decides whether a change is still on: up to 15 minutes. */
export const RECOVERY_MINUTES = 15;

/**
 * The sequential test of one slice over the axis' windows (lengths in minutes, ascending); null when
 * no window qualifies, or when the change is over. A change found over a long window would stay in
 * it for up to the horizon after it ended; so, as the SRE Workbook's short window does for burn
 * rates, the trailing min(15, best) minutes must still show the smallest change that matters
 * (rate ≥ pMin). Worked: pMin = 0.09 against a normal 5 %: a slice failing half its requests keeps
 * the alert; after it recovers, the trailing quarter hour drops under 9 % within about twelve
 * minutes, and normal traffic (5 % ± 1.1 % over 420 requests) stays under it (z = 3.8), so the
 * tail of an old change does not raise the alert again minute after minute.
 */
export function testWindows(
  windows: RateWindow[],
  lengths: readonly number[],
  /** rate_shift judges given the reference's counts (`ratioMixtureLogLR`), latency_shift against its upper bound. */
  c: Pick<RateShiftCondition | LatencyShiftCondition, 'kind' | 'tolerance' | 'min_ratio' | 'min_delta' | 'min_bad'>,
  /** Requests and bad requests of the minute `back` minutes before the last, judged as window `window` judges them. */
  minute: (back: number, window: number) => { n: number; k: number },
  /** Overdispersion of the slice's bad counts per minute (1: binomial). */
  phi = 1,
): { evidence: RateShift; excess: Float64Array; pValue: number } | null {
  // Windows shorter than PERSIST_MINUTES (for a rate, RATE_SHORTEST_WINDOW) are not tried, and the
  // best window must show bad requests above normal in at least PERSIST_MINUTES of its minutes. One
  // minute is enough: a burst of seconds is told from a change by the 10-second spread check of each
  // decided slice (`confirmSpread`), which two minutes of persistence could not do (a blip straddling
  // a minute boundary shows in two) and which cost every incident a minute of delay.
  const evidence = rateShift(
    windows.map((w, i) => (lengths[i]! < (c.kind === 'rate_shift' ? RATE_SHORTEST_WINDOW : PERSIST_MINUTES) ? { ...w, pRef: NaN } : w)),
    { tolerance: c.tolerance, minRatio: c.min_ratio, minDelta: c.min_delta, minBad: c.min_bad, dispersion: phi, conditional: c.kind === 'rate_shift' },
  );
  const excess = new Float64Array(windows.length);
  windows.forEach((w, i) => {
    excess[i] = Number.isFinite(w.pRef) ? w.k - w.n * w.pRef : 0;
  });
  if (!evidence) return null;
  let persisted = 0;
  for (let back = 0; back < lengths[evidence.window]! && persisted < PERSIST_MINUTES; back++) {
    const m = minute(back, evidence.window);
    if (m.k >= 1 && m.k > m.n * evidence.p0) persisted++;
  }
  if (persisted < PERSIST_MINUTES) return null;
  // The trailing minutes judged as the best window judges them (its reference, its threshold).
  let n = 0;
  let k = 0;
  for (let back = 0; back < Math.min(RECOVERY_MINUTES, lengths[evidence.window]!); back++) {
    const m = minute(back, evidence.window);
    n += m.n;
    k += m.k;
  }
  if (n > 0 && k / n < evidence.pMin) return null;
  return { evidence, excess, pValue: evidencePValue(evidence.logLR, CHANGE_POINTS) };
}

/** A burst: the window's requests at least this many times the past's rate … */
export const BURST_RATIO = 1.25;
/** … and improbably many for that rate (binomial: the window's share of the window and the past together). */
export const BURST_ALPHA = 0.001;

/**
 * Whether n requests in the last w minutes are a burst against `past` requests in the refBins
 * minutes before them. Worked: 224 in a minute after 7,800 in the hour before (130 a minute) is
 * 1.7× the rate, and P(≥ 224 of 8,024 fall in 1 of 61 minutes) ≈ 9e−14: a burst; 150 (1.15×) is not.
 */
export function loadBurst(n: number, past: number, w: number, refBins: number): boolean {
  return n * refBins >= BURST_RATIO * past * w && binomialUpperTail(n, n + past, w / (w + refBins)) < BURST_ALPHA;
}

/** A minute shows a change on its own if its bad requests are this improbable at the null rate p0. */
export const HOLD_ALPHA = 0.05;

/** Minutes of a rule's `hold` or `burst_hold` (0: none). */
export const holdMinutes = (d: string | undefined): number => (d ? Math.round(durationMs(d) / MINUTE_MS) : 0);

/**
 * Whether the change held: each of the last `hold` stretches shows it on its own (its bad requests
 * improbable at the null rate p0: binomial tail below HOLD_ALPHA). A stretch is a minute, or, for a
 * slice too thin for one minute to show anything (all of its requests bad would not be improbable:
 * p0^n ≥ HOLD_ALPHA), the fewest minutes back from there that could; none reaches back more than
 * `maxBack` minutes. A slice of hundreds of requests a minute is held minute by minute as before;
 * one of a request or two a minute could never be (a minute without requests shows nothing: one of
 * the two reasons an entry whose batching slowed 150-fold for 13 minutes went unraised, seed 891).
 * Worked: p0 = 7.5 %
 * needs 2 requests (0.075² = 0.0056 < 0.05); the last minutes, newest first, hold 1, 0, 2, 1 and 1
 * requests, all slow: the stretches are the first three minutes (3 requests, tail 0.0004) and the
 * next two (2, tail 0.0056), and hold 2m holds.
 */
export function held(
  e: { window: number; p0: number },
  minute: (back: number, window: number) => { n: number; k: number },
  hold: number,
  maxBack: number,
): boolean {
  if (!(e.p0 < 1)) return false;
  const need = e.p0 > 0 ? Math.floor(Math.log(HOLD_ALPHA) / Math.log(e.p0)) + 1 : 1;
  let back = 0;
  for (let s = 0; s < hold; s++) {
    let n = 0;
    let k = 0;
    while (n < need) {
      if (back >= maxBack) return false;
      const m = minute(back++, e.window);
      n += m.n;
      k += m.k;
    }
    if (!(k >= 1 && binomialUpperTail(k, n, e.p0) < HOLD_ALPHA)) return false;
  }
  return true;
}

/** Pseudo-requests of the parent's normal a child's thin past is shrunk with. */
export const SHRINK_REQUESTS = 100;

/**
 * Pseudo-requests a child is shrunk with: no more than its siblings sent (the parent's past holds the
 * child's own, so a child that is all of its parent — a canary's one route — is judged as it is).
 */
export const shrinkWeight = (parentRequests: number, ownRequests: number): number => Math.max(0, Math.min(SHRINK_REQUESTS, parentRequests - ownRequests));

/** Two-sided Fisher p under which a child's rate above its siblings' (same window) is its own change. */
export const DISTINCT_ALPHA = 0.001;

/**
 * Whether the siblings of a child (its parent without it) show the change too over the child's
 * best window — their rate above max(tolerance × their reference, their reference + min_delta / 2)
 * — and the child's rate does not stand clear above theirs (Fisher's exact test, p < 0.001). The
 * second half keeps a child whose siblings wobbled from being taken for a version-wide change: an
 * entry failing 9 of 29 beside 3 of 200 on the other entries (a tenant that always sends bad
 * input, 1.5 % against 0.3 % in their past hour) is the entry's own (p = 4.2e−7), not shared (seed
 * 929: it was, for 20 minutes, while its model version's evidence stayed under the bar).
 */
export function siblingsChanged(
  parent: { n: number; k: number; nRef: number; kRef: number },
  child: { n: number; k: number; nRef: number; kRef: number },
  c: Pick<RateShiftCondition, 'tolerance' | 'min_delta'>,
): boolean {
  const n = parent.n - child.n;
  const nRef = parent.nRef - child.nRef;
  if (n < 20 || nRef < 20) return false;
  const rate = (parent.k - child.k) / n;
  const ref = (parent.kRef - child.kRef) / nRef;
  if (!(rate > Math.max(c.tolerance * ref, ref + c.min_delta / 2))) return false;
  // Counts summed from rates × requests are whole numbers up to rounding (and rounding keeps k ≤ n).
  return !(
    child.k / child.n > rate && fisherExact(Math.round(child.k), Math.round(child.n), Math.round(parent.k - child.k), Math.round(n)).pValue < DISTINCT_ALPHA
  );
}

/** Share of a parent's excess a child must carry to be reported instead of the parent. */
export const EXPLAIN_SHARE = 0.6;

/**
 * Benjamini–Hochberg at `fdr` across the tested slices (those whose change clears the rule's floors:
 * min_bad, min_ratio, min_delta, min_slowdown; one under them has no evidence to rank), then localisation: under a discovered
 * level-0 slice, the discovered child (in any localize dimension) that carries at least 60 % of
 * the parent's excess in the parent's best window is reported instead of the parent; discovered
 * children under a parent that is not discovered are reported as they are (a small tenant whose
 * change is too small to move its model); of the children of one parent, those of the dimension
 * with the strongest evidence.
 */
export function decide(tested: readonly Tested[], fdr: number): Tested[] {
  const q = benjaminiHochberg(tested.map((t) => t.pValue));
  const found = tested.filter((_, i) => (q[i] ?? 1) < fdr);
  const parents = new Map(found.filter((t) => t.level === 0).map((t) => [t.parent, t]));
  const children = new Map<string, Tested[]>();
  for (const t of found) {
    if (t.level === 0) continue;
    const list = children.get(t.parent);
    if (list) list.push(t);
    else children.set(t.parent, [t]);
  }
  const out: Tested[] = [];
  const emit = (t: Tested) => out.push(t);
  for (const [key, p] of parents) {
    const kids = children.get(key) ?? [];
    const w = p.evidence.window;
    const total = p.excess[w] ?? 0;
    let best: Tested | undefined;
    for (const k of kids) {
      const e = k.excess[w] ?? 0;
      if (total > 0 && e >= EXPLAIN_SHARE * total && (!best || e > (best.excess[w] ?? 0))) best = k;
    }
    emit(best ?? p);
  }
  for (const [key, all] of children) {
    if (parents.has(key)) continue;
    const kids = all.filter((k) => !k.shared);
    if (kids.length === 0) continue;
    let strongest = kids[0]!;
    for (const k of kids) if (k.evidence.logLR > strongest.evidence.logLR) strongest = k;
    for (const k of kids) if (k.level === strongest.level) emit(k);
  }
  return out;
}

/**
 * Hysteresis: a slice whose alert is firing stays while its change is still on — a window still
 * shows excess over its reference and its trailing minutes still pass the recovery gate
 * (`testWindows` returned evidence) — even when that evidence no longer clears the false-discovery
 * bar that raised it. Worked: a tenant of three requests a minute failing half of them sends none
 * bad for two minutes with chance 1/64; re-proving the change from scratch then drops it (p 0.015)
 * and raises it again a minute later, one incident as two pages. It resolves when the trailing
 * quarter hour falls under the smallest change that matters, as before.
 */
export function holdFiring(kept: readonly Tested[], tested: readonly Tested[], firing?: (labels: Labels) => boolean): Tested[] {
  if (!firing) return [...kept];
  const keys = new Set(kept.map((t) => fingerprint(t.labels)));
  return [...kept, ...tested.filter((t) => !keys.has(fingerprint(t.labels)) && firing(t.labels))];
}

/** What a decided slice reports. */
export const observation = (t: Tested): Observation => ({ labels: t.labels, value: t.value, details: { ...t.details, p_value: t.pValue, scope: t.scope } });

/** Bins of the spread check: 10 seconds; a burst may fill three of them (30 s) and still be a burst. */
export const SPREAD_STEP_MS = 10_000;
export const SPREAD_SPAN_BINS = 3;
/** Evidence the bad requests outside the densest 30 s must still carry. */
export const SPREAD_ALPHA = 0.01;
/** A longer window may hold more than one burst: one taken out per this many minutes of it. */
export const SPREAD_MINUTES_PER_BURST = 10;
/** From this many minutes on, one more run may go, if it is a burst on its own: two blips can fall a minute or two apart. */
export const SPREAD_PAIR_MINUTES = 3;
/** What "a burst on its own" means for that run: its bad requests beyond this tail at p0. */
export const SPREAD_EXTRA_TAIL = 1e-6;

/**
 * Runs taken out of a window of `minutes`: one per 10 minutes begun, and from 3 minutes one more
 * that must be a burst on its own. Two blips of a version (32 and then 49 errors of ~450 requests a
 * minute, two minutes apart, against 0.13 %) passed with one taken out and paged as ErrorsUp on a
 * clean twin (seed 892). The extra run is conditional: taken out unconditionally (every window
 * from 3 minutes), 17 of the 267 incidents of seeds 881–900 were raised 1–4 minutes later — the
 * densest 30 s of a thin slice are most of its evidence, not a blip — and a version's blip is a
 * burst on its own by far (tail 1e−81).
 */
export const spreadRuns = (minutes: number): { bursts: number; extra: number } => ({
  bursts: Math.max(1, Math.ceil(minutes / SPREAD_MINUTES_PER_BURST)),
  extra: minutes >= SPREAD_PAIR_MINUTES ? 1 : 0,
});

/**
 * Minute bins cannot tell a 20-second burst that straddles a minute boundary from a change that
 * began a minute ago: both leave excess in two minutes. So each decided slice is read once more in
 * 10-second bins over its best window, and kept only if its bad requests outside its densest 30-s
 * runs (`spreadRuns`: blips come alone, in pairs, and more over longer windows) still
 * exceed its null rate p0 at SPREAD_ALPHA (see `spreadPValue`). A change that lasts passes within
 * its first minute; a blip of errors or a stall of a few seconds never does. `read` gives the
 * slice's requests and bad requests per bin (null: the slice cannot be read apart, kept).
 */
export async function confirmSpread(
  decided: Tested[],
  axis: Axis,
  read: (t: Tested, fromMs: number, toMs: number) => Promise<{ n: number[]; k: number[] } | null>,
): Promise<Tested[]> {
  const endMs = axis.firstMs + axis.bins * MINUTE_MS;
  const out: Tested[] = [];
  for (const t of decided) {
    const minutes = axis.windows[t.evidence.window]!;
    const bins = await read(t, endMs - minutes * MINUTE_MS, endMs);
    const runs = spreadRuns(minutes);
    if (bins === null || spreadPValue(bins.n, bins.k, t.evidence.p0, SPREAD_SPAN_BINS, t.phi, runs.bursts, runs.extra, SPREAD_EXTRA_TAIL) < SPREAD_ALPHA)
      out.push(t);
  }
  return out;
}

/** The rule's filters narrowed to one slice; null when a label cannot be a filter (or is absent). */
export function sliceFilters(filters: Filters, labels: Labels, dims: readonly string[]): Filters | null {
  const out: Filters = { ...filters };
  for (const d of dims) {
    const v = labels[d];
    if (v === undefined || !(FILTER_KEYS as readonly string[]).includes(d)) return null;
    out[d as FilterKey] = v;
  }
  return out;
}

/** Per-bin counts of a stepped aggregate, every bin of [fromMs, toMs) present (empty ones as 0). */
export function stepBins(
  rows: readonly QueryRow[],
  fromMs: number,
  toMs: number,
  stepMs: number,
  nk: (row: QueryRow) => { n: number; k: number },
): { n: number[]; k: number[] } {
  const m = Math.max(0, Math.ceil((toMs - fromMs) / stepMs));
  const n = new Array<number>(m).fill(0);
  const k = new Array<number>(m).fill(0);
  for (const row of rows) {
    const j = Math.floor((Number(row.bucket) - fromMs) / stepMs);
    if (!(j >= 0 && j < m)) continue;
    const c = nk(row);
    n[j] = c.n;
    k[j] = c.k;
  }
  return { n, k };
}

/**
 * Which level-0 slices a `share` selector keeps: a version's requests over the horizon against all
 * versions of its model (the same slice but for model_version). `major`: at least half; `minor`: less.
 */
export function shareFilter(
  totals: Map<string, { labels: Labels; n: number }>,
  by: readonly string[],
  share: 'major' | 'minor' | undefined,
): (labels: Labels) => boolean {
  if (share === undefined) return () => true;
  const groups = new Map<string, number>();
  for (const t of totals.values()) {
    const k = peerKey(t.labels, by, 'model_version');
    groups.set(k, (groups.get(k) ?? 0) + t.n);
  }
  return (labels) => {
    const own = totals.get(labelsKey(labels, by))?.n ?? 0;
    const all = groups.get(peerKey(labels, by, 'model_version')) ?? 0;
    const major = all > 0 && own * 2 >= all;
    return share === 'major' ? major : !major;
  };
}

/** The key of a slice without one dimension: its peer group. */
export const peerKey = (labels: Labels, dims: readonly string[], without: string) =>
  labelsKey(
    labels,
    dims.filter((d) => d !== without),
  );

/** ' for tenant t7' for a slice of a localize level, '' for the rule's own slices. */
export function scopeOf(labels: Labels, dims: readonly string[], by: readonly string[]): string {
  const extra = dims.filter((d) => !by.includes(d) && labels[d] !== undefined);
  return extra.length > 0 ? ` for ${extra.map((d) => `${d} ${labels[d]}`).join(', ')}` : '';
}

/** The level-0 key of a slice of any level. */
export const parentKey = (labels: Labels, by: readonly string[]) => labelsKey(labels, by);
