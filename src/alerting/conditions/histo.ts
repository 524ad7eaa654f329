/**
 * The histograms latency_shift builds per evaluation (a parent's past, the current window), keyed by
 * (mirrored) bucket index, and the quantile bucket of one; and the reference bucket of a slice's own
 * past (or a child's, shrunk toward its parent's), or of its peers pooled, read straight from their
 * series: the same numbers as `referenceBucket` of their histogram, which defines them.
 */
import type { SliceSeries } from '../series.ts';

/**
 * A histogram keyed by (mirrored) bucket index: keys in the order they were first added and their
 * rows. Parallel arrays, not a Map: filled once from one slice, whose indices come in order and
 * distinct, so nothing needs looking up.
 */
export interface Histo {
  keys: number[];
  vals: number[];
}

export const emptyHisto = (): Histo => ({ keys: [], vals: [] });

export const histoTotal = (m: Histo) => {
  let t = 0;
  for (const v of m.vals) t += v;
  return t;
};

/** The bucket holding the q-quantile of a histogram (keyed by index), and the share above it. */
export function quantileBucket(h: Histo, q: number): { index: number; total: number; above: number } | null {
  // The positions in ascending key order: as filled from one slice, the keys are already ascending
  // (or descending, mirrored), so the sort is skipped.
  const n = h.keys.length;
  let order: number[];
  let asc = true;
  let desc = true;
  for (let x = 1; x < n && (asc || desc); x++) {
    if (h.keys[x]! < h.keys[x - 1]!) asc = false;
    if (h.keys[x]! > h.keys[x - 1]!) desc = false;
  }
  if (asc) order = h.keys.map((_, x) => x);
  else if (desc) order = h.keys.map((_, x) => n - 1 - x);
  else order = h.keys.map((_, x) => x).sort((a, b) => h.keys[a]! - h.keys[b]!);
  let total = 0;
  for (const x of order) total += h.vals[x]!;
  if (total <= 0) return null;
  let cum = 0;
  for (const x of order) {
    cum += h.vals[x]!;
    if (cum >= q * total) return { index: h.keys[x]!, total, above: total - cum };
  }
  return { index: h.keys[order[n - 1]!]!, total, above: 0 };
}

/** Reference requests a tail quantile needs above it: fewer, and the test moves to a lower quantile. */
export const MIN_TAIL_REQUESTS = 10;

/** The quantile a reference of `total` requests is judged at: q, or 1 − MIN_TAIL_REQUESTS / total when thinner (not below the median). */
function tailQuantile(q: number, total: number): number {
  return Math.max(0.5, Math.min(q, 1 - MIN_TAIL_REQUESTS / Math.max(1, total)));
}

/**
 * The reference's threshold bucket at quantile q — or, when the reference is too thin to hold
 * MIN_TAIL_REQUESTS above its q-quantile, at the highest quantile it can estimate, 1 − 10 / total
 * (not below the median). A P99 of 60 requests is their maximum, and the share of new requests
 * above a maximum drifts with any small change of level; its P83 is measured. Worked: a canary
 * with 60 reference requests is judged at q = 0.833; one with 2,000 at 0.99 as asked. The
 * definition: latency_shift reads it through the variants below, which walk the series instead of
 * building the histogram (histo.test.ts holds each to it).
 */
export function referenceBucket(h: Histo, q: number, far = 0): ReferenceBucket | null {
  const total = histoTotal(h);
  const qe = tailQuantile(q, total);
  const b = quantileBucket(h, qe);
  if (!b) return null;
  if (far <= 0) return { ...b, q: qe };
  // Summed in ascending key order, as shrunkReferenceBucket sums it: the same value to the last bit.
  const order = h.keys.map((_, x) => x).sort((x, y) => h.keys[x]! - h.keys[y]!);
  let farAbove = 0;
  for (const x of order) if (h.keys[x]! > b.index + far) farAbove += h.vals[x]!;
  return { ...b, q: qe, farAbove };
}

