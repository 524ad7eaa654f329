import { describe, expect, it } from 'vitest';
import { mulberry32, sampleWithoutReplacement } from './prng.ts';

describe('mulberry32', () => {
  it('is deterministic per seed and stays in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(c()).not.toBe(xs[0]);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    // roughly uniform: mean of 1000 draws within 0.5 ± 0.05 (sd of the mean is 0.009)
    expect(Math.abs(xs.reduce((s, x) => s + x, 0) / 1000 - 0.5)).toBeLessThan(0.05);
  });
});

describe('sampleWithoutReplacement', () => {
  it('draws distinct elements, deterministically', () => {
    const values = Array.from({ length: 100 }, (_, i) => i);
    const s = sampleWithoutReplacement(values, 10, mulberry32(1));
    expect(new Set(s).size).toBe(10);
    expect(sampleWithoutReplacement(values, 10, mulberry32(1))).toEqual(s);
    expect(sampleWithoutReplacement([3, 1], 10, mulberry32(1))).toEqual([3, 1]);
  });
});
