import { describe, expect, it } from 'vitest';
import { ecdfSteps } from './ecdf-steps.ts';

describe('ecdfSteps', () => {
  it('steps through pooled distinct values', () => {
    expect(ecdfSteps([1, 3], [2])).toEqual([
      { value: 1, fx: 0.5, fy: 0 },
      { value: 2, fx: 0.5, fy: 1 },
      { value: 3, fx: 1, fy: 1 },
    ]);
  });
  it('passes every copy of a tie at once', () => {
    expect(ecdfSteps([2, 2], [2, 5]).map((s) => [s.value, s.fx, s.fy])).toEqual([
      [2, 1, 0.5],
      [5, 1, 1],
    ]);
  });
});
