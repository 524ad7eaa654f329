/**
 * Quantiles of a bucketed histogram, the way Prometheus's `histogram_quantile` computes them: the
 * observations are assumed spread evenly inside a bucket, so a quantile is interpolated between
 * the bucket's bounds. The answer is only as fine as the buckets: it is marked as
 * bucket-interpolated wherever it is shown, with the bounds beside it.
 *
 * Worked (cumulative counts le 0.1: 3, 0.25: 8, 0.5: 9, +Inf: 10):
 * - q = 0.5 → rank 5 falls in (0.1, 0.25], which holds 8 − 3 = 5, the 5 − 3 = 2nd of them:
 *   0.1 + (0.25 − 0.1) × 2/5 = 0.16;
 * - q = 0.2 → rank 2 in (0, 0.1]: 0.1 × 2/3 = 0.0667 (the first bucket starts at 0 when its bound is positive);
 * - q = 0.95 → rank 9.5 in (0.5, +Inf]: the largest finite bound, 0.5 (nothing is known above it).
 */

/** One bucket: observations at or below `le` (cumulative over the bounds). */
export interface CumulativeBucket {
  le: number;
  count: number;
}

/**
 * The q-quantile (0 < q < 1) of cumulative buckets, or null when the histogram is empty or has no
 * `+Inf` bucket (its total is unknown). Counts that go down as `le` rises (series summed from
 * different scrapes) are lifted to the running maximum, as Prometheus does.
 */
export function histogramQuantile(q: number, buckets: readonly CumulativeBucket[]): number | null {
  if (!(q >= 0 && q <= 1)) return null;
  const sorted = [...buckets].filter((b) => !Number.isNaN(b.le)).sort((a, b) => a.le - b.le);
  if (sorted.length < 2 || sorted[sorted.length - 1]!.le !== Infinity) return null;
  let max = 0;
  const cum = sorted.map((b) => (max = Math.max(max, b.count)));
  const total = cum[cum.length - 1]!;
  if (!(total > 0)) return null;
  let rank = q * total;
  const i = cum.findIndex((c) => c >= rank);
  if (i === sorted.length - 1) return sorted[sorted.length - 2]!.le;
  const upper = sorted[i]!.le;
  if (i === 0 && upper <= 0) return upper;
  let lower = 0;
  let inBucket = cum[i]!;
  if (i > 0) {
    lower = sorted[i - 1]!.le;
    inBucket -= cum[i - 1]!;
    rank -= cum[i - 1]!;
  }
  return lower + (upper - lower) * (rank / inBucket);
}

/** `le` label text → bound: `"0.25"` → 0.25, `"+Inf"` → Infinity; NaN for anything else. */
export function parseLe(le: string | null | undefined): number {
  if (le === '+Inf' || le === 'Inf' || le === 'inf') return Infinity;
  if (le == null || le.trim() === '') return NaN;
  return Number(le);
}
