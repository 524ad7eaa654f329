import { describe, expect, it } from 'vitest';
import { rankSlices } from './rank-slices.ts';
import type { RankedSlice, SliceCount } from './rank-slices.ts';

const find = (ranked: RankedSlice[], slice: Record<string, string>): RankedSlice => {
  const r = ranked.find((x) => JSON.stringify(x.slice) === JSON.stringify(slice));
  if (r === undefined) throw new Error(`missing ${JSON.stringify(slice)}`);
  return r;
};

describe('rankSlices: a low-traffic model does not hide behind the fleet', () => {
  // 10,000 requests, 100 errors (1 %). model=small: 30 requests, 9 errors (30 %), all in eu.
  // model=big: 9970, 91. region=eu: 5000, 64 (small's 9 + big's 55); region=us: 5000, 36.
  const ranked = rankSlices({
    total: { n: 10_000, k: 100 },
    slices: [
      { slice: { model: 'small' }, n: 30, k: 9 },
      { slice: { model: 'big' }, n: 9970, k: 91 },
      { slice: { region: 'eu' }, n: 5000, k: 64 },
      { slice: { region: 'us' }, n: 5000, k: 36 },
      { slice: { model: 'small', region: 'eu' }, n: 30, k: 9 },
      { slice: { model: 'big', region: 'eu' }, n: 4970, k: 55 },
      { slice: { model: 'big', region: 'us' }, n: 5000, k: 36 },
    ],
  });

  it('ranks model=small first with the worked numbers', () => {
    // rest: 91/9970 = 0.912738 %; excess = 30·(0.3 − 0.00912738) = 8.72618
    // z = 0.29087/√(0.01·0.99·(1/30 + 1/9970)) = 15.98797; expected bad 0.3 < 5 → Fisher,
    // scipy fisher_exact([[9, 21], [91, 9879]]) = 8.338132964314013e−12
    // score = Wilson lo 0.1666456 − 0.0091274 = 0.157518
    const top = ranked[0] as RankedSlice;
    expect(top.slice).toEqual({ model: 'small' });
    expect(top.rate).toBe(0.3);
    expect(top.restRate).toBeCloseTo(91 / 9970, 12);
    expect(top.excess).toBeCloseTo(8.726179, 5);
    expect(top.z).toBeCloseTo(15.987974569688552, 9);
    expect(top.method).toBe('fisher');
    expect(top.pValue / 8.338132964314013e-12).toBeCloseTo(1, 8);
    expect(top.score).toBeCloseTo(0.16664562643958933 - 91 / 9970, 12);
    expect(top.significant).toBe(true);
  });

  it('ranks it above a large, significantly elevated region with a larger excess', () => {
    // eu vs us: 64/5000 vs 36/5000, pooled 1 %: z = 0.0056/√(0.0099·0.0004) = 2.8142, p = 0.00489
    // excess = 5000·(0.0128 − 0.0072) = 28 > 8.73, but score = lo(64/5000) − 0.0072 ≈ 0.0028
    const eu = find(ranked, { region: 'eu' });
    expect(eu.z).toBeCloseTo(2.8142, 3);
    expect(eu.excess).toBeCloseTo(28, 9);
    expect(eu.significant).toBe(true);
    expect(ranked.indexOf(eu)).toBeGreaterThan(0);
  });

  it('does not report a pair identical to its parent', () => {
    // small × eu has the same 30 requests as model=small: the remainder is empty.
    expect(find(ranked, { model: 'small', region: 'eu' }).verdict).toBe('parent_explains');
  });

  it('does not flag the fleet-average model or the region below average', () => {
    expect(find(ranked, { model: 'big' }).verdict).toBe('not_elevated');
    expect(find(ranked, { region: 'us' }).significant).toBe(false);
  });

  it('returns q-values ≥ p-values and an order where significant slices lead', () => {
    for (const r of ranked) expect(r.qValue).toBeGreaterThanOrEqual(r.pValue);
    const firstInsignificant = ranked.findIndex((r) => !r.significant);
    expect(ranked.slice(firstInsignificant).every((r) => !r.significant)).toBe(true);
  });
});

