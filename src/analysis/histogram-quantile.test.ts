import { describe, expect, it } from 'vitest';
import { histogramQuantile, parseLe } from './histogram-quantile.ts';

const B = [
  { le: 0.1, count: 3 },
  { le: 0.25, count: 8 },
  { le: 0.5, count: 9 },
  { le: Infinity, count: 10 },
];

describe('histogramQuantile (Prometheus histogram_quantile)', () => {
  it('interpolates inside the bucket that holds the rank (worked in the file comment)', () => {
    expect(histogramQuantile(0.5, B)).toBeCloseTo(0.16, 12);
    expect(histogramQuantile(0.2, B)).toBeCloseTo(0.1 * (2 / 3), 12);
    // rank 9 is the top of (0.25, 0.5]
    expect(histogramQuantile(0.9, B)).toBeCloseTo(0.5, 12);
    // beyond the last finite bound: that bound
    expect(histogramQuantile(0.95, B)).toBe(0.5);
    expect(histogramQuantile(0.99, [...B].reverse())).toBe(0.5);
  });

  it('matches Prometheus on its documented case: 100 observations spread evenly over (0, 1]', () => {
    // le 0.25: 25, 0.5: 50, 1: 100, +Inf: 100 → P90 = 0.5 + 0.5 × (90 − 50) / 50 = 0.9
    const even = [
      { le: 0.25, count: 25 },
      { le: 0.5, count: 50 },
      { le: 1, count: 100 },
      { le: Infinity, count: 100 },
    ];
    expect(histogramQuantile(0.9, even)).toBeCloseTo(0.9, 12);
    expect(histogramQuantile(0.1, even)).toBeCloseTo(0.1, 12);
  });

  it('is monotone in q', () => {
    const qs = [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99];
    const v = qs.map((q) => histogramQuantile(q, B)!);
    for (let i = 1; i < v.length; i++) expect(v[i]!).toBeGreaterThanOrEqual(v[i - 1]!);
  });

  it('has no answer without observations or without a +Inf bucket', () => {
    expect(
      histogramQuantile(
        0.5,
        B.map((b) => ({ ...b, count: 0 })),
      ),
    ).toBeNull();
    expect(histogramQuantile(0.5, B.slice(0, 3))).toBeNull();
    expect(histogramQuantile(0.5, [])).toBeNull();
  });

  it('lifts counts that go down to the running maximum; a first bucket at or below 0 answers its bound', () => {
    // 0.25 reads 2 after 0.1 read 3 (summed from mismatched series): treated as 3, so (0.25, 0.5]
    // holds 4 − 3 = 1 and rank 0.875 × 4 = 3.5 is its middle: 0.25 + 0.25 × 0.5 = 0.375 (not 0.4375).
    expect(
      histogramQuantile(0.875, [
        { le: 0.1, count: 3 },
        { le: 0.25, count: 2 },
        { le: 0.5, count: 4 },
        { le: Infinity, count: 4 },
      ]),
    ).toBeCloseTo(0.375, 12);
    expect(
      histogramQuantile(0.1, [
        { le: -1, count: 5 },
        { le: Infinity, count: 10 },
      ]),
    ).toBe(-1);
  });

  it('reads le labels', () => {
    expect(['0.005', '+Inf', '1e-3', '', 'x'].map(parseLe)).toEqual([0.005, Infinity, 0.001, NaN, NaN]);
  });
});
