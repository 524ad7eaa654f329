/**
 * quality_change: a windowed, statistically tested change against a reference window.
 * - proportion: k/n now vs k/n in the reference per slice (Fisher when an expected count < 5, else
 *   the pooled z-test), Benjamini–Hochberg across the slices of one evaluation, and a minimum
 *   absolute change. n is the request count (weighted); k = rate · n. Worked: 60 empty of 1000 now
 *   vs 20 of 1000 before → z = 5.2, p ≈ 2e-7 → fires with alpha 0.01 and min_delta 0.02.
 * - drift: raw values of one field now vs the reference per slice, through `driftTest` (KS /
 *   chi-square for ≤ 1000 reference rows, normed Wasserstein / Jensen–Shannon above).
 * The value is the current rate (proportion) or the drift statistic.
 */
import { benjaminiHochberg, driftTest, proportionTest } from '../../analysis/index.ts';
import type { StoredEvent } from '../../schema/index.ts';
import { CATEGORICAL_FIELDS, durationMs } from '../rule-schema.ts';
import type { QualityChangeCondition } from '../rule-schema.ts';
import type { Labels } from '../labels.ts';
import { aggregateBySlice, num, sliceKey } from './context.ts';
import type { ConditionContext, Observation } from './context.ts';

function windows(c: QualityChangeCondition, nowMs: number) {
  const windowMs = durationMs(c.window);
  const offsetMs = c.reference ? durationMs(c.reference.offset) : windowMs;
  const refWindowMs = c.reference?.window ? durationMs(c.reference.window) : windowMs;
  return { cur: { fromMs: nowMs - windowMs, toMs: nowMs }, ref: { fromMs: nowMs - offsetMs - refWindowMs, toMs: nowMs - offsetMs } };
}

async function evalProportion(c: QualityChangeCondition, ctx: ConditionContext): Promise<Observation[]> {
  const m = c.measure!;
  const w = windows(c, ctx.nowMs);
  const q = { filters: c.filters, by: c.by, measures: [m, 'count'] };
  const cur = await aggregateBySlice(ctx, { ...q, ...w.cur });
  const ref = await aggregateBySlice(ctx, { ...q, ...w.ref });
  const tested: { labels: Labels; rate: number; delta: number; pValue: number }[] = [];
  for (const [key, { labels, row }] of cur) {
    const r = ref.get(key);
    const rateCur = num(row[m]);
    const rateRef = r ? num(r.row[m]) : null;
    const nCur = Math.round(num(row.count) ?? 0);
    const nRef = Math.round(r ? (num(r.row.count) ?? 0) : 0);
    if (rateCur === null || rateRef === null || nCur < c.min_count || nRef < c.min_count) continue;
    const kCur = Math.min(nCur, Math.round(rateCur * nCur));
    const kRef = Math.min(nRef, Math.round(rateRef * nRef));
    tested.push({ labels, rate: rateCur, delta: rateCur - rateRef, pValue: proportionTest(kCur, nCur, kRef, nRef).pValue });
  }
  const q2 = benjaminiHochberg(tested.map((t) => t.pValue));
  const out: Observation[] = [];
  tested.forEach((t, i) => {
    const big =
      c.direction === 'up'
        ? t.delta >= c.min_delta && t.delta > 0
        : c.direction === 'down'
          ? t.delta <= -c.min_delta && t.delta < 0
          : Math.abs(t.delta) >= c.min_delta && t.delta !== 0;
    if (big && (q2[i] ?? 1) < c.alpha) out.push({ labels: t.labels, value: t.rate });
  });
  return out;
}

function fieldValue(e: StoredEvent, field: string): unknown {
  if (field.startsWith('features.')) return e.features?.[field.slice('features.'.length)];
  return (e as Record<string, unknown>)[field];
}

async function evalDrift(c: QualityChangeCondition, ctx: ConditionContext): Promise<Observation[]> {
  const field = c.field!;
  const kind = c.field_kind ?? (CATEGORICAL_FIELDS.has(field) ? 'categorical' : 'numeric');
  const column = field.startsWith('features.') ? 'features' : field;
  const w = windows(c, ctx.nowMs);
  // Stratified: up to max_rows per slice, spread over the window, so a small version is not starved
  // by a large one (the whole answer bounded by 200 slices' worth).
  const read = async (range: { fromMs: number; toMs: number }) => {
    const rows = await ctx.reads.events({
      ...range,
      filters: c.filters,
      includeProbes: false,
      columns: [column, ...c.by],
      limit: c.max_rows * 200,
      order: 'sample',
      perSlice: { by: c.by, limit: c.max_rows },
    });
    const bySlice = new Map<string, { labels: Labels; values: (number | string)[] }>();
    for (const e of rows) {
      const v = fieldValue(e, field);
      if (v === null || v === undefined) continue;
      const labels: Labels = {};
      for (const d of c.by) {
        const x = (e as Record<string, unknown>)[d];
        if (x !== null && x !== undefined) labels[d] = String(x);
      }
      const key = sliceKey(labels, c.by);
      let s = bySlice.get(key);
      if (!s) bySlice.set(key, (s = { labels, values: [] }));
      s.values.push(kind === 'numeric' ? Number(v) : String(v));
    }
    return bySlice;
  };
  const cur = await read(w.cur);
  const ref = await read(w.ref);
  // Where the reference (say a day ago) has too little of a slice, the window just before the
  // current one stands in (a trailing reference), and slices with neither are counted, not skipped.
  const thin = [...cur].filter(([k, s]) => s.values.length >= c.min_count && (ref.get(k)?.values.length ?? 0) < c.min_count);
  const trailing =
    thin.length > 0 && c.reference !== undefined
      ? await read({ fromMs: 2 * w.cur.fromMs - w.cur.toMs, toMs: w.cur.fromMs })
      : new Map<string, { labels: Labels; values: (number | string)[] }>();
  let judged = 0;
  let without = 0;
  const out: Observation[] = [];
  for (const [key, s] of cur) {
    if (s.values.length < c.min_count) continue;
    const own = ref.get(key);
    const r = own && own.values.length >= c.min_count ? own : trailing.get(key);
    if (!r || r.values.length < c.min_count) {
      without++;
      continue;
    }
    judged++;
    const opts = { minSamples: c.min_count, alpha: c.alpha };
    const res =
      kind === 'numeric'
        ? driftTest(r.values as number[], s.values as number[], 'numeric', opts)
        : driftTest(r.values as string[], s.values as string[], 'categorical', opts);
    if (res.verdict === 'drift') out.push({ labels: s.labels, value: res.statistic });
  }
  ctx.note?.({ judged, without_reference: without });
  return out;
}

export function evalQualityChange(c: QualityChangeCondition, ctx: ConditionContext): Promise<Observation[]> {
  return c.test === 'drift' ? evalDrift(c, ctx) : evalProportion(c, ctx);
}
