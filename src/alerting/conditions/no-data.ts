/**
 * no_data: slices that sent at least min_count rows in the reference window (the `reference.window`
 * before the current window) and none in the current window. The value is 0 (rows now); the
 * reference count is not needed to act. A slice that never sent data cannot be missed, and neither
 * can a slice that lacks one of the `by` labels: requests rejected before a replica took them have
 * no replica, and when the rejections stop that "slice" going quiet is not a replica going silent.
 */
import { durationMs } from '../rule-schema.ts';
import type { NoDataCondition } from '../rule-schema.ts';
import { aggregateBySlice, num } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';

export async function evalNoData(c: NoDataCondition, ctx: ConditionContext): Promise<Observation[]> {
  const windowMs = durationMs(c.window);
  const refMs = durationMs(c.reference.window);
  const q = { filters: c.filters, by: c.by, measures: ['n'] };
  const cur = await aggregateBySlice(ctx, { ...q, fromMs: ctx.nowMs - windowMs, toMs: ctx.nowMs });
  const ref = await aggregateBySlice(ctx, { ...q, fromMs: ctx.nowMs - windowMs - refMs, toMs: ctx.nowMs - windowMs });
  const out: Observation[] = [];
  for (const [key, { labels, row }] of ref) {
    if ((num(row.n) ?? 0) < c.min_count || c.by.some((d) => labels[d] === undefined)) continue;
    // Silence is evidence only when the reference's rate makes it unlikely: λ expected rows now.
    if (c.min_expected !== undefined && ((num(row.n) ?? 0) * windowMs) / refMs < c.min_expected) continue;
    if ((num(cur.get(key)?.row.n) ?? 0) === 0) out.push({ labels, value: 0 });
  }
  return out;
}
