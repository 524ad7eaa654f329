import { describe, expect, it } from 'vitest';
import { kolmogorovQ, ksStatistic, ksTwoSample } from './ks-two-sample.ts';

describe('kolmogorovQ', () => {
  // scipy.stats.kstwobign.sf(λ)
  const cases: Array<[number, number]> = [
    [0.3, 0.9999906941986655],
    [0.5, 0.9639452436648751],
    [1.0, 0.26999967167735456],
    [1.18, 0.1234538094297657],
    [1.5, 0.022217962616525127],
    [2.0, 0.0006709252557796953],
  ];
  it.each(cases)('Q_KS(%f) = %f', (lambda, expected) => {
    expect(kolmogorovQ(lambda)).toBeCloseTo(expected, 12);
  });

  it('agrees with the alternating series 2Σ(−1)^{j−1}e^{−2j²λ²} on both sides of 1.18', () => {
    const series = (l: number): number => 2 * Array.from({ length: 100 }, (_, j) => (j % 2 === 0 ? 1 : -1) * Math.exp(-2 * (j + 1) ** 2 * l * l)).reduce((a, b) => a + b, 0);
    for (const l of [0.8, 1.0, 1.17, 1.19, 1.4]) expect(kolmogorovQ(l)).toBeCloseTo(series(l), 12);
    expect(kolmogorovQ(0)).toBe(1);
  });
});

describe('ksTwoSample', () => {
  it('computes D by hand and the Stephens-corrected p-value', () => {
    // a = [1, 2, 3, 4, 5], b = [3.5, 6, 7, 8]
    // x:    1    2    3   3.5   4    5    6    7    8
    // F_a: .2   .4   .6   .6   .8   1    1    1    1
    // F_b:  0    0    0  .25  .25  .25  .5  .75    1
    // |Δ|: .2   .4   .6  .35  .55  .75  .5  .25    0  → D = 0.75
    // √nₑ = √(20/9) = 1.490712; λ = (1.490712 + 0.12 + 0.11/1.490712)·0.75 = 1.263376
    // scipy.stats.kstwobign.sf(1.263376…) = 0.0821537019539602
    const r = ksTwoSample([1, 2, 3, 4, 5], [3.5, 6, 7, 8]);
    expect(r.statistic).toBe(0.75);
    expect(r.pValue).toBeCloseTo(0.0821537019539602, 12);
    expect(r).toMatchObject({ method: 'ks', threshold: 0.05, drift: false, nRef: 5, nCur: 4 });
  });

  it('handles ties across samples', () => {
    // a = [1, 2, 2, 3], b = [2, 2, 2, 4]: after x = 2: F_a = .75, F_b = .75; after 1: .25 vs 0;
    // after 3: 1 vs .75 → D = 0.25
    expect(ksStatistic([1, 2, 2, 3], [2, 2, 2, 4])).toBe(0.25);
    expect(ksStatistic([1, 2, 3], [1, 2, 3])).toBe(0);
  });

  it('detects a shifted sample and not an identical one', () => {
    const a = Array.from({ length: 200 }, (_, i) => i / 200);
    expect(ksTwoSample(a, a.map((v) => v + 0.3)).drift).toBe(true);
    expect(ksTwoSample(a, a).pValue).toBe(1);
  });

  it('answers not_enough_data on an empty sample', () => {
    expect(ksTwoSample([], [1]).verdict).toBe('not_enough_data');
  });
});
