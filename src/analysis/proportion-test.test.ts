import { describe, expect, it } from 'vitest';
import { minExpectedCount, proportionTest } from './proportion-test.ts';

describe('proportionTest', () => {
  it('uses Fisher when an expected count is below 5', () => {
    // expected bad in the slice: 30·100/10000 = 0.3
    const r = proportionTest(9, 30, 91, 9970);
    expect(r.method).toBe('fisher');
    expect(r.minExpected).toBeCloseTo(0.3, 12);
    expect(r.pValue / 8.338132964314013e-12).toBeCloseTo(1, 8);
    expect(r.z).toBeCloseTo(15.987974569688552, 9);
  });

  it('uses z when every expected count is at least 5', () => {
    // expected bad per group: 200·50/400 = 25
    const r = proportionTest(30, 200, 20, 200);
    expect(r.method).toBe('z');
    expect(r.minExpected).toBe(25);
    expect(r.pValue).toBeCloseTo(0.13057001811573637, 10);
  });

  it('computes the smallest expected cell', () => {
    // margins: rows 10, 40; columns bad 5, good 45 → min = 10·5/50 = 1
    expect(minExpectedCount(3, 10, 2, 40)).toBe(1);
  });
});
