import { describe, expect, it } from 'vitest';
import { hodgesLehmann } from './hodges-lehmann.ts';

describe('hodgesLehmann', () => {
  it('matches the small worked example', () => {
    // x = [1, 2, 3], y = [4, 6, 8]: differences 3, 2, 1, 5, 4, 3, 7, 6, 5 → sorted
    // 1, 2, 3, 3, 4, 5, 5, 6, 7 → median 4. C = ⌊4.5 − 1.96·√(9·7/12)⌋ = ⌊0.009⌋ = 0 → clamped to
    // 1: the interval is the full range [1, 7].
    expect(hodgesLehmann([1, 2, 3], [4, 6, 8])).toMatchObject({ shift: 4, lo: 1, hi: 7, nX: 3, nY: 3, subsampled: false });
  });

  it('gives the order-statistic interval for 1…10 shifted by 5', () => {
    // differences 5 + k, k = j − i, with 10 − |k| copies; cumulative counts for k = −9…−3:
    // 1, 3, 6, 10, 15, 21, 28 → D₍24₎ is at k = −3 → 2; by symmetry D₍77₎ = 8. C = ⌊24.07⌋ = 24.
    // numpy: np.sort(np.subtract.outer(y, x).ravel())[[23, 76]] = [2, 8]
    const x = Array.from({ length: 10 }, (_, i) => i + 1);
    const r = hodgesLehmann(
      x,
      x.map((v) => v + 5),
    );
    expect(r).toMatchObject({ shift: 5, lo: 2, hi: 8, confidence: 0.95 });
  });

  it('narrows with more data and changes sign when the samples swap', () => {
    const x = Array.from({ length: 200 }, (_, i) => (i * 7919) % 200);
    const y = x.map((v) => v + 20);
    const r = hodgesLehmann(x, y);
    expect(r.shift).toBe(20);
    expect(r.lo).toBeLessThan(20);
    expect(r.hi).toBeGreaterThan(20);
    expect(r.hi - r.lo).toBeLessThan(60);
    const swapped = hodgesLehmann(y, x);
    expect(swapped.shift).toBe(-20);
    expect(swapped.lo).toBe(-r.hi);
  });

  it('subsamples deterministically above maxPerSide', () => {
    const x = Array.from({ length: 1000 }, (_, i) => i);
    const y = x.map((v) => v + 100);
    const a = hodgesLehmann(x, y, { maxPerSide: 50, seed: 7 });
    const b = hodgesLehmann(x, y, { maxPerSide: 50, seed: 7 });
    expect(a).toEqual(b);
    expect(a).toMatchObject({ nX: 50, nY: 50, subsampled: true });
    // the subsample still sees a shift of about 100 with an interval around it
    expect(a.lo).toBeLessThan(100);
    expect(a.hi).toBeGreaterThan(100);
    expect(a.shift).toBeGreaterThan(0);
  });

  it('returns NaN for an empty side', () => {
    expect(hodgesLehmann([], [1, 2]).shift).toBeNaN();
  });
});
