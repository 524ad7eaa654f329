/**
 * slo_burn_rate: the multi-window, multi-burn-rate alert of the SRE Workbook. Burn rate =
 * bad share / (1 − objective). A pair fires when both its long and short windows burn faster
 * than its factor. Worked: objective 99.9 % (budget 0.1 %), 1.8 % errors in the last hour and
 * 2.1 % in the last 5 min → burn 18 and 21, both > 14.4 → page (2 % of a 30-day budget per hour).
 * The value is the long-window burn rate of the fastest firing pair.
 */
import { durationMs } from '../rule-schema.ts';
import type { Severity, SloBurnRateCondition } from '../rule-schema.ts';
import { aggregateBySlice, num } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';
import type { Labels } from '../labels.ts';

/** Page: 1h/5m at 14.4× and 6h/30m at 6×. Ticket: 3d/6h at 1×. */
export const PAGE_WINDOWS = [
  { long: '1h', short: '5m', factor: 14.4 },
  { long: '6h', short: '30m', factor: 6 },
] as const;
export const TICKET_WINDOWS = [{ long: '3d', short: '6h', factor: 1 }] as const;

export async function evalSloBurnRate(c: SloBurnRateCondition, severity: Severity, ctx: ConditionContext): Promise<Observation[]> {
  const windows = c.windows ?? (severity === 'critical' ? PAGE_WINDOWS : TICKET_WINDOWS);
  const budget = 1 - c.objective;
  const measures = c.latency ? [`below_rate(${c.latency.field}, ${c.latency.threshold_ms})`] : c.bad_statuses.map((s) => `${s}_rate`);
  const badShare = (row: Record<string, string | number | null>): number | null => {
    if (c.latency) {
      const good = num(row[measures[0]!]);
      return good === null ? null : 1 - good;
    }
    let sum = 0;
    for (const m of measures) {
      const v = num(row[m]);
      if (v === null) return null;
      sum += v;
    }
    return sum;
  };
  // One query per distinct window length, shared by the pairs.
  const lengths = [...new Set(windows.flatMap((w) => [w.long, w.short]))];
  const burns = new Map<string, Map<string, { labels: Labels; burn: number; n: number; bad: number }>>();
  for (const len of lengths) {
    const rows = await aggregateBySlice(ctx, {
      fromMs: ctx.nowMs - durationMs(len),
      toMs: ctx.nowMs,
      filters: c.filters,
      by: c.by,
      measures: [...measures, 'n'],
    });
    const m = new Map<string, { labels: Labels; burn: number; n: number; bad: number }>();
    for (const [key, { labels, row }] of rows) {
      const bad = badShare(row);
      if (bad !== null) m.set(key, { labels, burn: bad / budget, n: num(row.n) ?? 0, bad: bad * (num(row.n) ?? 0) });
    }
    burns.set(len, m);
  }
  const out = new Map<string, Observation>();
  for (const w of windows) {
    for (const [key, long] of burns.get(w.long) ?? []) {
      const short = burns.get(w.short)?.get(key);
      if (!short || long.n < c.min_count || long.bad < c.min_bad) continue;
      if (long.burn > w.factor && short.burn > w.factor) {
        const prev = out.get(key);
        if (!prev || long.burn > prev.value) out.set(key, { labels: long.labels, value: long.burn });
      }
    }
  }
  return [...out.values()];
}
