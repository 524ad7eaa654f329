import { describe, expect, it } from 'vitest';
import { P2Quantile } from './p2-quantile.ts';

/**
 * A deterministic, well-spread stream in [0, 1) in scrambled order: the Weyl sequence frac(i·φ)
 * (no PRNG needed; the pipeline folder may not import analysis/prng).
 */
const weyl = (i: number): number => (i * 0.6180339887498949) % 1;

describe('P2Quantile', () => {
  it('is exact (type 7) for up to five values', () => {
    const q = new P2Quantile(0.5);
    expect(q.value()).toBeNaN();
    for (const x of [30, 10, 20]) q.add(x);
    // sorted 10, 20, 30: h = 2·0.5 = 1 → 20
    expect(q.value()).toBe(20);
    q.add(40);
    // 10..40: h = 3·0.5 = 1.5 → 20 + 0.5·10 = 25
    expect(q.value()).toBe(25);
  });

  it('tracks P1, P50 and P99 of a uniform stream within 2 % of the range', () => {
    const qs = [0.01, 0.5, 0.99].map((p) => new P2Quantile(p));
    for (let i = 1; i <= 20_000; i++) {
      const x = weyl(i) * 1000;
      for (const q of qs) q.add(x);
    }
    // Uniform on [0, 1000): the true quantiles are 10, 500 and 990.
    expect(Math.abs(qs[0]!.value() - 10)).toBeLessThan(20);
    expect(Math.abs(qs[1]!.value() - 500)).toBeLessThan(20);
    expect(Math.abs(qs[2]!.value() - 990)).toBeLessThan(20);
    expect(qs[0]!.seen).toBe(20_000);
  });

  it('tracks the P99 of a skewed (exponential) stream', () => {
    const q = new P2Quantile(0.99);
    for (let i = 1; i <= 50_000; i++) q.add(-Math.log(1 - weyl(i)) * 100);
    // Exponential with mean 100: P99 = −100·ln(0.01) = 460.5
    expect(Math.abs(q.value() - 460.5) / 460.5).toBeLessThan(0.05);
  });

  it('refuses a quantile outside (0, 1)', () => {
    expect(() => new P2Quantile(1)).toThrow(RangeError);
  });
});