/**
 * A reference's threshold bucket: its (mirrored) index, the reference's rows, those above the
 * bucket, the quantile it was taken at, and — asked with `far` > 0 — the rows above the bucket
 * `far` indices higher (the far tail: `FAR_TAIL_FACTOR` in latency-slices.ts).
 */
export interface ReferenceBucket {
  index: number;
  total: number;
  above: number;
  q: number;
  farAbove?: number;
}

/**
 * The rows above index + far of a tail walk that visited `keys` (descending) with `before` rows
 * above each: every key above the far threshold was visited before the bucket's own.
 */
function farAboveOf(keys: readonly number[], before: readonly number[], threshold: number): number {
  // The bucket's own key, the last visited, lies below the threshold: the walk stops there at the latest.
  let j = 0;
  while (keys[j]! > threshold) j++;
  return before[j]!;
}

/**
 * `referenceBucket` of a slice's own rows over [fromMs, toMs), without building the histogram: the
 * rows are whole numbers, so the total (read from the all-buckets column) and every partial sum are
 * the same integers whatever the order they add in, and `cum ≥ q·total` is decided on the same
 * numbers. The walk comes in from the tail (above = total − cum), so a P99 visits a few buckets,
 * not all of them. Null when the slice has no row there.
 */
export function ownReferenceBucket(series: SliceSeries, sign: 1 | -1, fromMs: number, toMs: number, q: number, far = 0): ReferenceBucket | null {
  const total = toMs <= fromMs ? 0 : series.total(fromMs, toMs);
  if (total <= 0) return null;
  const qe = tailQuantile(q, total);
  const indices = series.indices();
  const count = series.countsOver(fromMs, toMs);
  // The tail end of the (mirrored) keys: the highest index up, the lowest down.
  const n = indices.length;
  let above = 0;
  let found: { index: number; above: number } | null = null;
  const keys: number[] = [];
  const before: number[] = [];
  for (let s = 0; s < n; s++) {
    const x = sign === 1 ? n - 1 - s : s;
    const v = count(x);
    if (v === 0) continue;
    if (!(total - above >= qe * total)) break;
    found = { index: sign * indices[x]! + 0, above };
    if (far > 0) {
      keys.push(found.index);
      before.push(above);
    }
    above += v;
  }
  if (!found) return null;
  const b = { index: found.index, total, above: found.above, q: qe };
  return far > 0 ? { ...b, farAbove: farAboveOf(keys, before, found.index + far) } : b;
}

/**
 * `referenceBucket` of the rows of every slice in `members` but `skip` (its peers, pooled) over
 * [fromMs, toMs), without building their histogram — null when they hold fewer than `minCount`
 * rows. The walk comes in from the tail across the members' (ascending) indices at once, adding
 * each index's rows over the members, so it visits the tail's buckets only: the rows are whole
 * numbers, so the total (from each member's all-buckets column) and every partial sum are the same
 * integers as the merged histogram's, and the bucket is the same.
 */
export function peersReferenceBucket(
  members: readonly SliceSeries[],
  skip: SliceSeries,
  sign: 1 | -1,
  fromMs: number,
  toMs: number,
  q: number,
  minCount: number,
  far = 0,
): ReferenceBucket | null {
  if (toMs <= fromMs) return null;
  const walks: { indices: readonly number[]; count: (x: number) => number; x: number }[] = [];
  let total = 0;
  for (const m of members) {
    if (m === skip) continue;
    const t = m.total(fromMs, toMs);
    if (t === 0) continue;
    total += t;
    const indices = m.indices();
    walks.push({ indices, count: m.countsOver(fromMs, toMs), x: sign === 1 ? indices.length - 1 : 0 });
  }
  if (total < minCount || total <= 0) return null;
  const qe = tailQuantile(q, total);
  // The (mirrored) keys from the highest down: up, each member's indices from its last; down, from its first.
  const live = (w: (typeof walks)[number]) => w.x >= 0 && w.x < w.indices.length;
  let above = 0;
  let found: { index: number; above: number } | null = null;
  const keys: number[] = [];
  const before: number[] = [];
  for (;;) {
    let key = -Infinity;
    for (const w of walks) if (live(w)) key = Math.max(key, sign * w.indices[w.x]!);
    if (key === -Infinity) break;
    let v = 0;
    for (const w of walks)
      if (live(w) && sign * w.indices[w.x]! === key) {
        v += w.count(w.x);
        w.x -= sign;
      }
    if (v === 0) continue;
    if (!(total - above >= qe * total)) break;
    found = { index: key + 0, above };
    if (far > 0) {
      keys.push(found.index);
      before.push(above);
    }
    above += v;
  }
  if (!found) return null;
  const b = { index: found.index, total, above: found.above, q: qe };
  return far > 0 ? { ...b, farAbove: farAboveOf(keys, before, found.index + far) } : b;
}

