import { describe, expect, it } from 'vitest';
import { populationStd, wassersteinDistance, wassersteinNormed } from './wasserstein.ts';

describe('wassersteinDistance', () => {
  it('matches scipy.stats.wasserstein_distance', () => {
    // every point moves by 1 → 1
    expect(wassersteinDistance([1, 2, 3, 4], [2, 3, 4, 5])).toBe(1);
    // [0, 1, 3] vs [5, 6, 8, 9, 10]: scipy / np.std([0, 1, 3]) = 5.024511347953579
    expect(wassersteinDistance([0, 1, 3], [5, 6, 8, 9, 10]) / populationStd([0, 1, 3])).toBeCloseTo(5.024511347953579, 12);
  });

  it('integrates |F_a − F_b| by hand with unequal sizes', () => {
    // a = [0, 2], b = [1]: on [0, 1) F_a = .5, F_b = 0 → .5; on [1, 2) F_a = .5, F_b = 1 → .5 → W = 1
    expect(wassersteinDistance([0, 2], [1])).toBe(1);
    expect(wassersteinDistance([3, 1, 2], [2, 3, 1])).toBe(0);
  });
});

describe('wassersteinNormed', () => {
  it('divides by the reference population standard deviation', () => {
    // W = 1, sd([1, 2, 3, 4]) = √1.25 = 1.118034 → 0.894427
    const r = wassersteinNormed([1, 2, 3, 4], [2, 3, 4, 5]);
    expect(r.statistic).toBeCloseTo(1 / Math.sqrt(1.25), 14);
    expect(r).toMatchObject({ method: 'wasserstein_normed', pValue: null, threshold: 0.1, drift: true, nRef: 4, nCur: 4 });
  });

  it('handles a constant reference', () => {
    expect(wassersteinNormed([2, 2, 2], [2, 2]).statistic).toBe(0);
    expect(wassersteinNormed([2, 2, 2], [3]).statistic).toBe(Infinity);
    expect(wassersteinNormed([], [3]).verdict).toBe('not_enough_data');
  });
});
