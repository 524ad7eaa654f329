/**
 * The request rate over time: a daily cycle, minute-to-minute noise and occasional bursts. It is a
 * pure function of the wall-clock time and a seed, so the backfilled history and the live traffic
 * follow the same curve and meet without a jump at "now".
 *
 *   rate(t) = mean × (1 + amplitude · cos(2π (hour(t) − peakHour) / 24)) × noise(t) × burst(t)
 *
 * Worked numbers (mean 6 req/s, amplitude 0.5, peak 15:00 UTC): 9 req/s at 15:00, 3 req/s at
 * 03:00, 6 req/s at 09:00 and 21:00; the daily mean is 6 req/s (the cosine averages to 0).
 * noise(t) is exp(σ·z) with z of unit variance drawn per minute from a hash and interpolated
 * linearly between minutes (σ 0.15: ±15 % wobble); a burst multiplies by `burstFactor` for 1–4
 * minutes, starting in an hour with probability burstsPerDay / 24.
 */
import { fnv1a } from '../model/index.ts';

export interface RateOptions {
  /** Daily mean, requests per second. */
  meanRatePerS: number;
  amplitude?: number;
  /** Hour of day (UTC) of the daily peak. */
  peakHourUtc?: number;
  noiseSigma?: number;
  burstsPerDay?: number;
  burstFactor?: number;
  seed?: number;
}

export interface RateModel {
  /** Requests per second at wall-clock `tsMs` (before any multiplier a scenario applies). */
  ratePerS(tsMs: number): number;
  readonly meanRatePerS: number;
  /** The largest rate the curve reaches (peak of the day, noise and a burst included, roughly). */
  readonly peakRatePerS: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Uniform in [0, 1) from a string key. */
function hashUnit(key: string): number {
  return fnv1a(key) / 4_294_967_296;
}

export function createRateModel(options: RateOptions): RateModel {
  const mean = options.meanRatePerS;
  if (!(mean > 0)) throw new Error(`meanRatePerS must be > 0, got ${mean}`);
  const amplitude = options.amplitude ?? 0.5;
  const peakHour = options.peakHourUtc ?? 15;
  const sigma = options.noiseSigma ?? 0.15;
  const burstsPerDay = options.burstsPerDay ?? 6;
  const burstFactor = options.burstFactor ?? 2;
  const seed = options.seed ?? 1;
  // z of unit variance from a uniform: (u − ½) · √12
  const zAt = (minute: number): number => (hashUnit(`${seed}:noise:${minute}`) - 0.5) * Math.sqrt(12);
  const burstAt = (tsMs: number): number => {
    const hour = Math.floor(tsMs / HOUR_MS);
    for (const h of [hour, hour - 1]) {
      if (hashUnit(`${seed}:burst:${h}`) >= burstsPerDay / 24) continue;
      const startMs = h * HOUR_MS + Math.floor(hashUnit(`${seed}:burst-at:${h}`) * 60) * MINUTE_MS;
      const lengthMs = (1 + Math.floor(hashUnit(`${seed}:burst-len:${h}`) * 4)) * MINUTE_MS;
      if (tsMs >= startMs && tsMs < startMs + lengthMs) return burstFactor;
    }
    return 1;
  };
  return {
    meanRatePerS: mean,
    peakRatePerS: mean * (1 + amplitude) * Math.exp(sigma * Math.sqrt(3)) * burstFactor,
    ratePerS(tsMs) {
      const hourOfDay = (((tsMs % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS;
      const daily = 1 + amplitude * Math.cos((2 * Math.PI * (hourOfDay - peakHour)) / 24);
      const m = tsMs / MINUTE_MS;
      const m0 = Math.floor(m);
      const z = zAt(m0) + (zAt(m0 + 1) - zAt(m0)) * (m - m0);
      return mean * daily * Math.exp(sigma * z) * burstAt(tsMs);
    },
  };
}

/** A Poisson draw with mean `lambda` (Knuth for small means, a rounded normal above 30). */
export function poisson(lambda: number, random: () => number): number {
  if (!(lambda > 0)) return 0;
  if (lambda > 30) {
    const u1 = Math.max(random(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * z));
  }
  const limit = Math.exp(-lambda);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k++;
  return k;
}
