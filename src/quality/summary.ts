/**
 * `POST /v1/quality/summary`: for each model in the window, its type (declared or inferred) and the
 * quality measures that fit it, per group (version, tenant, entry, …) and time bucket:
 * - classifier: label distribution with shares, confidence histogram and quantiles, low-confidence
 *   ratio, empty ratio, and the shift in share of the key classes against the previous window;
 * - generative: output length quantiles, refusal, malformed, empty ratios, TTFT / TPOT quantiles,
 *   finish reasons;
 * - ranker: score quantiles, and click / conversion rate from joined feedback.
 * Everything is built from the query API's measures (src/schema/query.ts); nothing new is stored.
 */
import { benjaminiHochberg, proportionTest } from '../analysis/index.ts';
import { DEFAULT_LOW_CONFIDENCE } from '../schema/index.ts';
import type {
  ClassShiftReply as ClassShift,
  ConfidenceHistogramRow,
  Dimension,
  DistributionRow,
  Filters,
  GroupKey,
  ModelQualityReply as ModelQuality,
  QualitySummaryReply,
  QualitySummaryRequest,
  QueryRow,
} from '../schema/index.ts';
import { flattenFeedbackRow } from './feedback.ts';
import { detectModelTypes } from './model-type.ts';
import type { ModelType } from './model-type.ts';
import type { QualityReads } from './reads.ts';
import { specOf } from './reads.ts';

/** Upper edges of the confidence histogram's bins: [0, 0.1), [0.1, 0.2), …, [0.9, 1]. */
export const CONFIDENCE_EDGES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] as const;

/** The measures per model type (names of the query API, so a chart can re-run any of them). */
export function measuresFor(type: ModelType | 'unknown', lowConfidence: number): string[] {
  const base = ['count', 'n'];
  switch (type) {
    case 'classifier':
      return [
        ...base,
        `below_rate(confidence, ${lowConfidence})`,
        'empty_rate',
        'p50(confidence)',
        'p75(confidence)',
        'p90(confidence)',
        'p99(confidence)',
        'mean(confidence)',
        'min(confidence)',
        'max(confidence)',
      ];
    case 'generative':
      return [
        ...base,
        'empty_rate',
        'refused_rate',
        'format_error_rate',
        'p50(output_length)',
        'p90(output_length)',
        'p99(output_length)',
        'mean(output_length)',
        'max(output_length)',
        'p50(output_tokens)',
        'p90(output_tokens)',
        'mean(output_tokens)',
        'p50(ttft_ms)',
        'p90(ttft_ms)',
        'p99(ttft_ms)',
        'p50(tpot_ms)',
        'p90(tpot_ms)',
        'p99(tpot_ms)',
      ];
    case 'ranker':
      return [...base, 'p50(score)', 'p90(score)', 'p99(score)', 'mean(score)', 'min(score)', 'max(score)'];
    case 'unknown':
      return [...base, 'error_rate', 'empty_rate', 'format_error_rate'];
  }
}

