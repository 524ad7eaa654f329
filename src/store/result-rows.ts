/**
 * Result rows of every backend shaped into the Store's types, so each backend only writes SQL: the
 * aggregate's columns (bucket, group columns, m0…), histogram counts per bucket, slice counts,
 * captured samples, and the feedback join's statistics.
 */
import type { Dimension, FeedbackStats, FeedbackStatsRow, FeedbackStatsSpec, QueryRow, QuerySpec } from '../schema/index.ts';
import { InferlensError } from '../schema/index.ts';
import type { BucketCountRow, BucketCountSpec, HistogramRow, HistogramSpec, SliceCount, StoredSample } from './store.ts';

export type Row = Record<string, unknown>;

const num = (v: unknown): number => Number(v ?? 0);
/** A number, or null for SQL NULL (and NaN, which no measure means). */
const numOrNull = (v: unknown): number | null => (v == null || Number.isNaN(Number(v)) ? null : Number(v));

/** Aggregate result columns (bucket, group columns, m0…) to QueryRows; counts of nothing are 0. */
export function toQueryRows(spec: QuerySpec, rows: Row[]): QueryRow[] {
  return rows.map((r) => {
    const out: QueryRow = {};
    if (spec.stepMs !== undefined) out.bucket = Number(r.bucket);
    for (const d of spec.groupBy) out[d] = (r[d] as string | null) ?? null;
    spec.measures.forEach(({ name, measure }, i) => {
      const v = numOrNull(r[`m${i}`]);
      out[name] = v == null && (measure.kind === 'count' || measure.kind === 'n' || measure.kind === 'qps') ? 0 : v;
    });
    return out;
  });
}

/** Histogram result rows (bucket, idx, n) to one count array per bucket, oldest first. */
export function toHistogramRows(spec: HistogramSpec, rows: Row[]): HistogramRow[] {
  const byBucket = new Map<number, number[]>();
  for (const r of rows) {
    const b = Number(r.bucket);
    let counts = byBucket.get(b);
    if (!counts) byBucket.set(b, (counts = new Array<number>(spec.boundsMs.length + 1).fill(0)));
    counts[Number(r.idx)] = Number(r.n);
  }
  return [...byBucket.entries()].sort((a, b) => a[0] - b[0]).map(([bucketMs, counts]) => ({ bucketMs, counts }));
}

/** The feedback join's rows (requests, with_feedback, correct_n, … click_rate) and the orphan count. */
export function toFeedbackStats(spec: FeedbackStatsSpec, rows: Row[], orphans: number): FeedbackStats {
  return {
    rows: rows.map((r): FeedbackStatsRow => {
      const group: FeedbackStatsRow['group'] = {};
      for (const d of spec.groupBy) group[d] = (r[d] as string | null) ?? null;
      const out: FeedbackStatsRow = {
        group,
        requests: num(r.requests),
        withFeedback: num(r.with_feedback),
        correctN: num(r.correct_n),
        correctRate: numOrNull(r.correct_rate),
        labelN: num(r.label_n),
        labelAccuracy: numOrNull(r.label_accuracy),
        thumbsN: num(r.thumbs_n),
        thumbsUpRate: numOrNull(r.thumbs_up_rate),
        ratingN: num(r.rating_n),
        ratingMean: numOrNull(r.rating_mean),
        conversions: num(r.conversions),
        conversionRate: numOrNull(r.conversion_rate),
        clicks: num(r.clicks),
        clickRate: numOrNull(r.click_rate),
      };
      if (spec.stepMs !== undefined) out.bucketMs = num(r.bucket);
      return out;
    }),
    orphans,
  };
}

/**
 * The grouping sets of the slice finder: each dimension alone, each pair when asked, and the total
 * (`()`), e.g. [(a), (b), (a, b), ()]. Dimensions are checked identifiers.
 */
export function sliceGroupingSets(dims: readonly string[], pairs: boolean): string[] {
  const sets = dims.map((d) => `(${d})`);
  if (pairs) for (let i = 0; i < dims.length; i++) for (let j = i + 1; j < dims.length; j++) sets.push(`(${dims[i]}, ${dims[j]})`);
  sets.push('()');
  return sets;
}

/** Slice-finder rows (dimension columns, g_<dim> = grouping(dim), n, k) to SliceCounts. */
export function toSliceCounts(dims: readonly string[], rows: Row[]): SliceCount[] {
  return rows.map((r) => {
    const slice: Partial<Record<Dimension, string>> = {};
    for (const d of dims) if (Number(r[`g_${d}`]) === 0) slice[d as Dimension] = r[d] as string;
    return { slice, n: Number(r.n), k: Number(r.k) };
  });
}

const str = (v: unknown): string | null => (v as string | null) ?? null;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** A stored sample row (`ts_ms` in epoch ms, the other columns by name) as read back. */
export function toStoredSample(r: Row): StoredSample {
  return {
    ts: new Date(Number(r.ts_ms)).toISOString(),
    request_id: str(r.request_id),
    model: r.model as string,
    model_version: str(r.model_version),
    tenant: str(r.tenant),
    entry: str(r.entry),
    node: str(r.node),
    replica: str(r.replica),
    route_rule: str(r.route_rule),
    status: str(r.status),
    error_type: str(r.error_type),
    label: str(r.label),
    confidence: (r.confidence as number | null) ?? null,
    reasons: strings(r.reasons),
    risk_tags: strings(r.risk_tags),
    sample_weight: Number(r.sample_weight),
    input: str(r.input),
    output: str(r.output),
  };
}

/**
 * Bucket-count rows (bucket, the group-by columns, and the step's buckets: `idx` and `n` lists
 * sorted by index, or `pairs` of [idx, n] sorted), their counts read with a limit of
 * `spec.limit + 1`: more than `spec.limit` counts is the caller's `resource_exhausted`, as the
 * contract says.
 */
export function toBucketCountRows(spec: BucketCountSpec, dims: readonly string[], rows: Row[]): BucketCountRow[] {
  let total = 0;
  const out = rows.map((r): BucketCountRow => {
    const slice: Record<string, string | null> = {};
    for (const d of dims) slice[d] = (r[d] as string | null) ?? null;
    const pairs = r.pairs as [unknown, unknown][] | undefined;
    const indices = pairs ? pairs.map((x) => Number(x[0])) : (r.idx as unknown[]).map(Number);
    const counts = pairs ? pairs.map((x) => Number(x[1])) : (r.n as unknown[]).map(Number);
    total += indices.length;
    return { bucketMs: Number(r.bucket), slice, indices, counts };
  });
  if (total > spec.limit)
    throw new InferlensError(
      'resource_exhausted',
      `more than ${spec.limit} bucket counts for ${spec.column} by ${spec.groupBy.join(', ') || 'nothing'}: narrow the filters or the range`,
    );
  return out;
}