describe('rankSlices: a pair that carries all the errors', () => {
  // 10,000 requests; versions v1 (8,000) and v2 (2,000); replicas r1…r4 (2,500 each).
  // v1 × each replica: 2,000 requests, 10 errors. v2 × r1, r2, r4: 500 requests, 2 errors.
  // v2 × r3: 500 requests, 100 errors (20 %). Totals: v1 8000/40, v2 2000/106, r3 2500/110,
  // r1, r2, r4 2500/12, fleet 10000/146.
  const slices: SliceCount[] = [
    { slice: { model_version: 'v1' }, n: 8000, k: 40 },
    { slice: { model_version: 'v2' }, n: 2000, k: 106 },
    ...['r1', 'r2', 'r4'].map((r) => ({ slice: { replica: r }, n: 2500, k: 12 })),
    { slice: { replica: 'r3' }, n: 2500, k: 110 },
    ...['r1', 'r2', 'r3', 'r4'].map((r) => ({ slice: { model_version: 'v1', replica: r }, n: 2000, k: 10 })),
    ...['r1', 'r2', 'r4'].map((r) => ({ slice: { model_version: 'v2', replica: r }, n: 500, k: 2 })),
    { slice: { model_version: 'v2', replica: 'r3' }, n: 500, k: 100 },
  ];
  const ranked = rankSlices({ total: { n: 10_000, k: 146 }, slices });
  const pair = find(ranked, { model_version: 'v2', replica: 'r3' });

  it('reports the pair first', () => {
    // rest 46/9500 = 0.4842 %; excess = 500·(0.2 − 0.004842) = 97.58;
    // it beats v2's remainder (6/1500 = 0.4 %) and r3's remainder (10/2000 = 0.5 %).
    expect(ranked[0]).toBe(pair);
    expect(pair.significant).toBe(true);
    expect(pair.verdict).toBe('elevated');
    expect(pair.excess).toBeCloseTo(500 * (0.2 - 46 / 9500), 9);
  });

  it('ranks the diluting parents below it and marks them explained by it', () => {
    // v2 without the pair: 6/1500 = 0.4 %, not above the 40/8000 = 0.5 % outside v2.
    // r3 without the pair: 10/2000 = 0.5 %, not above 36/7500 = 0.48 % outside r3 significantly.
    for (const parent of [{ model_version: 'v2' }, { replica: 'r3' }] as Array<Record<string, string>>) {
      const p = find(ranked, parent);
      expect(ranked.indexOf(p)).toBeGreaterThan(ranked.indexOf(pair));
      expect(p.explainedBy).toEqual(pair.slice);
    }
  });

  it('does not flag the healthy combinations', () => {
    expect(find(ranked, { model_version: 'v2', replica: 'r1' }).significant).toBe(false);
    expect(find(ranked, { model_version: 'v1', replica: 'r3' }).significant).toBe(false);
  });
});

describe('rankSlices: a version-wide problem is reported on the version, not on its pairs', () => {
  // v2 runs at 5 % on every replica (4 × 500 requests, 25 errors each); v1 at 0.5 % (4 × 2000, 10).
  const slices: SliceCount[] = [
    { slice: { model_version: 'v1' }, n: 8000, k: 40 },
    { slice: { model_version: 'v2' }, n: 2000, k: 100 },
    ...['r1', 'r2', 'r3', 'r4'].flatMap((r): SliceCount[] => [
      { slice: { replica: r }, n: 2500, k: 35 },
      { slice: { model_version: 'v1', replica: r }, n: 2000, k: 10 },
      { slice: { model_version: 'v2', replica: r }, n: 500, k: 25 },
    ]),
  ];
  const ranked = rankSlices({ total: { n: 10_000, k: 140 }, slices });

  it('flags v2 and marks each v2 × replica pair as explained by the parent', () => {
    const v2 = find(ranked, { model_version: 'v2' });
    expect(v2.significant).toBe(true);
    expect(v2.explainedBy).toBeUndefined();
    // Each pair is significant against the fleet (25/500 vs 115/9500) but equals v2's remainder
    // rate (75/1500 = 5 %), so it explains nothing more.
    const pair = find(ranked, { model_version: 'v2', replica: 'r3' });
    expect(pair.qValue).toBeLessThan(0.05);
    expect(pair.verdict).toBe('parent_explains');
    expect(pair.significant).toBe(false);
    expect(ranked[0]).toBe(v2);
  });

  it('does not flag the replicas, which all share the same rate', () => {
    for (const r of ['r1', 'r2', 'r3', 'r4']) expect(find(ranked, { replica: r }).significant).toBe(false);
  });
});

describe('rankSlices: support and input checks', () => {
  it('leaves out slices under minSupport and slices that cover all traffic', () => {
    const ranked = rankSlices({
      total: { n: 1000, k: 10 },
      slices: [
        { slice: { model: 'tiny' }, n: 5, k: 5 },
        { slice: { model: 'all' }, n: 1000, k: 10 },
        { slice: { model: 'half' }, n: 500, k: 6 },
      ],
    });
    expect(ranked.map((r) => r.slice)).toEqual([{ model: 'half' }]);
    // Alone in the BH family, q = p. 6/500 vs 4/500: smallest expected count 500·10/1000 = 5,
    // not < 5 → z test, z = 0.004/√(0.01·0.99·0.004) = 0.6356, not significant.
    expect(ranked[0]?.method).toBe('z');
    expect(ranked[0]?.z).toBeCloseTo(0.6356, 4);
    expect(ranked[0]?.qValue).toBe(ranked[0]?.pValue);
    expect(ranked[0]?.significant).toBe(false);
  });

  it('rejects a slice larger than the total', () => {
    expect(() => rankSlices({ total: { n: 10, k: 1 }, slices: [{ slice: { a: 'b' }, n: 11, k: 0 }] })).toThrow(/exceeds the total/);
    expect(() => rankSlices({ total: { n: 10, k: 1 }, slices: [{ slice: { a: 'b' }, n: 5, k: 6 }] })).toThrow();
  });
});
