/** What a condition reads through and what it answers: the slices where it holds, with a value. */
import type { Filters, GroupKey, Measure, QueryRow, QuerySpec } from '../../schema/index.ts';
import { parseMeasure } from '../../schema/index.ts';
import type { TypedReads } from '../../query/index.ts';
import type { SeriesCache } from '../series.ts';
import type { Labels } from '../labels.ts';
import type { Op } from '../rule-schema.ts';

export interface ConditionContext {
  reads: TypedReads;
  /** Per-minute series shared by the sequential detectors, read incrementally. */
  series: SeriesCache;
  /** Evaluation time: every window ends here. */
  nowMs: number;
  /** Most slices one query may return. */
  maxSlices: number;
  /** Says how many slices were judged and how many lacked a reference to be judged against. */
  note?(coverage: Coverage): void;
  /** Whether this rule's alert for a slice is firing (the sequential detectors' hysteresis). */
  firing?(labels: Labels): boolean;
  /** Whether it is pending or firing (a burst's rise, once held, is not held again: latency_shift's burst_hold). */
  active?(labels: Labels): boolean;
}

/** What one evaluation of a rule could judge: shown beside the rule, never silent. */
export interface Coverage {
  /** Slices with enough data and a reference to be judged. */
  judged: number;
  /** Slices with data but too little history (or too few peers) to be judged yet. */
  without_reference: number;
}

/** One slice where the condition holds now. */
export interface Observation {
  labels: Labels;
  value: number;
  /** Numbers behind the verdict, for annotations (`{{ $details.rate }}`) and the API. */
  details?: Record<string, number | string>;
}

export function compare(a: number, op: Op, b: number): boolean {
  switch (op) {
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
}

/** Measures validated at load; a parse failure here is a bug. */
export function measure(name: string): { name: string; measure: Measure } {
  const m = parseMeasure(name);
  if (typeof m === 'string') throw new Error(m);
  return { name, measure: m };
}

/** The slice labels of a result row: the group-by values that are present. */
export function sliceLabels(row: QueryRow, by: readonly string[]): Labels {
  const out: Labels = {};
  for (const d of by) {
    const v = row[d];
    if (v !== null && v !== undefined) out[d] = String(v);
  }
  return out;
}

export const sliceKey = (labels: Labels, by: readonly string[]): string => by.map((d) => labels[d] ?? '').join('\u0000');

export interface SliceQuery {
  fromMs: number;
  toMs: number;
  filters: Filters;
  by: readonly GroupKey[];
  measures: readonly string[];
}

/** One aggregate per slice, keyed by the slice's values. */
export async function aggregateBySlice(ctx: ConditionContext, q: SliceQuery): Promise<Map<string, { labels: Labels; row: QueryRow }>> {
  const spec: QuerySpec = {
    fromMs: q.fromMs,
    toMs: q.toMs,
    filters: q.filters,
    groupBy: [...q.by],
    measures: q.measures.map(measure),
    includeProbes: false,
    limit: ctx.maxSlices,
  };
  const rows = await ctx.reads.aggregate(spec);
  const out = new Map<string, { labels: Labels; row: QueryRow }>();
  for (const row of rows) {
    const labels = sliceLabels(row, q.by);
    out.set(sliceKey(labels, q.by), { labels, row });
  }
  return out;
}

export const num = (v: string | number | null | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
