import { describe, expect, it } from 'vitest';
import { logHypergeometricPmf } from './hypergeometric.ts';

describe('logHypergeometricPmf', () => {
  it('matches the hand-computed small case', () => {
    // N = 8, K = 4 bad, n = 4 drawn: C(4,x)·C(4,4−x)/70 = 1, 16, 36, 16, 1 (/70)
    [1, 16, 36, 16, 1].forEach((c, x) => expect(Math.exp(logHypergeometricPmf(x, 8, 4, 4))).toBeCloseTo(c / 70, 14));
    expect(logHypergeometricPmf(5, 8, 4, 4)).toBe(-Infinity);
  });

  // scipy.stats.hypergeom.logpmf(x, M=total, n=bad, N=drawn); the N = 10⁸ row from 40-digit mpmath
  // (ln C(K,x) + ln C(N−K,n−x) − ln C(N,n)), where scipy's logpmf (a betaln sum) gives −12.5448093637.
  const cases: Array<[number, number, number, number, number]> = [
    [3, 20, 7, 12, -1.6161684581629294],
    [5000, 100_000_000, 10_400, 50_000_000, -12.544809210033325],
    [0, 1000, 3, 10, -0.030181361443283095],
    [10, 10, 10, 10, 0],
  ];
  it.each(cases)('x=%i N=%i K=%i n=%i → scipy %f', (x, total, bad, n, expected) => {
    expect(logHypergeometricPmf(x, total, bad, n)).toBeCloseTo(expected, 11);
  });
});
