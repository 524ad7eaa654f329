/**
 * golden_failure: pass rate of golden-sample probes per slice. A probe is an event with
 * `probe: true`; it passed when `attributes[pass_attribute]` is true/1/pass/yes and failed when it
 * is false/0/fail/no. A probe without the attribute counts as failed when its status is not ok
 * and is not judged otherwise. Worked: 7 of 10 probes passed → 0.7 < min_pass_rate 0.9 fires.
 */
import type { ConditionContext, Observation } from './context.ts';
import { sliceKey } from './context.ts';
import { durationMs } from '../rule-schema.ts';
import type { GoldenFailureCondition } from '../rule-schema.ts';
import type { Labels } from '../labels.ts';

const PASS = new Set(['true', '1', 'pass', 'passed', 'yes', 'ok']);
const FAIL = new Set(['false', '0', 'fail', 'failed', 'no']);

export async function evalGoldenFailure(c: GoldenFailureCondition, ctx: ConditionContext): Promise<Observation[]> {
  const rows = await ctx.reads.events({
    fromMs: ctx.nowMs - durationMs(c.window),
    toMs: ctx.nowMs,
    // Probes only, so the row limit is spent on them and not on user traffic.
    filters: { ...c.filters, probe: 'true' },
    includeProbes: true,
    columns: ['attributes', 'status', ...c.by],
    limit: c.max_rows,
    order: 'ts_desc',
  });
  const slices = new Map<string, { labels: Labels; n: number; pass: number }>();
  for (const e of rows) {
    const mark = e.attributes?.[c.pass_attribute]?.toLowerCase();
    const passed = mark !== undefined && PASS.has(mark) ? true : mark !== undefined && FAIL.has(mark) ? false : e.status != null && e.status !== 'ok' ? false : undefined;
    if (passed === undefined) continue;
    const labels: Labels = {};
    for (const d of c.by) {
      const v = (e as Record<string, unknown>)[d];
      if (v !== null && v !== undefined) labels[d] = String(v);
    }
    const key = sliceKey(labels, c.by);
    let s = slices.get(key);
    if (!s) slices.set(key, (s = { labels, n: 0, pass: 0 }));
    s.n++;
    if (passed) s.pass++;
  }
  const out: Observation[] = [];
  for (const s of slices.values()) {
    const rate = s.pass / s.n;
    if (s.n >= c.min_count && rate < c.min_pass_rate) out.push({ labels: s.labels, value: rate });
  }
  return out;
}
