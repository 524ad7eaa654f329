import { describe, expect, it } from 'vitest';
import { bucketIndex, logBuckets } from './log-buckets.ts';

describe('logBuckets', () => {
  const b = logBuckets();

  it('spans 0.1 ms to the first edge ≥ 60 s with exact decades', () => {
    // 10·log10(60000/0.1) = 57.78 → i = 0…58 → 59 edges; the last is 10^4.8 = 63095.7
    expect(b).toHaveLength(59);
    expect(b[0]).toBe(0.1);
    expect(b[10]).toBe(1);
    expect(b[20]).toBe(10);
    expect(b[50]).toBe(10_000);
    expect(b[58]).toBe(63095.7);
    expect(b[57]).toBeLessThan(60_000);
    // one step: 10^0.1 = 1.25893
    expect(b[11]).toBe(1.25893);
  });

  it('is strictly increasing with a constant ratio', () => {
    for (let i = 1; i < b.length; i++) {
      expect(b[i] as number).toBeGreaterThan(b[i - 1] as number);
      expect((b[i] as number) / (b[i - 1] as number)).toBeCloseTo(10 ** 0.1, 4);
    }
  });

  it('ends exactly on maxMs when it is on the grid', () => {
    expect(logBuckets(1, 1000, 1)).toEqual([1, 10, 100, 1000]);
    expect(logBuckets(1, 1, 3)).toEqual([1]);
  });

  it('rejects bad parameters', () => {
    expect(() => logBuckets(0, 10, 10)).toThrow(/logBuckets/);
    expect(() => logBuckets(10, 1, 10)).toThrow();
    expect(() => logBuckets(1, 10, 2.5)).toThrow();
  });
});

describe('bucketIndex', () => {
  const bounds = [1, 10, 100];

  it('puts a value equal to an edge in that bucket (le) and just above in the next', () => {
    expect(bucketIndex(bounds, 1)).toBe(0);
    expect(bucketIndex(bounds, 1.000001)).toBe(1);
    expect(bucketIndex(bounds, 10)).toBe(1);
    expect(bucketIndex(bounds, 100)).toBe(2);
  });

  it('handles values below the first edge, above the last, and NaN', () => {
    expect(bucketIndex(bounds, 0)).toBe(0);
    expect(bucketIndex(bounds, -5)).toBe(0);
    expect(bucketIndex(bounds, 100.5)).toBe(3);
    expect(bucketIndex(bounds, Infinity)).toBe(3);
    expect(bucketIndex(bounds, NaN)).toBe(-1);
    expect(bucketIndex([], 5)).toBe(0);
  });

  it('agrees with a linear scan on the default bounds', () => {
    const b = logBuckets();
    for (const v of [0.05, 0.1, 0.11, 1, 3.3, 999, 1000, 59_999, 63095.7, 70_000]) {
      const linear = b.findIndex((edge) => v <= edge);
      expect(bucketIndex(b, v)).toBe(linear === -1 ? b.length : linear);
    }
  });
});
