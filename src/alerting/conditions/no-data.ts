/**
 * no_data: slices that sent at least min_count rows in the reference window (the `reference.window`
 * before the current window) and none in the current window. The value is 0 (rows now); the
 * reference count is not needed to act. A slice that never sent data cannot be missed, and neither
 * can a slice that lacks one of the `by` labels: requests rejected before a replica took them have
 * no replica, and when the rejections stop that "slice" going quiet is not a replica going silent.
 *
 * At a whole minute with whole-minute windows (every tick of a backtest, and a live tick on the
 * minute) the rows per slice come from the shared per-minute series, a minute read per tick; at any
 * other time, from two queries over the windows.
 */
import type { Labels } from '../labels.ts';
import { durationMs } from '../rule-schema.ts';
import type { NoDataCondition } from '../rule-schema.ts';
import { MINUTE_MS } from '../series.ts';
import { aggregateBySlice, num } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';

export async function evalNoData(c: NoDataCondition, ctx: ConditionContext): Promise<Observation[]> {
  const windowMs = durationMs(c.window);
  const refMs = durationMs(c.reference.window);
  const out: Observation[] = [];
  for (const { labels, now, before } of await rowsBySlice(c, ctx, windowMs, refMs)) {
    if (before < c.min_count || c.by.some((d) => labels[d] === undefined)) continue;
    // Silence is evidence only when the reference's rate makes it unlikely: λ expected rows now.
    if (c.min_expected !== undefined && (before * windowMs) / refMs < c.min_expected) continue;
    if (now === 0) out.push({ labels, value: 0 });
  }
  return out;
}

/** Rows per slice in the current window (`now`) and in the reference window before it (`before`). */
async function rowsBySlice(
  c: NoDataCondition,
  ctx: ConditionContext,
  windowMs: number,
  refMs: number,
): Promise<{ labels: Labels; now: number; before: number }[]> {
  const t = ctx.nowMs;
  if (t % MINUTE_MS === 0 && windowMs % MINUTE_MS === 0 && refMs % MINUTE_MS === 0) {
    const series = await ctx.series.counts({ kind: 'counts', filters: c.filters, by: c.by, measures: ['n'] }, t, windowMs + refMs);
    return [...series.values()].map((s) => ({ labels: s.labels, now: s.sum('n', t - windowMs, t), before: s.sum('n', t - windowMs - refMs, t - windowMs) }));
  }
  const q = { filters: c.filters, by: c.by, measures: ['n'] };
  const cur = await aggregateBySlice(ctx, { ...q, fromMs: t - windowMs, toMs: t });
  const ref = await aggregateBySlice(ctx, { ...q, fromMs: t - windowMs - refMs, toMs: t - windowMs });
  return [...ref].map(([key, { labels, row }]) => ({ labels, now: num(cur.get(key)?.row.n) ?? 0, before: num(row.n) ?? 0 }));
}
