import { describe, expect, it } from 'vitest';
import { compareTailComposition, tailComposition } from './tail-composition.ts';
import type { StageRow } from './tail-composition.ts';

// Same windows as stage-attribution.test.ts, as per-request rows.
function rows(execFactor: number): StageRow[] {
  return Array.from({ length: 100 }, (_, i) => {
    const exec = execFactor * (10 + 0.1 * i);
    return { ingress_ms: 1, queue_ms: 2, batch_ms: 1, exec_ms: exec, post_ms: 1, total_ms: exec + 5 };
  });
}

describe('tailComposition', () => {
  it('takes the requests at or above the total P99 and averages each stage share', () => {
    // total P99 = 24.801 → only i = 99 (24.9 ms) is in the tail: exec 19.9/24.9 = 0.799197
    const c = tailComposition(rows(1), 0.99);
    expect(c.thresholdMs).toBeCloseTo(24.801, 10);
    expect(c.nRows).toBe(100);
    expect(c.nTail).toBe(1);
    expect(c.shares.find((s) => s.stage === 'exec_ms')?.meanShare).toBeCloseTo(19.9 / 24.9, 12);
  });

  it('averages over several tail requests and shares sum to 1 when stages add up', () => {
    // q = 0.95: h = 94.05 → threshold 24.4 + 0.05·0.1 = 24.405 → i = 95…99 (5 requests)
    // queue share = mean(2/24.5, 2/24.6, 2/24.7, 2/24.8, 2/24.9)
    const c = tailComposition(rows(1), 0.95);
    expect(c.nTail).toBe(5);
    const expected = [24.5, 24.6, 24.7, 24.8, 24.9].reduce((a, t) => a + 2 / t, 0) / 5;
    expect(c.shares.find((s) => s.stage === 'queue_ms')?.meanShare).toBeCloseTo(expected, 12);
    expect(c.shares.reduce((a, s) => a + s.meanShare, 0)).toBeCloseTo(1, 12);
  });

  it('skips null stages and rows without a positive total', () => {
    const c = tailComposition(
      [
        { total_ms: 10, exec_ms: 5, batch_ms: null },
        { total_ms: null, exec_ms: 99 },
        { total_ms: 0, exec_ms: 1 },
      ],
      0.5,
    );
    expect(c.nRows).toBe(1);
    expect(c.shares.find((s) => s.stage === 'batch_ms')).toEqual({ stage: 'batch_ms', meanShare: NaN, n: 0 });
    expect(c.shares.find((s) => s.stage === 'exec_ms')?.meanShare).toBe(0.5);
  });
});

describe('compareTailComposition', () => {
  it('names exec_ms when it triples', () => {
    // tail request now: 64.7 ms with exec 59.7 → 0.922720; before 0.799197; Δ = +0.123523
    // queue: 2/64.7 = 0.030912 vs 2/24.9 = 0.080321: its share fell.
    const c = compareTailComposition(rows(3), rows(1), 0.99);
    expect(c.grewMost).toBe('exec_ms');
    const exec = c.stages.find((s) => s.stage === 'exec_ms');
    expect(exec?.shareNow).toBeCloseTo(59.7 / 64.7, 12);
    expect(exec?.deltaShare).toBeCloseTo(59.7 / 64.7 - 19.9 / 24.9, 12);
    expect(c.stages.find((s) => s.stage === 'queue_ms')?.deltaShare).toBeLessThan(0);
  });
  it('counts only stage fields, not the timestamp or identifiers a stored row carries', () => {
    const rows = [1, 2, 3].map((i) => ({ ts: 1_700_000_000_000 + i, queue_ms: 1, exec_ms: 9 * i, total_ms: 1 + 9 * i }));
    expect(tailComposition(rows, 0.5).shares.map((s) => s.stage)).toEqual(['queue_ms', 'exec_ms']);
    expect(tailComposition(rows, 0.5, { stages: ['exec_ms'] }).shares.map((s) => s.stage)).toEqual(['exec_ms']);
  });
});
