import { describe, expect, it } from 'vitest';
import { median, quantile, quantiles } from './quantile.ts';

describe('quantile (Hyndman–Fan type 7)', () => {
  // numpy: np.quantile([1, 2, 3, 4, 10], [0, .25, .5, .9, .99, 1]) = [1, 2, 3, 7.6, 9.76, 10]
  // q = 0.99: h = 4·0.99 = 3.96 → 4 + 0.96·(10 − 4) = 9.76
  it('matches numpy on a worked example', () => {
    const xs = [1, 2, 3, 4, 10];
    const expected = [1, 2, 3, 7.6, 9.76, 10];
    [0, 0.25, 0.5, 0.9, 0.99, 1].forEach((q, i) => expect(quantile(xs, q)).toBeCloseTo(expected[i] as number, 12));
  });

  it('interpolates between the two middle values for an even count', () => {
    // h = 3·0.5 = 1.5 → 2 + 0.5·(3 − 2) = 2.5
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('returns NaN for empty input or q outside [0, 1]', () => {
    expect(quantile([], 0.5)).toBeNaN();
    expect(quantile([1, 2], -0.1)).toBeNaN();
    expect(quantile([1, 2], 1.1)).toBeNaN();
    expect(quantile([1, 2], NaN)).toBeNaN();
  });

  it('returns the single value for n = 1 at every q', () => {
    expect(quantile([7], 0)).toBe(7);
    expect(quantile([7], 0.99)).toBe(7);
  });

  it('is monotone in q and bounded by min and max', () => {
    const xs = Array.from({ length: 97 }, (_, i) => Math.sin(i) * 100).sort((a, b) => a - b);
    let prev = -Infinity;
    for (let q = 0; q <= 1.0000001; q += 0.01) {
      const v = quantile(xs, Math.min(q, 1));
      expect(v).toBeGreaterThanOrEqual(prev);
      prev = v;
    }
    expect(quantile(xs, 0)).toBe(xs[0]);
    expect(quantile(xs, 1)).toBe(xs[96]);
  });
});

describe('quantiles', () => {
  it('sorts once, keeps the order of qs, reports n and drops NaN', () => {
    const r = quantiles([10, NaN, 4, 1, 3, 2], [0.99, 0.5]);
    expect(r.n).toBe(5);
    expect(r.values[0]).toBeCloseTo(9.76, 12);
    expect(r.values[1]).toBe(3);
  });
});
