/**
 * The histograms latency_shift builds per evaluation (reference windows, a parent's past, the current
 * window), keyed by (mirrored) bucket index, and the quantile bucket of one.
 */
/**
 * A histogram keyed by (mirrored) bucket index: keys in the order they were first added and their
 * rows. Parallel arrays, not a Map: most are filled once from one slice, whose indices come in
 * order and distinct, so nothing needs looking up (`merge` looks up only when a second slice adds).
 */
export interface Histo {
  keys: number[];
  vals: number[];
}

export const emptyHisto = (): Histo => ({ keys: [], vals: [] });

/** Adds `scale` × each of `src`'s rows into `into`, new keys appended in `src`'s order (as a Map would). */
export function merge(into: Histo, src: Histo, scale = 1, divide = 1): void {
  let pos: Map<number, number> | null = null;
  for (let x = 0; x < src.keys.length; x++) {
    const k = src.keys[x]!;
    const v = divide === 1 ? scale * src.vals[x]! : (scale * src.vals[x]!) / divide;
    pos ??= new Map(into.keys.map((key, j) => [key, j]));
    const j = pos.get(k);
    if (j === undefined) {
      pos.set(k, into.keys.length);
      into.keys.push(k);
      into.vals.push(0 + v);
    } else into.vals[j]! += v;
  }
}

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
