import { describe, expect, it } from 'vitest';
import { mannKendall, tieTerm } from './mann-kendall.ts';

describe('mannKendall', () => {
  it('matches the worked example with a tie', () => {
    // y = [1, 2, 2, 4, 3]
    // i=0 (1): +1 +1 +1 +1 = 4;  i=1 (2): 0 +1 +1 = 2;  i=2 (2): +1 +1 = 2;  i=3 (4): −1 → S = 7
    // Var = [5·4·15 − 2·1·9]/18 = (300 − 18)/18 = 15.6667; z = (7 − 1)/√15.6667 = 1.5158734579
    // p = 2Φ(−1.51587) = 0.1295513529
    const r = mannKendall([1, 2, 2, 4, 3]);
    expect(r.s).toBe(7);
    expect(r.varS).toBeCloseTo(282 / 18, 12);
    expect(r.z).toBeCloseTo(1.5158734579197342, 12);
    expect(r.pValue).toBeCloseTo(0.12955135290440883, 10);
  });

  it('detects a noisy rise', () => {
    // y = [10, 12, 11, 15, 14, 18, 17, 20]: 28 pairs, 3 discordant → S = 25 − 3 = 22
    // Var = 8·7·21/18 = 65.333; z = 21/8.0829 = 2.598076; p = 0.0093748
    const r = mannKendall([10, 12, 11, 15, 14, 18, 17, 20]);
    expect(r.s).toBe(22);
    expect(r.varS).toBeCloseTo(65.33333333, 6);
    expect(r.z).toBeCloseTo(2.598076211353316, 12);
    expect(r.pValue).toBeCloseTo(0.009374768459434876, 10);
  });

  it('is antisymmetric under reversal of the values', () => {
    const up = mannKendall([1, 3, 2, 5, 4, 6]);
    const down = mannKendall([-1, -3, -2, -5, -4, -6]);
    expect(down.s).toBe(-up.s);
    expect(down.z).toBeCloseTo(-up.z, 12);
  });

  it('gives no evidence for constant or too short series', () => {
    expect(mannKendall([5, 5, 5, 5]).pValue).toBe(1);
    expect(mannKendall([1, 2]).pValue).toBe(1);
  });

  it('computes the tie term', () => {
    // groups of 2 and 3: 2·1·9 + 3·2·11 = 18 + 66 = 84
    expect(tieTerm([1, 1, 2, 2, 2, 3])).toBe(84);
  });
});