export interface SummaryOptions {
  /** Declared model types (config); others are inferred. */
  modelTypes?: Readonly<Record<string, ModelType>>;
  /** The low-confidence cut-off when the request gives none (config `quality.low_confidence`). */
  lowConfidence?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const withIso = (rows: QueryRow[]): QueryRow[] => rows.map((r) => (typeof r.bucket === 'number' ? { ...r, bucket: iso(r.bucket) } : r));
const groupKey = (r: QueryRow, dims: readonly string[]) => JSON.stringify([r.bucket ?? null, ...dims.map((d) => r[d] ?? null)]);

/** Shares of a categorical field within each (bucket, group); rows with no value are left out. */
export function distribution(rows: readonly QueryRow[], field: 'label' | 'finish_reason', dims: readonly string[]): DistributionRow[] {
  const totals = new Map<string, number>();
  const kept = rows.filter((r) => r[field] != null);
  for (const r of kept) totals.set(groupKey(r, dims), (totals.get(groupKey(r, dims)) ?? 0) + Number(r.count));
  return kept.map((r) => {
    const total = totals.get(groupKey(r, dims)) ?? 0;
    return { ...r, count: Number(r.count), share: total > 0 ? Number(r.count) / total : 0 };
  });
}

/** Histogram shares from the cumulative below_rate measures: share_i = below(e_i) − below(e_{i−1}). */
export function histogramShares(row: QueryRow, names: readonly string[]): number[] | null {
  const cum = names.map((n) => row[n]);
  if (cum.some((v) => v == null)) return null;
  const out: number[] = [];
  let prev = 0;
  for (const v of cum as number[]) {
    out.push(Math.max(0, v - prev));
    prev = v;
  }
  out.push(Math.max(0, 1 - prev));
  return out;
}

/** Label shares now vs the previous window, per group, with a two-proportion test per class. */
export function classShift(
  now: readonly QueryRow[],
  before: readonly QueryRow[],
  dims: readonly string[],
  keyClasses: readonly string[] | undefined,
): ClassShift[] {
  const tally = (rows: readonly QueryRow[]) => {
    const groups = new Map<string, { group: Record<string, string | null>; n: number; byLabel: Map<string, number> }>();
    for (const r of rows) {
      if (r.label == null) continue;
      const k = groupKey({ ...r, bucket: null }, dims);
      let g = groups.get(k);
      if (!g) groups.set(k, (g = { group: Object.fromEntries(dims.map((d) => [d, (r[d] as string | null) ?? null])), n: 0, byLabel: new Map() }));
      g.n += Number(r.n);
      g.byLabel.set(String(r.label), (g.byLabel.get(String(r.label)) ?? 0) + Number(r.n));
    }
    return groups;
  };
  const cur = tally(now);
  const prev = tally(before);
  const out: ClassShift[] = [];
  for (const [k, g] of [...cur.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const p = prev.get(k);
    const labels =
      keyClasses ??
      [...g.byLabel.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 5)
        .map(([l]) => l);
    for (const label of labels) {
      const k1 = g.byLabel.get(label) ?? 0;
      const k0 = p?.byLabel.get(label) ?? 0;
      const n0 = p?.n ?? 0;
      const test = n0 > 0 && g.n > 0 ? proportionTest(k1, g.n, k0, n0) : null;
      out.push({
        group: g.group,
        label,
        share: g.n > 0 ? k1 / g.n : 0,
        previous_share: n0 > 0 ? k0 / n0 : null,
        delta: n0 > 0 && g.n > 0 ? k1 / g.n - k0 / n0 : null,
        n: g.n,
        previous_n: n0,
        p_value: test ? test.pValue : null,
        q_value: null,
        method: test ? test.method : null,
      });
    }
  }
  const q = benjaminiHochberg(out.map((c) => c.p_value ?? NaN));
  out.forEach((c, i) => (c.q_value = Number.isNaN(q[i]!) ? null : q[i]!));
  return out;
}

/** Answers the summary request. */
export async function qualitySummary(reads: QualityReads, o: QualitySummaryRequest, options: SummaryOptions = {}): Promise<QualitySummaryReply> {
  const { fromMs, toMs, stepMs } = o;
  const lowConfidence = o.low_confidence ?? options.lowConfidence ?? DEFAULT_LOW_CONFIDENCE;
  const filters = o.filters as Filters;
  const dims: Dimension[] = o.group_by.filter((d) => d !== 'model');
  const models = await detectModelTypes(reads, fromMs, toMs, filters, options.modelTypes ?? {});
  const extra = (groupBy: GroupKey[]) => ({ groupBy, ...(stepMs !== undefined ? { stepMs } : {}) });
  const out: ModelQuality[] = [];
  for (const m of models) {
    const f: Filters = { ...filters, model: m.model };
    const q: ModelQuality = { ...m, measures: withIso(await reads.aggregate(specOf(fromMs, toMs, f, measuresFor(m.type, lowConfidence), extra(dims)))) };
    if (m.type === 'classifier') {
      q.labels = distribution(withIso(await reads.aggregate(specOf(fromMs, toMs, f, ['count'], extra([...dims, 'label'])))), 'label', dims);
      const names = CONFIDENCE_EDGES.slice(0, -1).map((e) => `below_rate(confidence, ${e})`);
      const hist = withIso(await reads.aggregate(specOf(fromMs, toMs, f, names, extra(dims))));
      q.confidence_histogram = {
        edges: CONFIDENCE_EDGES,
        rows: hist.flatMap((r) => {
          const shares = histogramShares(r, names);
          if (!shares) return [];
          const row: ConfidenceHistogramRow = { shares };
          if (typeof r.bucket === 'string') row.bucket = r.bucket;
          for (const d of dims) row[d] = r[d] ?? null;
          return [row];
        }),
      };
      const prevFromMs = 2 * fromMs - toMs;
      const now = await reads.aggregate(specOf(fromMs, toMs, f, ['n'], { groupBy: [...dims, 'label'] }));
      const before = await reads.aggregate(specOf(prevFromMs, fromMs, f, ['n'], { groupBy: [...dims, 'label'] }));
      q.key_class_shift = { previous: { from: iso(prevFromMs), to: iso(fromMs) }, classes: classShift(now, before, dims, o.key_classes) };
    } else if (m.type === 'generative') {
      q.finish_reasons = distribution(
        withIso(await reads.aggregate(specOf(fromMs, toMs, f, ['count'], extra([...dims, 'finish_reason'])))),
        'finish_reason',
        dims,
      );
    } else if (m.type === 'ranker') {
      const fb = await reads.feedbackStats({ fromMs, toMs, filters: f, groupBy: dims, limit: 10_000, ...(stepMs !== undefined ? { stepMs } : {}) });
      q.feedback = fb.rows.map(flattenFeedbackRow);
    }
    out.push(q);
  }
  return { from: iso(fromMs), to: iso(toMs), low_confidence: lowConfidence, models: out };
}
