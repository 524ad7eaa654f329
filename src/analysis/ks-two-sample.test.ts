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
    const series = (l: number): number =>
      2 * Array.from({ length: 100 }, (_, j) => (j % 2 === 0 ? 1 : -1) * Math.exp(-2 * (j + 1) ** 2 * l * l)).reduce((a, b) => a + b, 0);
    for (const l of [0.8, 1.0, 1.17, 1.19, 1.4]) expect(kolmogorovQ(l)).toBeCloseTo(series(l), 12);
    expect(kolmogorovQ(0)).toBe(1);
  });
});

describe('ksTwoSample', () => {
  it('computes D by hand and the exact p-value for small samples', () => {
    // a = [1, 2, 3, 4, 5], b = [3.5, 6, 7, 8]
    // x:    1    2    3   3.5   4    5    6    7    8
    // F_a: .2   .4   .6   .6   .8   1    1    1    1
    // F_b:  0    0    0  .25  .25  .25  .5  .75    1
    // |Δ|: .2   .4   .6  .35  .55  .75  .5  .25    0  → D = 0.75
    // Exact: 18 of the C(9, 4) = 126 orderings reach D ≥ 0.75 → 1/7;
    // scipy.stats.ks_2samp (method 'auto' = exact here) = 0.14285714285714285.
    // (The Stephens-corrected asymptotic value used before was 0.082.)
    const r = ksTwoSample([1, 2, 3, 4, 5], [3.5, 6, 7, 8]);
    expect(r.statistic).toBe(0.75);
    expect(r.pValue).toBeCloseTo(0.14285714285714285, 12);
    expect(r).toMatchObject({ method: 'ks', threshold: 0.05, drift: false, nRef: 5, nCur: 4 });
  });

  // scipy.stats.ks_2samp(a, b) with its default method='auto' (exact while both sizes ≤ 10,000)
  it('agrees with scipy on small samples, ties included', () => {
    // D = 0.8 at n = m = 5: 20 of C(10, 5) = 252 paths leave the band → 5/63 = 0.07936507936507936.
    // The asymptotic value, 0.036, called this drift at alpha 0.05.
    const tied = ksTwoSample([4, 2, 7, 7, 4], [3, 9, 12, 12, 12]);
    expect(tied.statistic).toBeCloseTo(0.8, 12);
    expect(tied.pValue).toBeCloseTo(0.07936507936507936, 12);
    expect(tied.drift).toBe(false);
    // numpy default_rng(1): round(normal(0, 1, 40), 3) and round(normal(0.5, 1, 25), 3) → D 0.26, p 0.2093834994326415
    const a = [
      0.346, 0.822, 0.33, -1.303, 0.905, 0.446, -0.537, 0.581, 0.365, 0.294, 0.028, 0.547, -0.736, -0.163, -0.482, 0.599, 0.04, -0.292, -0.782, -0.257, 0.008,
      -0.276, 1.294, 1.007, -2.711, -1.889, -0.175, -0.422, 0.214, 0.217, 2.118, -1.112, -0.378, 2.043, 0.647, 0.663, -0.514, -1.648, 0.167, 0.109,
    ];
    const b = [
      -0.727, -0.183, 0.428, -0.445, 0.402, 0.595, 0.536, -0.006, 1.094, 1.391, 0.821, -0.318, 1.232, -0.001, 1.379, -0.572, 1.414, 0.48, -0.749, 0.186, 0.554,
      0.773, -0.482, -0.607, 0.7,
    ];
    const r = ksTwoSample(a, b);
    expect(r.statistic).toBeCloseTo(0.26, 12);
    expect(r.pValue).toBeCloseTo(0.2093834994326415, 12);
    expect(ksTwoSample(b, a).pValue).toBeCloseTo(0.2093834994326415, 12);
  });

  it('agrees with scipy on larger samples and keeps the tail', () => {
    // a = i/300 (i < 300), b = i/400 + 0.1 (i < 400): scipy ks_2samp D 0.10333333333333333, p 0.04832862328717208
    // b shifted by 0.3 instead: D 0.30333333333333334, p 2.1029999883114012e−14
    const a = Array.from({ length: 300 }, (_, i) => i / 300);
    const near = ksTwoSample(
      a,
      Array.from({ length: 400 }, (_, i) => i / 400 + 0.1),
    );
    expect(near.statistic).toBeCloseTo(0.10333333333333333, 12);
    expect(near.pValue! / 0.04832862328717208).toBeCloseTo(1, 9);
    const far = ksTwoSample(
      a,
      Array.from({ length: 400 }, (_, i) => i / 400 + 0.3),
    );
    expect(far.pValue! / 2.1029999883114012e-14).toBeCloseTo(1, 6);
  });

  it('handles ties across samples', () => {
    // a = [1, 2, 2, 3], b = [2, 2, 2, 4]: after x = 2: F_a = .75, F_b = .75; after 1: .25 vs 0;
    // after 3: 1 vs .75 → D = 0.25
    expect(ksStatistic([1, 2, 2, 3], [2, 2, 2, 4])).toBe(0.25);
    expect(ksStatistic([1, 2, 3], [1, 2, 3])).toBe(0);
  });

  it('detects a shifted sample and not an identical one', () => {
    const a = Array.from({ length: 200 }, (_, i) => i / 200);
    expect(
      ksTwoSample(
        a,
        a.map((v) => v + 0.3),
      ).drift,
    ).toBe(true);
    expect(ksTwoSample(a, a).pValue).toBe(1);
  });

  it('answers not_enough_data on an empty sample', () => {
    expect(ksTwoSample([], [1]).verdict).toBe('not_enough_data');
  });
});
