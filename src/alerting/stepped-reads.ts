/**
 * Backtests only: the spread checks' stepped reads (one slice in 10-second bins over a window
 * ending at the evaluation time) held across ticks. Stored data does not change, so a slice checked
 * again a minute later is answered from the bins read before; a miss reads its range and `aheadMs`
 * past it in one query, and what is answered is cut at the range asked for, so nothing after the
 * evaluation time is seen. Held: aggregates with a step, no group-by and a range on the step grid
 * (each bin then holds the same rows whatever range it was read with, so the same numbers).
 */
import type { QueryRow, QuerySpec } from '../schema/index.ts';

/** Slices held at once; the least recently asked is dropped first. */
const MAX_HELD = 2_000;

interface Held {
  fromMs: number;
  toMs: number;
  /** Rows of [fromMs, toMs), ascending by bucket. */
  rows: QueryRow[];
}

export function holdSteppedReads(aggregate: (spec: QuerySpec) => Promise<QueryRow[]>, aheadMs: number): (spec: QuerySpec) => Promise<QueryRow[]> {
  if (!(aheadMs > 0)) return aggregate;
  const held = new Map<string, Held>();
  return async (spec) => {
    const step = spec.stepMs;
    if (step === undefined || step <= 0 || spec.groupBy.length > 0 || spec.approx || spec.fromMs % step !== 0 || spec.toMs % step !== 0) return aggregate(spec);
    const key = JSON.stringify([spec.filters, spec.measures, spec.includeProbes, step]);
    let h = held.get(key);
    if (h) held.delete(key);
    if (!h || spec.fromMs < h.fromMs || spec.toMs > h.toMs) {
      const toMs = spec.toMs + Math.ceil(aheadMs / step) * step;
      const rows = await aggregate({ ...spec, toMs });
      // A result cut at the limit is not all of its range: answer the range asked for directly.
      if (rows.length >= spec.limit) return aggregate(spec);
      h = { fromMs: spec.fromMs, toMs, rows: [...rows].sort((a, b) => Number(a.bucket) - Number(b.bucket)) };
    }
    held.set(key, h);
    if (held.size > MAX_HELD) held.delete(held.keys().next().value!);
    const out: QueryRow[] = [];
    for (const r of h.rows) {
      const b = Number(r.bucket);
      if (b >= spec.fromMs && b < spec.toMs) out.push(r);
    }
    return out;
  };
}
