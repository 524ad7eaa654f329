/**
 * Log-spaced latency histogram bounds: upper bucket edges minMs·10^(i/perDecade) for i = 0, 1, …
 * up to the first edge ≥ maxMs, rounded to 6 significant digits so decades are exact (0.1, 1, 10).
 * Each step is ×10^(1/perDecade): ×1.2589 (+25.9 %) at 10 per decade, so a value's bucket pins it
 * within 26 %. Defaults 0.1 ms … 60 s at 10 per decade: i = 0 … ⌈10·log10(600000)⌉ = 58, 59 edges,
 * the last 10^4.8 = 63095.7 ms.
 *
 * Buckets follow Prometheus `le` semantics: bucket i holds bounds[i−1] < v ≤ bounds[i]; bucket 0
 * holds everything ≤ bounds[0]; bucket bounds.length is the overflow (+Inf).
 */
import { InferlensError } from '../schema/index.ts';

/** Ascending upper edges in ms, log-spaced, from minMs to the first edge ≥ maxMs. */
export function logBuckets(minMs = 0.1, maxMs = 60_000, perDecade = 10): number[] {
  if (!(minMs > 0 && maxMs >= minMs && Number.isFinite(maxMs) && Number.isInteger(perDecade) && perDecade >= 1 && perDecade <= 1000)) {
    throw new InferlensError('invalid_argument', `logBuckets: need 0 < minMs ≤ maxMs and an integer perDecade in 1…1000, got ${minMs}, ${maxMs}, ${perDecade}`);
  }
  const start = Math.log10(minMs) * perDecade;
  const steps = Math.ceil(Math.log10(maxMs / minMs) * perDecade - 1e-9);
  const bounds: number[] = [];
  for (let i = 0; i <= steps; i++) bounds.push(Number((10 ** ((start + i) / perDecade)).toPrecision(6)));
  return bounds;
}

/**
 * Index of the bucket holding v: the first i with v ≤ bounds[i], bounds.length when v exceeds the
 * last edge, −1 for NaN. Binary search, O(log n).
 */
export function bucketIndex(bounds: readonly number[], v: number): number {
  if (Number.isNaN(v)) return -1;
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (v <= (bounds[mid] as number)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
