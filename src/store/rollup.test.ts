import { describe, expect, it } from 'vitest';
import { LATENCY_FIELDS } from '../schema/index.ts';
import { SKETCH_FIELD_CODES } from './rollup.ts';

describe('sketch field codes', () => {
  it('never change: stored rollup rows hold them', () => {
    // Append a new latency field with the next code; never edit or reuse one of these.
    expect(SKETCH_FIELD_CODES).toEqual({ ingress_ms: 0, queue_ms: 1, batch_ms: 2, exec_ms: 3, post_ms: 4, total_ms: 5, ttft_ms: 6, tpot_ms: 7, prefill_ms: 8 });
  });

  it('give every latency field its own code', () => {
    const codes = LATENCY_FIELDS.map((f) => SKETCH_FIELD_CODES[f]);
    expect(new Set(codes).size).toBe(LATENCY_FIELDS.length);
    expect(codes.every((c) => Number.isInteger(c) && c >= 0 && c <= 255)).toBe(true);
  });
});
