import { describe, expect, it } from 'vitest';
import { phi, phiInverse, twoSidedP } from './normal.ts';

describe('normal helpers', () => {
  it('matches textbook values', () => {
    expect(phi(0)).toBe(0.5);
    expect(phi(1.959963984540054)).toBeCloseTo(0.975, 12);
    expect(phiInverse(0.975)).toBeCloseTo(1.959963984540054, 9);
  });
  it('keeps precision in the far tail', () => {
    // scipy: 2·norm.sf(15.987974569688552) = 1.5498871040967045e-57
    expect(twoSidedP(15.987974569688552) / 1.5498871040967045e-57).toBeCloseTo(1, 6);
    expect(twoSidedP(0)).toBe(1);
    expect(twoSidedP(NaN)).toBe(1);
  });
  it('keeps the quantile finite in the far tail', () => {
    // scipy.stats.norm.ppf(1e-20) = -9.262340089798409, ppf(1e-300) = -37.0470962993612,
    // ppf(1 - 1e-10) = 6.361340889697422
    expect(phiInverse(1e-20)).toBeCloseTo(-9.262340089798409, 10);
    expect(phiInverse(1e-300)).toBeCloseTo(-37.0470962993612, 10);
    expect(phiInverse(1 - 1e-10)).toBeCloseTo(6.361340889697422, 6);
    expect(phiInverse(0.5)).toBe(0);
    expect(phiInverse(0)).toBe(-Infinity);
    expect(phiInverse(1)).toBe(Infinity);
  });
});
