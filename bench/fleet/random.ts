/**
 * Seeded randomness for the fleet simulator, organised as independent streams.
 *
 * Every stream is a mulberry32 generator (src/analysis) seeded by a hash of (seed, stream kind,
 * a, b): traffic for model 3 in minute 412 is always the same numbers, whatever happened in other
 * minutes, other models, or in the incident streams. That is what makes the clean twin exact: the
 * incident effects draw only from their own streams and never shift a traffic draw.
 */
import { mulberry32 } from '../../src/analysis/index.ts';

export type Random = () => number;

/** Stream kinds; the numbers are part of the seed hash, so never renumber them. */
export const STREAM = {
  fleet: 1, // the fleet's shape (models, tenants, replicas)
  rate: 2, // per-model per-minute load noise, sequential over minutes
  traffic: 3, // per (model, minute): arrivals and every per-request draw
  probe: 4, // per (model × version, minute): golden probes
  resource: 5, // per (minute): resource noise
  nuisance: 6, // bursts, blips, isolated restarts (part of the clean traffic)
  incidentPlan: 7, // incident kinds, slices, times, magnitudes
  incidentEffect: 8, // per (incident, minute): which requests an incident touches
} as const;

/** 32-bit integer mix (murmur3 finaliser). */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The 32-bit seed of stream (kind, a, b) of a run seed. */
export function streamSeed(seed: number, kind: number, a = 0, b = 0): number {
  let h = mix32((seed >>> 0) ^ 0x9e3779b9);
  h = mix32(h ^ Math.imul(kind + 1, 0x27d4eb2f));
  h = mix32(h ^ Math.imul((a >>> 0) + 1, 0x165667b1));
  h = mix32(h ^ Math.imul((b >>> 0) + 1, 0x61c88647));
  return h;
}

/** A generator of floats in [0, 1) for stream (kind, a, b) of a run seed. */
export function stream(seed: number, kind: number, a = 0, b = 0): Random {
  return mulberry32(streamSeed(seed, kind, a, b));
}

/** A standard normal draw (Box–Muller; one of the pair, so the draw count per call is fixed at 2). */
export function normal(r: Random): number {
  const u = 1 - r(); // (0, 1]
  const v = r();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Lognormal with this median and log-sd: median · e^{σz}. */
export function lognormal(r: Random, median: number, sigma: number): number {
  return median * Math.exp(sigma * normal(r));
}

/** Uniform in [lo, hi). */
export function uniform(r: Random, lo: number, hi: number): number {
  return lo + (hi - lo) * r();
}

/** Integer uniform in [lo, hi] (both included). */
export function int(r: Random, lo: number, hi: number): number {
  return lo + Math.floor(r() * (hi - lo + 1));
}

/** One element, uniformly. */
export function pick<T>(r: Random, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(r() * items.length)] as T;
}

/** Fisher–Yates shuffle of a copy. */
export function shuffle<T>(r: Random, items: readonly T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    const t = out[i] as T;
    out[i] = out[j] as T;
    out[j] = t;
  }
  return out;
}

/**
 * A Poisson draw. λ < 30: Knuth's product of uniforms (≈ λ + 1 draws); above: the normal
 * approximation N(λ, λ) rounded, whose error at λ = 30 (skewness 0.18) does not matter for load.
 */
export function poisson(r: Random, lambda: number): number {
  if (!(lambda > 0)) return 0;
  if (lambda < 30) {
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = r();
    while (p > limit) {
      k++;
      p *= r();
    }
    return k;
  }
  return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * normal(r)));
}

/** Cumulative weights, for `pickCumulative`. */
export function cumulative(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let s = 0;
  for (let i = 0; i < weights.length; i++) out[i] = s += weights[i] as number;
  return out;
}

/** The index whose cumulative bucket holds u · total (binary search). */
export function pickCumulative(cum: Float64Array, u: number): number {
  const x = u * (cum[cum.length - 1] as number);
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cum[mid] as number) > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A Dirichlet-like perturbation of a probability vector: pᵢ·e^{σzᵢ}, renormalised. */
export function perturb(r: Random, probs: readonly number[], sigma: number): number[] {
  const w = probs.map((p) => p * Math.exp(sigma * normal(r)));
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

/** A short base-36 tag of n characters. */
export function tag(r: Random, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdefghijklmnopqrstuvwxyz'[Math.floor(r() * 36)];
  return s;
}
