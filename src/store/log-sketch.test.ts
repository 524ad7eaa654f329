import { describe, expect, it } from 'vitest';
import { SKETCH_GAMMA, SKETCH_RELATIVE_ERROR, ZERO_INDEX, sketchBoundIndex, sketchIndex, sketchQuantile, sketchUpperBound, sketchValue } from './log-sketch.ts';

describe('log sketch mapping (γ = 10^(1/120))', () => {
  it('has the hand-computed constants', () => {
    // γ = 10^(1/120) = e^(ln 10 / 120) = e^0.0191882 = 1.0193735; α = 0.0193735 / 2.0193735 = 0.0095938
    expect(SKETCH_GAMMA).toBeCloseTo(1.0193735, 7);
    expect(SKETCH_RELATIVE_ERROR).toBeCloseTo(0.0095938, 7);
  });

  it('maps values to ⌈log₁₀(v)·120⌉, bounds closing their bucket', () => {
    // 25 ms: log₁₀ 25 = 1.3979400 → ·120 = 167.75 → 168
    expect(sketchIndex(25)).toBe(168);
    // Exactly on bounds: 10^k/120 for k = −120, 0, 120, 240 (0.1, 1, 10, 100 ms).
    expect([0.1, 1, 10, 100].map(sketchIndex)).toEqual([-120, 0, 120, 240]);
    // Just above a bound opens the next bucket: 10.001 → log₁₀ = 1.0000434 → 120.005 → 121.
    expect(sketchIndex(10.001)).toBe(121);
    // 1 µs (the stored precision): log₁₀ 0.001 = −3 → −360.
    expect(sketchIndex(0.001)).toBe(-360);
    expect(sketchIndex(0)).toBe(ZERO_INDEX);
    expect(sketchIndex(-1)).toBe(ZERO_INDEX);
  });

  it('reads a bucket as 2γ^i/(γ+1), α from both ends', () => {
    // Bucket 168 holds (10^(167/120), 10^(168/120)] = (24.641473, 25.118864]; value 2·25.118864/2.0193735 = 24.877879
    expect(sketchUpperBound(168)).toBeCloseTo(25.118864, 6);
    expect(sketchUpperBound(167)).toBeCloseTo(24.641473, 6);
    expect(sketchValue(168)).toBeCloseTo(24.877879, 6);
    expect(sketchValue(168) / sketchUpperBound(167) - 1).toBeCloseTo(SKETCH_RELATIVE_ERROR, 12);
    expect(1 - sketchValue(168) / sketchUpperBound(168)).toBeCloseTo(SKETCH_RELATIVE_ERROR, 12);
    expect(sketchValue(ZERO_INDEX)).toBe(0);
  });

  it('type-7 quantile over buckets, interpolating between the two bucket values', () => {
    // 4 values in buckets 0 (×1), 120 (×2), 240 (×1): values v0 = 2/(γ+1) = 0.990407, v120 = 9.904062, v240 = 99.040620.
    const sk: [number, number][] = [
      [120, 2],
      [0, 1],
      [240, 1],
    ];
    const v = (i: number) => sketchValue(i);
    // q = 0.5: h = 0.5·3 = 1.5 → ranks 1 and 2 both in bucket 120 → 9.904062
    expect(sketchQuantile(sk, 0.5)).toBeCloseTo(v(120), 12);
    expect(v(120)).toBeCloseTo(9.904062, 6);
    // q = 0.9: h = 2.7 → rank 2 (bucket 120) and rank 3 (bucket 240): 9.904062 + 0.7·(99.040620 − 9.904062) = 72.299653
    expect(sketchQuantile(sk, 0.9)).toBeCloseTo(72.299653, 5);
    // q = 0.1: h = 0.3 → 0.990407 + 0.3·(9.904062 − 0.990407) = 3.664503
    expect(sketchQuantile(sk, 0.1)).toBeCloseTo(3.664503, 5);
    expect(sketchQuantile([], 0.5)).toBeNull();
  });

  it('is within α of the exact type-7 quantile', () => {
    const xs = Array.from({ length: 997 }, (_, i) => Math.round(((i * 7919) % 5000) * 1.37 + 0.5) / 1000 + 0.01).sort((a, b) => a - b);
    const counts = new Map<number, number>();
    for (const x of xs) counts.set(sketchIndex(x), (counts.get(sketchIndex(x)) ?? 0) + 1);
    for (const q of [0.01, 0.25, 0.5, 0.9, 0.99, 0.999]) {
      const h = q * (xs.length - 1);
      const exact = xs[Math.floor(h)]! + (h - Math.floor(h)) * (xs[Math.ceil(h)]! - xs[Math.floor(h)]!);
      expect(Math.abs(sketchQuantile([...counts], q)! / exact - 1)).toBeLessThanOrEqual(SKETCH_RELATIVE_ERROR + 1e-12);
    }
  });

  it('knows which bounds are its own (the heatmap scale, 6 significant digits)', () => {
    expect(sketchBoundIndex(0.1)).toBe(-120);
    // 10^(1/10) · 0.1 written as 0.125893 (10^(−108/120) = 0.12589254)
    expect(sketchBoundIndex(0.125893)).toBe(-108);
    expect(sketchBoundIndex(60000)).toBeUndefined();
    expect(sketchBoundIndex(0)).toBeUndefined();
  });
});
