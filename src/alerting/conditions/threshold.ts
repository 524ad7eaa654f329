/**
 * threshold: a query measure per slice over the window, compared with a value. With
 * `relative_to.offset`, the value compared is current / reference (the same window `offset`
 * earlier, or `relative_to.window` long ending then), e.g. p99 420 ms now vs 300 ms yesterday → 1.4, which fires `op: '>', value: 1.3`.
 * With `relative_to.peers`, it is current / the median of the peer slices at the same time, e.g.
 * P99 exec of replicas r0, r1, r2 = 2.0, 6.3, 2.2 ms → median 2.2 → r1 reads 2.86 and fires
 * `> 1.5`, while a slowdown of every replica (a bad release) leaves each near 1.
 * With `relative_to.baseline`, it is current / the same window under the baseline filters, e.g.
 * route_rule canary P95 exec 5.0 ms vs route_rule default 2.0 ms at the same time → 2.5.
 */
import { median } from '../../analysis/index.ts';
import { durationMs } from '../rule-schema.ts';
import type { ThresholdCondition } from '../rule-schema.ts';
import { aggregateBySlice, compare, num, sliceKey } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';
import type { Labels } from '../labels.ts';

export async function evalThreshold(c: ThresholdCondition, ctx: ConditionContext): Promise<Observation[]> {
  const windowMs = durationMs(c.window);
  const q = { filters: c.filters, by: c.by, measures: [c.measure, 'n'] };
  const cur = await aggregateBySlice(ctx, { ...q, fromMs: ctx.nowMs - windowMs, toMs: ctx.nowMs });
  const current: { labels: Labels; value: number }[] = [];
  for (const { labels, row } of cur.values()) {
    const value = num(row[c.measure]);
    if (value !== null && (num(row.n) ?? 0) >= c.min_count) current.push({ labels, value });
  }
  const out: Observation[] = [];
  const emit = (labels: Labels, value: number) => {
    if (compare(value, c.op, c.value)) out.push({ labels, value });
  };
  const rel = c.relative_to;
  if (!rel) for (const s of current) emit(s.labels, s.value);
  else if ('peers' in rel) {
    // Peers share every `by` value but the peer dimension.
    const rest = c.by.filter((d) => d !== rel.peers);
    const peers = new Map<string, number[]>();
    for (const s of current) {
      const k = sliceKey(s.labels, rest);
      const values = peers.get(k);
      if (values) values.push(s.value);
      else peers.set(k, [s.value]);
    }
    for (const s of current) {
      const values = peers.get(sliceKey(s.labels, rest)) ?? [];
      const base = median(values);
      if (values.length >= rel.min_peers && base > 0) emit(s.labels, s.value / base);
    }
  } else {
    // The reference: the baseline's slices now, or the same slices `offset` earlier.
    const match = 'baseline' in rel ? c.by.filter((d) => !(d in rel.baseline)) : c.by;
    const range =
      'baseline' in rel
        ? { filters: { ...c.filters, ...rel.baseline }, fromMs: ctx.nowMs - windowMs, toMs: ctx.nowMs }
        : {
            filters: c.filters,
            fromMs: ctx.nowMs - durationMs(rel.offset) - (rel.window ? durationMs(rel.window) : windowMs),
            toMs: ctx.nowMs - durationMs(rel.offset),
          };
    const ref = await aggregateBySlice(ctx, { ...q, ...range, by: match });
    for (const s of current) {
      const r = ref.get(sliceKey(s.labels, match));
      const base = r ? num(r.row[c.measure]) : null;
      if (r && base !== null && base > 0 && (num(r.row.n) ?? 0) >= c.min_count) emit(s.labels, s.value / base);
    }
  }
  return out;
}
