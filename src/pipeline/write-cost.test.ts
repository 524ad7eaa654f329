import { describe, expect, it } from 'vitest';
import { INITIAL_MS_PER_ROW, WriteCost } from './write-cost.ts';

describe('WriteCost', () => {
  it('starts from the conservative prior and ignores small transactions', () => {
    const c = new WriteCost();
    expect(c.msPerRow()).toBe(INITIAL_MS_PER_ROW);
    c.observe(10, 50); // 5 ms/row, but a 10-row transaction is mostly fixed cost
    expect(c.msPerRow()).toBe(INITIAL_MS_PER_ROW);
  });

  it('rises at once to a slower store and falls back gradually', () => {
    const c = new WriteCost();
    c.observe(10_000, 2_000); // 0.2 ms/row
    expect(c.msPerRow()).toBeCloseTo(0.2, 12);
    c.observe(10_000, 400); // 0.04 ms/row: 0.7 · 0.2 + 0.3 · 0.04 = 0.152
    expect(c.msPerRow()).toBeCloseTo(0.152, 12);
    // 60,000 rows at 0.152 ms/row: 9.12 s
    expect(c.waitMs(60_000)).toBeCloseTo(9120, 6);
  });
});
