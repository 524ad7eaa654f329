/**
 * threshold: a query measure per slice over the window, compared with a value. With
 * `relative_to`, the value compared is current / reference (the same window `offset` earlier),
 * e.g. p99 420 ms now vs 300 ms yesterday → 1.4, which fires `op: '>', value: 1.3`.
 */
import { durationMs } from '../rule-schema.ts';
import type { ThresholdCondition } from '../rule-schema.ts';
import { aggregateBySlice, compare, num } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';

export async function evalThreshold(c: ThresholdCondition, ctx: ConditionContext): Promise<Observation[]> {
  const windowMs = durationMs(c.window);
  const q = { filters: c.filters, by: c.by, measures: [c.measure, 'n'] };
  const cur = await aggregateBySlice(ctx, { ...q, fromMs: ctx.nowMs - windowMs, toMs: ctx.nowMs });
  const offsetMs = c.relative_to ? durationMs(c.relative_to.offset) : 0;
  const ref = c.relative_to ? await aggregateBySlice(ctx, { ...q, fromMs: ctx.nowMs - offsetMs - windowMs, toMs: ctx.nowMs - offsetMs }) : undefined;
  const out: Observation[] = [];
  for (const [key, { labels, row }] of cur) {
    let value = num(row[c.measure]);
    if (value === null || (num(row.n) ?? 0) < c.min_count) continue;
    if (ref) {
      const r = ref.get(key);
      const base = r ? num(r.row[c.measure]) : null;
      if (!r || base === null || base <= 0 || (num(r.row.n) ?? 0) < c.min_count) continue;
      value = value / base;
    }
    if (compare(value, c.op, c.value)) out.push({ labels, value });
  }
  return out;
}
