import { describe, expect, it } from 'vitest';
import { wilson } from './wilson.ts';

describe('wilson', () => {
  it('3 of 200 → 1.5 %, 0.5114 %–4.3166 %', () => {
    // p̂ = 0.015, z² = 3.8416, 1 + z²/n = 1.019208
    // centre = (0.015 + 0.009604)/1.019208 = 0.0241404
    // half   = 1.96·√(0.015·0.985/200 + 3.8416/160000)/1.019208 = 1.96·√9.7885e−5/1.019208 = 0.0190262
    // Python reference: 0.005114145184492387, 0.043166480556278884
    const r = wilson(3, 200);
    expect(r.rate).toBe(0.015);
    expect(r.lo).toBeCloseTo(0.005114145184492387, 14);
    expect(r.hi).toBeCloseTo(0.043166480556278884, 14);
  });

  it('9 of 30 → 16.66 %–47.88 %', () => {
    const r = wilson(9, 30);
    expect(r.lo).toBeCloseTo(0.16664562643958933, 14);
    expect(r.hi).toBeCloseTo(0.4787612101166018, 14);
  });

  it('0 of 50 has lo exactly 0 and hi = z²/(n + z²) = 3.8416/53.8416 = 7.135 %', () => {
    const r = wilson(0, 50);
    expect(r.lo).toBe(0);
    expect(r.hi).toBeCloseTo(3.8416 / 53.8416, 14);
  });

  it('n = 0 → rate NaN, interval [0, 1]', () => {
    expect(wilson(0, 0)).toEqual({ rate: NaN, lo: 0, hi: 1 });
  });

  it('contains the rate and is symmetric under k ↔ n − k', () => {
    for (const [k, n] of [
      [1, 7],
      [5, 11],
      [40, 41],
    ] as const) {
      const a = wilson(k, n);
      const b = wilson(n - k, n);
      expect(a.lo).toBeLessThanOrEqual(a.rate);
      expect(a.hi).toBeGreaterThanOrEqual(a.rate);
      expect(a.lo).toBeCloseTo(1 - b.hi, 12);
    }
  });

  it('rejects k > n and negative counts', () => {
    expect(() => wilson(3, 2)).toThrow(/0 ≤ k ≤ n/);
    expect(() => wilson(-1, 2)).toThrow();
  });
});