/**
 * `referenceBucket` of a child's own rows over [fromMs, toMs) shrunk toward its parent's past `p`
 * (total `pt`) with `weight` pseudo-requests, as merging `weight / pt` × p into the child's
 * histogram builds it, without building it: every value, and the two totals referenceBucket adds (its own total in the merged
 * histogram's order: the child's keys, then the parent's new ones; quantileBucket's in ascending key
 * order), added in the same order, so the same floating-point numbers. Null when the merged histogram has no row.
 */
export function shrunkReferenceBucket(
  series: SliceSeries,
  sign: 1 | -1,
  fromMs: number,
  toMs: number,
  p: Histo,
  pt: number,
  weight: number,
  q: number,
  far = 0,
): ReferenceBucket | null {
  // The union of both sides' bucket indices, ascending: own rows, the parent's share, and which side has it.
  const index: number[] = [];
  const value: number[] = [];
  const ownKey: boolean[] = [];
  const indices = series.indices();
  const count = toMs <= fromMs ? () => 0 : series.countsOver(fromMs, toMs);
  let x = 0;
  let y = 0;
  const share = (j: number) => (pt === 1 ? weight * p.vals[j]! : (weight * p.vals[j]!) / pt);
  while (x < indices.length || y < p.keys.length) {
    const i = x < indices.length ? indices[x]! : Infinity;
    const pi = y < p.keys.length ? sign * p.keys[y]! : Infinity;
    const own = i <= pi ? count(x) : 0;
    if (i < pi && own === 0) {
      x++;
      continue;
    }
    if (i === pi) {
      index.push(i);
      value.push(own + share(y));
      ownKey.push(own !== 0);
      x++;
      y++;
    } else if (i < pi) {
      index.push(i);
      value.push(own);
      ownKey.push(true);
      x++;
    } else {
      index.push(pi);
      value.push(share(y));
      ownKey.push(false);
      y++;
    }
  }
  const n = index.length;
  // referenceBucket's total: the merged histogram's order (the child's keys, then the parent's new ones).
  let total1 = 0;
  for (let j = 0; j < n; j++) if (ownKey[j]) total1 += value[j]!;
  for (let j = 0; j < n; j++) if (!ownKey[j]) total1 += value[j]!;
  const qe = tailQuantile(q, total1);
  // quantileBucket's: ascending (mirrored) keys.
  const at = (r: number) => (sign === 1 ? r : n - 1 - r);
  let total = 0;
  for (let r = 0; r < n; r++) total += value[at(r)]!;
  if (total <= 0) return null;
  let cum = 0;
  let found = n - 1;
  for (let r = 0; r < n; r++) {
    cum += value[at(r)]!;
    if (cum >= qe * total) {
      found = r;
      break;
    }
  }
  // Without a break cum sums every value in the order total did: above is 0.
  const b = { index: sign * index[at(found)]! + 0, total, above: total - cum, q: qe };
  if (far <= 0) return b;
  let farAbove = 0;
  for (let r = 0; r < n; r++) if (sign * index[at(r)]! > b.index + far) farAbove += value[at(r)]!;
  return { ...b, farAbove };
}
