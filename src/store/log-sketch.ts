/**
 * The log-bucket histogram the per-minute rollup keeps for each latency field: DDSketch's
 * logarithmic mapping (Masson, Rim & Lee, "DDSketch", VLDB 2019) with γ = 10^(1/120), i.e. 120
 * buckets per decade. Backend-independent: the DuckDB SQL computes the same index, and tests check
 * both against hand-computed values.
 *
 * - A positive value v goes to bucket i = ⌈log₁₀(v) · 120⌉, which holds (γ^(i−1), γ^i].
 *   Example: v = 25 ms → log₁₀ 25 = 1.39794 → ·120 = 167.75 → i = 168, the bucket
 *   (10^(167/120), 10^(168/120)] = (24.641, 25.119] ms.
 * - Values ≤ 0 (a latency rounded to 0 µs) go to the zero bucket `ZERO_INDEX`, whose value is 0.
 * - The value of bucket i is 2γ^i / (γ + 1): at most α = (γ − 1)/(γ + 1) = 0.00959 away, relative,
 *   from anything in the bucket (bucket 168: 24.878 ms, 0.959 % above 24.641 and 0.959 % below
 *   25.119: both ends are α away). So a quantile read from merged buckets is within 0.96 % of the exact
 *   one: each order statistic is within α, and type-7 interpolation between two of them stays within α.
 * - Buckets are mergeable by adding counts (sketches of minutes add up to the sketch of the hour).
 * - 120 per decade is a multiple of 10, so every bound of the heatmap's 10-per-decade scale
 *   (`logBuckets(0.1, 60000, 10)`) is a bucket bound: heatmap counts read from the rollup are
 *   exact up to the 6-digit rounding of those bounds.
 * - The index is a SMALLINT: 0.001 ms → −360, one hour (3.6e6 ms) → 787; the SMALLINT's 32767 is 10^273 ms.
 */

/** Buckets per decade. */
export const SKETCH_PER_DECADE = 120;
/** γ: the ratio between consecutive bucket bounds. */
export const SKETCH_GAMMA = 10 ** (1 / SKETCH_PER_DECADE);
/** The relative accuracy α = (γ − 1)/(γ + 1) ≈ 0.00959 of every value read from the sketch. */
export const SKETCH_RELATIVE_ERROR = (SKETCH_GAMMA - 1) / (SKETCH_GAMMA + 1);
/** The bucket of values ≤ 0. */
export const ZERO_INDEX = -32768;
/**
 * Slack on the log so that a value exactly on a bound (10, 100, 0.1: latencies are stored to
 * 3 decimals) lands in the bucket it closes, whatever the last bit of log₁₀ says.
 */
export const SKETCH_INDEX_EPSILON = 1e-9;

/** The bucket index of a value. */
export function sketchIndex(v: number): number {
  if (!(v > 0)) return ZERO_INDEX;
  return Math.ceil(Math.log10(v) * SKETCH_PER_DECADE - SKETCH_INDEX_EPSILON) || 0; // never −0
}

/** The value that stands for bucket i: 2γ^i / (γ + 1) (0 for the zero bucket). */
export function sketchValue(i: number): number {
  if (i === ZERO_INDEX) return 0;
  return (2 * 10 ** (i / SKETCH_PER_DECADE)) / (SKETCH_GAMMA + 1);
}

/** The upper bound γ^i of bucket i. */
export function sketchUpperBound(i: number): number {
  return i === ZERO_INDEX ? 0 : 10 ** (i / SKETCH_PER_DECADE);
}

/**
 * The sketch index whose upper bound is this heatmap/histogram bound, or undefined when the bound
 * is not one of the sketch's (within the 6-significant-digit rounding bounds are written with).
 */
export function sketchBoundIndex(boundMs: number): number | undefined {
  if (!(boundMs > 0)) return undefined;
  const k = Math.log10(boundMs) * SKETCH_PER_DECADE;
  const r = Math.round(k);
  return Math.abs(k - r) < 1e-3 ? r : undefined;
}

/**
 * The type-7 quantile (as quantile_cont) of a sketch given as (index, count) pairs in any order:
 * rank h = q·(n − 1) (0-based), the values of the buckets holding ranks ⌊h⌋ and ⌈h⌉,
 * interpolated. Null for an empty sketch. The reference the SQL is checked against.
 */
export function sketchQuantile(buckets: readonly (readonly [number, number])[], q: number): number | null {
  const sorted = buckets.filter(([, c]) => c > 0).sort((a, b) => a[0] - b[0]);
  const n = sorted.reduce((a, [, c]) => a + c, 0);
  if (n === 0) return null;
  const h = q * (n - 1);
  const at = (rank: number): number => {
    let cum = 0;
    for (const [i, c] of sorted) {
      cum += c;
      if (cum > rank) return sketchValue(i);
    }
    return sketchValue(sorted[sorted.length - 1]![0]);
  };
  const lo = at(Math.floor(h));
  const hi = at(Math.ceil(h));
  return lo + (h - Math.floor(h)) * (hi - lo);
}

/**
 * The same logarithmic mapping at a coarser resolution, for the detectors' per-slice bucket counts
 * (`Store.bucketCounts`): bucket i of `perDecade` holds (10^((i−1)/d), 10^(i/d)], values ≤ 0 go to
 * `ZERO_INDEX`. Worked (d = 20): 25 ms → ⌈1.39794 · 20⌉ = ⌈27.96⌉ = 28, the bucket (22.39, 25.12] ms;
 * 100 ms → exactly 40 (a bound closes its own bucket).
 */
export function logBucketIndex(v: number, perDecade: number): number {
  if (!(v > 0)) return ZERO_INDEX;
  return Math.ceil(Math.log10(v) * perDecade - SKETCH_INDEX_EPSILON) || 0;
}
