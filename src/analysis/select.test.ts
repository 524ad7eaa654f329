import { describe, expect, it } from 'vitest';
import { mulberry32 } from './prng.ts';
import { selectInPlace } from './select.ts';

describe('selectInPlace', () => {
  it('agrees with sorting for every k, with many ties', () => {
    const random = mulberry32(3);
    for (const n of [1, 2, 3, 10, 101]) {
      const values = Array.from({ length: n }, () => Math.floor(random() * 7));
      const sorted = [...values].sort((a, b) => a - b);
      for (let k = 0; k < n; k++) expect(selectInPlace(Float64Array.from(values), k)).toBe(sorted[k]);
    }
  });

  it('partitions around the k-th value', () => {
    const a = Float64Array.from([9, 1, 8, 2, 7, 3, 6, 4, 5]);
    expect(selectInPlace(a, 4)).toBe(5);
    expect(Array.from(a.subarray(0, 4)).every((v) => v <= 5)).toBe(true);
    expect(Array.from(a.subarray(5)).every((v) => v >= 5)).toBe(true);
  });

  it('rejects k outside the array', () => {
    expect(() => selectInPlace(new Float64Array(3), 3)).toThrow(/outside/);
  });
});
