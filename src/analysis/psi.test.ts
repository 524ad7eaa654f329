import { describe, expect, it } from 'vitest';
import { psi, psiNumeric } from './psi.ts';

describe('psi', () => {
  it('matches the worked example', () => {
    // (0.6 − 0.5)·ln(0.6/0.5) + (0.4 − 0.5)·ln(0.4/0.5) = 0.0182322 + 0.0223144 = 0.0405465
    const r = psi([50, 50], [60, 40]);
    expect(r.statistic).toBeCloseTo(0.040546510810816436, 14);
    expect(r).toMatchObject({ method: 'psi', pValue: null, threshold: 0.1, drift: false, verdict: 'no_drift', level: 'stable', nRef: 100, nCur: 100 });
  });

  it('is 0 for identical distributions, whatever the sample sizes', () => {
    expect(psi([10, 20, 30], [10, 20, 30]).statistic).toBe(0);
    expect(psi([10, 20, 30], [100, 200, 300]).statistic).toBeCloseTo(0, 14);
    expect(psi({ a: 1, b: 3 }, { b: 6, a: 2 }).statistic).toBeCloseTo(0, 14);
  });

  it('floors empty bins and flags a big shift', () => {
    // ref [100, 0] → [1, 1e−4]; cur [50, 50] → [0.5, 0.5]:
    // (0.5 − 1)·ln 0.5 + (0.5 − 1e−4)·ln(0.5/1e−4) = 0.346574 + 4.257441 = 4.604015
    const r = psi([100, 0], [50, 50]);
    expect(r.statistic).toBeCloseTo(0.5 * Math.log(2) + 0.4999 * Math.log(5000), 10);
    expect(r.level).toBe('significant');
    expect(r.drift).toBe(true);
  });

  it('is symmetric and non-negative', () => {
    const a = psi([5, 10, 30, 55], [20, 25, 30, 25]).statistic;
    expect(a).toBeGreaterThan(0);
    expect(psi([20, 25, 30, 25], [5, 10, 30, 55]).statistic).toBeCloseTo(a, 12);
  });

  it('answers not_enough_data for an empty window and rejects misaligned bins', () => {
    expect(psi([0, 0], [1, 2]).verdict).toBe('not_enough_data');
    expect(() => psi([1, 2], [1, 2, 3])).toThrow(/bins/);
  });
});

describe('psiNumeric', () => {
  const ref = Array.from({ length: 100 }, (_, i) => i);

  it('cuts the reference into equal bins and gives 0 for the same sample', () => {
    // edges: type-7 quantiles at 0.1…0.9 of 0…99 = 9.9, 19.8, …, 89.1 → 10 bins of 10 values
    const r = psiNumeric(ref, ref);
    expect(r.edges).toHaveLength(9);
    expect(r.edges[0]).toBeCloseTo(9.9, 12);
    expect(r.refCounts).toEqual(new Array(10).fill(10));
    expect(r.statistic).toBe(0);
  });

  it('detects a shift of half the range', () => {
    // cur = 50…149: bins 0–4 empty (floored at 1e−4), bins 5–8 get 10 each, the last bin 60.
    // PSI = 5·(1e−4 − 0.1)·ln(1e−3) + 0 + (0.6 − 0.1)·ln 6 = 3.450424 + 0.895880 = 4.346303
    const cur = ref.map((v) => v + 50);
    const r = psiNumeric(ref, cur);
    expect(r.curCounts).toEqual([0, 0, 0, 0, 0, 10, 10, 10, 10, 60]);
    expect(r.statistic).toBeCloseTo(5 * (1e-4 - 0.1) * Math.log(1e-3) + 0.5 * Math.log(6), 10);
    expect(r.level).toBe('significant');
  });

  it('merges equal edges of a reference with repeated values', () => {
    // h = 9q: q = 0.1…0.7 → x at 0.9…6.3 = 1 (seven equal edges → one); q = 0.8 → h = 7.2 → 1 + 0.2·(2 − 1)
    // = 1.2; q = 0.9 → h = 8.1 → 2 + 0.1·(3 − 2) = 2.1. Bins: ≤ 1, (1, 1.2], (1.2, 2.1], > 2.1.
    const r = psiNumeric([1, 1, 1, 1, 1, 1, 1, 1, 2, 3], [1, 2, 3]);
    expect(r.edges).toHaveLength(3);
    expect(r.edges[1]).toBeCloseTo(1.2, 12);
    expect(r.edges[2]).toBeCloseTo(2.1, 12);
    expect(r.refCounts).toEqual([8, 0, 1, 1]);
    expect(r.curCounts).toEqual([1, 0, 1, 1]);
  });
});
