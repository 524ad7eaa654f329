import { describe, expect, it } from 'vitest';
import { driftTest } from './drift-test.ts';

const range = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));
const labels = (counts: Record<string, number>): string[] => Object.entries(counts).flatMap(([k, n]) => new Array<string>(n).fill(k));

describe('driftTest: numeric', () => {
  it('uses KS up to 1000 reference rows', () => {
    // ref 0…499, cur 100…599: F_ref − F_cur peaks at x = 99…: 100/500 = 0.2
    const ref = range(500, (i) => i);
    const r = driftTest(
      ref,
      ref.map((v) => v + 100),
      'numeric',
    );
    expect(r.method).toBe('ks');
    expect(r.threshold).toBe(0.05);
    expect(r.statistic).toBeCloseTo(0.2, 12);
    expect(r.drift).toBe(true);
    expect(r.nRef).toBe(500);
  });

  it('uses normed Wasserstein above 1000 rows, threshold 0.1', () => {
    // uniform on [0, 1): sd ≈ 0.2887; a shift of 0.02 → W = 0.02 → 0.0693 < 0.1; 0.05 → 0.173 ≥ 0.1
    const ref = range(2000, (i) => i / 2000);
    const near = driftTest(
      ref,
      ref.map((v) => v + 0.02),
      'numeric',
    );
    expect(near.method).toBe('wasserstein_normed');
    expect(near.pValue).toBeNull();
    expect(near.statistic).toBeCloseTo(0.02 / Math.sqrt((2000 * 2000 - 1) / 12 / 2000 / 2000), 6);
    expect(near.drift).toBe(false);
    expect(
      driftTest(
        ref,
        ref.map((v) => v + 0.05),
        'numeric',
      ).drift,
    ).toBe(true);
  });

  it('answers not_enough_data below 30 rows on either side, naming the method it would use', () => {
    const r = driftTest(
      range(29, (i) => i),
      range(100, (i) => i),
      'numeric',
    );
    expect(r).toMatchObject({ method: 'ks', verdict: 'not_enough_data', drift: false, nRef: 29, nCur: 100, pValue: null });
    expect(
      driftTest(
        range(100, (i) => i),
        range(10, (i) => i),
        'numeric',
        { minSamples: 5 },
      ).verdict,
    ).not.toBe('not_enough_data');
  });
});

describe('driftTest: categorical', () => {
  it('uses chi-square for three or more categories up to 1000 rows', () => {
    // counts as chi-square-test.test.ts: [50, 30, 20] vs [40, 40, 20] → χ² 2.5397, p 0.2809
    const r = driftTest(labels({ ok: 50, empty: 30, refused: 20 }), labels({ ok: 40, empty: 40, refused: 20 }), 'categorical');
    expect(r.method).toBe('chi_square');
    expect(r.statistic).toBeCloseTo(2.5396825396825395, 12);
    expect(r.verdict).toBe('no_drift');
  });

  it('uses the two-proportion z-test for a binary column', () => {
    // first label 'no': 170/200 vs 180/200 → as two-proportion-z.test.ts (30 vs 20 'yes'), z = −1.51186
    const r = driftTest(labels({ no: 170, yes: 30 }), labels({ no: 180, yes: 20 }), 'categorical');
    expect(r.method).toBe('z');
    expect(r.statistic).toBeCloseTo(-1.5118578920369083, 12);
    expect(r.pValue).toBeCloseTo(0.13057001811573637, 10);
  });

  it('uses Jensen–Shannon above 1000 rows', () => {
    // identical shares (⅓ each) → distance 0, no drift; all mass on 'a' vs ⅓ each:
    // m = [⅔, ⅙, ⅙], JSD = ½·(⅓·log2(½)·1 + 2·⅓·log2 2) + ½·log2(3/2) = 0.1667 + 0.2925 = 0.4591 → 0.678
    const r = driftTest(labels({ a: 600, b: 600, c: 600 }), labels({ a: 100, b: 100, c: 100 }), 'categorical');
    expect(r.method).toBe('jensen_shannon');
    expect(r.statistic).toBeCloseTo(0, 7);
    expect(r.drift).toBe(false);
    const moved = driftTest(labels({ a: 600, b: 600, c: 600 }), labels({ a: 300 }), 'categorical');
    expect(moved.statistic).toBeCloseTo(Math.sqrt(0.5 * (-1 / 3 + 2 / 3) + 0.5 * Math.log2(1.5)), 12);
    expect(moved.drift).toBe(true);
  });
});
