import { describe, expect, it } from 'vitest';
import { jensenShannonDistance } from './jensen-shannon.ts';

describe('jensenShannonDistance', () => {
  it('matches the worked example and scipy', () => {
    // scipy.spatial.distance.jensenshannon([.5, .5], [1, 0], base=2) = 0.5579230452841438
    expect(jensenShannonDistance([1, 1], [2, 0]).statistic).toBeCloseTo(0.5579230452841438, 14);
    // scipy: jensenshannon([10, 20, 30], [20, 20, 20], base=2) = 0.1803606400066241
    const r = jensenShannonDistance([10, 20, 30], [20, 20, 20]);
    expect(r.statistic).toBeCloseTo(0.1803606400066241, 14);
    expect(r).toMatchObject({ method: 'jensen_shannon', pValue: null, threshold: 0.1, drift: true, nRef: 60, nCur: 60 });
  });

  it('is 0 for identical and 1 for disjoint distributions', () => {
    expect(jensenShannonDistance({ ok: 9, refused: 1 }, { refused: 2, ok: 18 }).statistic).toBeCloseTo(0, 7);
    expect(jensenShannonDistance({ a: 5 }, { b: 7 }).statistic).toBe(1);
  });

  it('is symmetric', () => {
    const a = jensenShannonDistance([1, 2, 3, 0], [0, 3, 2, 1]).statistic;
    expect(jensenShannonDistance([0, 3, 2, 1], [1, 2, 3, 0]).statistic).toBeCloseTo(a, 14);
  });

  it('answers not_enough_data on an empty side', () => {
    expect(jensenShannonDistance([0, 0], [1, 1]).verdict).toBe('not_enough_data');
  });
});
