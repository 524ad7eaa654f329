/**
 * Sample quantiles by linear interpolation between closest ranks: Hyndman–Fan type 7, the default
 * of numpy (`np.quantile`), R (`quantile(type = 7)`) and DuckDB `quantile_cont`.
 *
 * For sorted x₀ ≤ … ≤ x_{n−1}: h = (n − 1)·q, Q(q) = x_⌊h⌋ + (h − ⌊h⌋)·(x_⌊h⌋₊₁ − x_⌊h⌋).
 * Worked: x = [1, 2, 3, 4, 10], q = 0.9 → h = 3.6 → 4 + 0.6·(10 − 4) = 7.6.
 */

/**
 * Type-7 quantile of values already sorted ascending. Returns NaN for an empty array or a q
 * outside [0, 1]; the caller sorts (see `quantiles` to sort once for many q).
 */
export function quantile(sortedValues: ArrayLike<number>, q: number): number {
  const n = sortedValues.length;
  if (n === 0 || !(q >= 0 && q <= 1)) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const xLo = sortedValues[lo] as number;
  if (lo >= n - 1) return xLo;
  const xHi = sortedValues[lo + 1] as number;
  return xLo + (h - lo) * (xHi - xLo);
}

/** Quantiles of unsorted values with the sample count they rest on (NaN values are dropped). */
export interface QuantilesResult {
  /** Number of values the quantiles were computed from (after dropping NaN). */
  n: number;
  /** One type-7 quantile per requested q, in the order asked. */
  values: number[];
}

/** Ascending numeric copy of `values` without NaN. */
export function sortedFinite(values: readonly number[]): number[] {
  return values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
}

/** Sorts once, then answers every q (type 7). NaN values are dropped and not counted in n. */
export function quantiles(values: readonly number[], qs: readonly number[]): QuantilesResult {
  const sorted = sortedFinite(values);
  return { n: sorted.length, values: qs.map((q) => quantile(sorted, q)) };
}

/** Median of unsorted values (type 7, so the mean of the two middle values when n is even). */
export function median(values: readonly number[]): number {
  return quantile(sortedFinite(values), 0.5);
}
