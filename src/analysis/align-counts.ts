/**
 * Categorical counts come either as aligned arrays (bin i of the reference matches bin i of the
 * current window) or as records keyed by category (missing key = 0). Both become aligned arrays.
 */
import { InferlensError } from '../schema/index.ts';

/** Counts per bin or per category. */
export type Counts = readonly number[] | Readonly<Record<string, number>>;

export interface AlignedCounts {
  /** Category of each position (sorted keys), or null when arrays were given. */
  labels: string[] | null;
  ref: number[];
  cur: number[];
}

function checkCounts(values: readonly number[], what: string): void {
  for (const v of values) {
    if (!(Number.isFinite(v) && v >= 0)) throw new InferlensError('invalid_argument', `${what}: counts must be finite and ≥ 0, got ${v}`);
  }
}

/** Aligns two count vectors; arrays must have equal length. */
export function alignCounts(ref: Counts, cur: Counts, what = 'counts'): AlignedCounts {
  let out: AlignedCounts;
  if (Array.isArray(ref) && Array.isArray(cur)) {
    if (ref.length !== cur.length) {
      throw new InferlensError(
        'invalid_argument',
        `${what}: reference has ${ref.length} bins and current ${cur.length}; pass aligned bins or records keyed by category`,
      );
    }
    out = { labels: null, ref: [...(ref as number[])], cur: [...(cur as number[])] };
  } else if (!Array.isArray(ref) && !Array.isArray(cur)) {
    const r = ref as Readonly<Record<string, number>>;
    const c = cur as Readonly<Record<string, number>>;
    const labels = [...new Set([...Object.keys(r), ...Object.keys(c)])].sort();
    out = { labels, ref: labels.map((l) => r[l] ?? 0), cur: labels.map((l) => c[l] ?? 0) };
  } else {
    throw new InferlensError('invalid_argument', `${what}: pass both as arrays or both as records`);
  }
  checkCounts(out.ref, what);
  checkCounts(out.cur, what);
  return out;
}

/** Counts of each distinct value. */
export function countValues(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

/** Σ values. */
export function sum(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}
