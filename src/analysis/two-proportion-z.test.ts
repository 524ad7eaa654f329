import { describe, expect, it } from 'vitest';
import { twoProportionZ } from './two-proportion-z.ts';

describe('twoProportionZ', () => {
  it('30/200 vs 20/200 → z = 1.51186, p = 0.13057', () => {
    // pooled 50/400 = 0.125; se = √(0.125·0.875·(1/200 + 1/200)) = 0.0330719; z = 0.05/se
    // Python reference: z = 1.5118578920369083, p = 0.13057001811573637
    const r = twoProportionZ(30, 200, 20, 200);
    expect(r.z).toBeCloseTo(1.5118578920369083, 12);
    expect(r.pValue).toBeCloseTo(0.13057001811573637, 10);
  });

  it('is antisymmetric in the two groups', () => {
    const a = twoProportionZ(9, 30, 91, 9970);
    const b = twoProportionZ(91, 9970, 9, 30);
    expect(a.z).toBeCloseTo(15.987974569688552, 9);
    expect(b.z).toBeCloseTo(-a.z, 12);
    expect(b.pValue).toBe(a.pValue);
  });

  it('returns no evidence for degenerate input', () => {
    expect(twoProportionZ(0, 0, 1, 10)).toEqual({ z: 0, pValue: 1 });
    expect(twoProportionZ(0, 10, 0, 10)).toEqual({ z: 0, pValue: 1 });
    expect(twoProportionZ(10, 10, 5, 5)).toEqual({ z: 0, pValue: 1 });
  });
});
