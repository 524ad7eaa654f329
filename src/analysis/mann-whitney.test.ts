import { describe, expect, it } from 'vitest';
import { mannWhitneyU } from './mann-whitney.ts';

describe('mannWhitneyU', () => {
  it('matches a small worked example without ties', () => {
    // x = [1, 2, 3], y = [4, 6, 8]: every y beats every x → U_y = 9, U_x = 0
    // μ = 4.5, σ² = 9·7/12 = 5.25, z = (9 − 4.5 − 0.5)/2.291288 = 1.745743
    // scipy mannwhitneyu(method='asymptotic') p = 0.08085559837005224
    const r = mannWhitneyU([1, 2, 3], [4, 6, 8]);
    expect(r).toMatchObject({ nX: 3, nY: 3, uX: 0, uY: 9 });
    expect(r.z).toBeCloseTo(4 / Math.sqrt(5.25), 12);
    expect(r.pValue).toBeCloseTo(0.08085559837005224, 12);
  });

  it('applies the tie correction (worked in mann-whitney.ts)', () => {
    // scipy: statistic (U_x) 5.0, p = 0.07724878165472977
    const r = mannWhitneyU([1, 2, 2, 3, 5], [2, 4, 5, 5, 6, 7]);
    expect(r.uX).toBe(5);
    expect(r.uY).toBe(25);
    expect(r.z).toBeCloseTo(9.5 / Math.sqrt(2.5 * (12 - 48 / 110)), 12);
    expect(r.pValue).toBeCloseTo(0.07724878165472977, 12);
  });

  it('is antisymmetric in its arguments and gives p = 1 for identical samples', () => {
    const a = mannWhitneyU([1, 5, 7, 9], [2, 3, 4]);
    const b = mannWhitneyU([2, 3, 4], [1, 5, 7, 9]);
    expect(b.z).toBeCloseTo(-a.z, 12);
    expect(b.pValue).toBeCloseTo(a.pValue, 12);
    expect(mannWhitneyU([1, 2, 3], [1, 2, 3]).pValue).toBe(1);
    expect(mannWhitneyU([], [1]).pValue).toBe(1);
  });

  it('matches scipy on a shift of 5 over 1…10', () => {
    // scipy: U_x = 12.5, p = 0.005075392315273923
    const x = Array.from({ length: 10 }, (_, i) => i + 1);
    const r = mannWhitneyU(
      x,
      x.map((v) => v + 5),
    );
    expect(r.uX).toBe(12.5);
    expect(r.pValue).toBeCloseTo(0.005075392315273923, 12);
  });
});
