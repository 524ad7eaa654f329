/**
 * Cumulative values → per-interval values, per scrape target.
 *
 * Counters become `<concept>_per_second`: (value − previous) / Δt. A value lower than the previous
 * one is a counter reset (the process restarted), and the increase is the new value itself:
 * previous 100 at t=0 s, now 30 at t=10 s → 30 / 10 = 3 per second (not −7).
 * Histogram buckets become the number of observations that fell at or below `le` during the
 * interval (`<concept>_bucket{le}`), their count and sum become rates, and the interval mean is
 * Δsum / Δcount: sum 0.3 → 1.5 s and count 1 → 5 over the interval give a mean of 1.2 / 4 = 0.3 s.
 * The first scrape of a series only primes the state: a rate needs two points.
 *
 * The state is bounded: at most `maxSeries` series are tracked (new ones beyond that are counted
 * in `dropped` and produce no rate), and series not seen for `staleAfterMs` are forgotten.
 */
import type { MappedSample } from './engines.ts';
import { labelKey } from './parse.ts';

export interface DerivedSample {
  metric: string;
  labels: Record<string, string>;
  value: number;
}

export interface RateStateOptions {
  /** Default 20,000 series per target. */
  maxSeries?: number;
  /** Default 15 minutes. */
  staleAfterMs?: number;
}

export interface RateState {
  /** Converts one scrape's mapped samples taken at `tsMs` (epoch ms). */
  apply(samples: readonly MappedSample[], tsMs: number): DerivedSample[];
  /** Series currently tracked. */
  size(): number;
  /** Series not tracked because the state was full (cumulative). */
  dropped(): number;
  /** Counter resets seen (cumulative). */
  resets(): number;
}

interface Prev {
  value: number;
  tsMs: number;
}

export function createRateState(options: RateStateOptions = {}): RateState {
  const maxSeries = options.maxSeries ?? 20_000;
  const staleAfterMs = options.staleAfterMs ?? 15 * 60_000;
  const prev = new Map<string, Prev>();
  let dropped = 0;
  let resets = 0;

  /** The increase since the previous scrape and the seconds between them; undefined on the first scrape. */
  const delta = (key: string, value: number, tsMs: number): { inc: number; dtS: number } | undefined => {
    const p = prev.get(key);
    if (!p) {
      if (prev.size >= maxSeries) dropped++;
      else prev.set(key, { value, tsMs });
      return undefined;
    }
    if (tsMs <= p.tsMs) return undefined;
    let inc = value - p.value;
    if (inc < 0) {
      resets++;
      inc = value;
    }
    const dtS = (tsMs - p.tsMs) / 1000;
    p.value = value;
    p.tsMs = tsMs;
    return { inc, dtS };
  };

  return {
    apply(samples, tsMs) {
      const out: DerivedSample[] = [];
      const pairs = new Map<string, { concept: string; labels: Record<string, string>; sum?: number; count?: number }>();
      for (const s of samples) {
        if (s.part === 'gauge' || s.part === 'quantile') {
          out.push({ metric: s.concept, labels: s.labels, value: s.value });
          continue;
        }
        const lk = labelKey(s.labels);
        const d = delta(`${s.part}\u0002${s.concept}\u0002${lk}`, s.value, tsMs);
        if (!d) continue;
        if (s.part === 'counter') {
          out.push({ metric: `${s.concept}_per_second`, labels: s.labels, value: d.inc / d.dtS });
        } else if (s.part === 'bucket') {
          out.push({ metric: `${s.concept}_bucket`, labels: s.labels, value: d.inc });
        } else {
          out.push({ metric: `${s.concept}_${s.part}_per_second`, labels: s.labels, value: d.inc / d.dtS });
          const pk = `${s.concept}\u0002${lk}`;
          const pair = pairs.get(pk) ?? { concept: s.concept, labels: s.labels };
          pair[s.part] = d.inc;
          pairs.set(pk, pair);
        }
      }
      for (const p of pairs.values())
        if (p.sum !== undefined && p.count !== undefined && p.count > 0) out.push({ metric: `${p.concept}_mean`, labels: p.labels, value: p.sum / p.count });
      for (const [k, p] of prev) if (tsMs - p.tsMs > staleAfterMs) prev.delete(k);
      return out;
    },
    size: () => prev.size,
    dropped: () => dropped,
    resets: () => resets,
  };
}
