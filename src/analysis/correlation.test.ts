import { describe, expect, it } from 'vitest';
import { averageRanks, pearson, spearman } from './correlation.ts';

describe('correlation', () => {
  it('Pearson on a small worked example', () => {
    // x = 1..5, y = 2, 4, 5, 4, 5: mean x 3, mean y 4; Σdxdy = (−2)(−2)+(−1)(0)+0+(1)(0)+(2)(1) = 6;
    // Σdx² = 10, Σdy² = 4+0+1+0+1 = 6 → r = 6/√60 = 0.774597. t = r·√(3/(1−0.6)) = 2.12132,
    // two-sided p with 3 df = 0.12402 (scipy.stats.pearsonr gives 0.1240).
    const c = pearson([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]);
    expect(c.r).toBeCloseTo(0.774597, 6);
    expect(c.pValue).toBeCloseTo(0.12402, 4);
    expect(c.n).toBe(5);
  });

  it('Spearman uses average ranks for ties', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    // ranks of y = 1, 2.5, 4.5, 2.5, 4.5 (mean 3) against 1..5: Σdxdy = 4 + 0.5 + 0 − 0.5 + 3 = 7,
    // Σdx² = 10, Σdy² = 4 + 0.25 + 2.25 + 0.25 + 2.25 = 9 → ρ = 7/√90 = 0.737865 (scipy.stats.spearmanr: 0.7379).
    expect(spearman([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]).r).toBeCloseTo(0.737865, 6);
    // Monotone but not linear: Spearman 1, Pearson below 1.
    const x = [1, 2, 3, 4, 5, 6];
    const y = x.map((v) => Math.exp(v));
    expect(spearman(x, y).r).toBe(1);
    expect(pearson(x, y).r).toBeLessThan(0.95);
  });

  it('drops non-finite pairs and answers NaN when undefined', () => {
    expect(pearson([1, 2, Number.NaN, 4], [1, 2, 3, 4]).n).toBe(3);
    expect(Number.isNaN(pearson([1, 1, 1], [1, 2, 3]).r)).toBe(true);
    expect(Number.isNaN(spearman([1, 2], [1, 2]).pValue)).toBe(true);
  });
  it('keeps far-tail p-values (survival function, not 1 − cdf)', () => {
    // x = 1…30, y = x + 0.01·sin(x): scipy.stats.pearsonr → r 0.9999996602605591, p 6.682621050372067e-88
    const x = Array.from({ length: 30 }, (_, i) => i + 1);
    const p = pearson(
      x,
      x.map((v) => v + Math.sin(v) * 0.01),
    );
    expect(p.r).toBeCloseTo(0.9999996602605591, 12);
    expect(p.pValue / 6.682621050372067e-88).toBeCloseTo(1, 6);
    // y = 1…30 with 21 and 22 swapped: scipy.stats.spearmanr → 0.9995550611790878, p 2.910288001852856e-44
    const y = x.map((v) => (v === 21 ? 22 : v === 22 ? 21 : v));
    const s = spearman(x, y);
    expect(s.r).toBeCloseTo(0.9995550611790878, 12);
    expect(s.pValue / 2.910288001852856e-44).toBeCloseTo(1, 8);
  });
});
