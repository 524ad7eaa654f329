/**
 * The runtime analyses on top of the store: where errors (or slow requests) concentrate, which
 * stage made the tail grow, whether a slice is saturating, the latency heatmap, the samples behind
 * a chart point, and resource series on the request buckets. Statistics come from src/analysis.
 */
import { compareReplicas, compareTailComposition, detectSaturation, judgeStageShifts, logBuckets, rankSlices } from '../analysis/index.ts';
import type { StageShiftInput, TailComposition, TrendEvidence } from '../analysis/index.ts';
import { FAILED_STATUSES, SHED_STATUSES, STAGES, parseDurationMs, parseMeasure } from '../schema/index.ts';
import type {
  Dimension,
  ErrorSlicesRequest,
  EventSearchRequest,
  Filters,
  HistogramRequest,
  Measure,
  QuerySpec,
  ResourceQueryRequest,
  SaturationRequest,
  StagesRequest,
  StoredEvent,
} from '../schema/index.ts';
import { HISTOGRAM_APPROXIMATION } from '../store/index.ts';
import type { StoreReads } from '../store/index.ts';
import { snakeKeys } from '../schema/index.ts';
import type {
  Approximation,
  ErrorSlicesReply,
  EventSearchReply,
  HistogramReply,
  ResourceSeriesReply,
  SaturationReply,
  StageShiftReply,
  StagesReply,
  TailCompositionReply,
  TrendEvidenceReply,
} from '../schema/index.ts';
import { answer } from './runtime.ts';

function measures(names: string[]): QuerySpec['measures'] {
  return names.map((name) => ({ name, measure: parseMeasure(name) as Measure }));
}

function baseSpec(fromMs: number, toMs: number, filters: Filters, names: string[], extra: Partial<QuerySpec> = {}): QuerySpec {
  return { fromMs, toMs, filters, groupBy: [], includeProbes: false, limit: 10_000, measures: measures(names), ...extra };
}

// ---------- where errors (or slow requests) concentrate ----------

/**
 * Dimensions searched by default: 7 singles and 21 pairs. Node and service tier are left out
 * (a replica names its node; tiers follow tenants) to keep the grouping sets cheap: measured
 * 1.0 s for 8 dimensions on 1.7 M rows.
 */
const DEFAULT_SLICE_DIMS: Dimension[] = ['model', 'model_version', 'tenant', 'entry', 'replica', 'route_rule', 'pool'];

/**
 * Above this many rows in the window, an `approx` slice search counts a sample of about this many:
 * 200,000 rows keep a slice with 1 % of the traffic at ~2,000 sampled rows, whose failure rate
 * then carries a Wilson 95 % interval of about ±0.4 points at a 1 % rate. The statistics (intervals,
 * tests, q-values) are computed on the sampled counts, so they include the sampling error; the
 * sampling unit is a vector of 2,048 consecutive rows, so failures bunched within seconds weigh
 * as a cluster. Measured on 1.67 M rows: 0.22–0.45 s for all rows, 0.07–0.1 s for a 12 % sample.
 */
export const SLICE_SAMPLE_ROWS = 200_000;

export async function errorSlices(store: StoreReads, o: ErrorSlicesRequest): Promise<ErrorSlicesReply> {
  const { fromMs, toMs } = o;
  const filters = o.filters as Filters;
  let thresholdMs: number | undefined;
  let approxUsed: Approximation | null = null;
  let bad: { statuses: string[] } | { column: string; aboveMs: number };
  if (o.kind === 'slow') {
    thresholdMs = o.threshold_ms;
    if (thresholdMs === undefined) {
      const a = await answer(store, baseSpec(fromMs, toMs, filters, [`p95(${o.field})`], { approx: o.approx }));
      thresholdMs = (a.rows[0]?.[`p95(${o.field})`] as number | null) ?? undefined;
      if (o.approx) approxUsed = a.approx;
    }
    if (thresholdMs === undefined) return { kind: 'slow', total: { n: 0, k: 0, rate: null }, slices: [] };
    bad = { column: o.field, aboveMs: thresholdMs };
  } else if (o.kind === 'shed') {
    // Turned away before being served: the service's own limits (a full queue, a tenant's quota).
    bad = { statuses: [...SHED_STATUSES] };
  } else {
    // Errors include timeouts: both are failures the caller saw.
    bad = { statuses: [...FAILED_STATUSES] };
  }
  // With approx, a window of more than SLICE_SAMPLE_ROWS rows is counted on a sample of about
  // that many (the count itself is cheap: one column, zone maps).
  let sample: ErrorSlicesReply['sample'] = null;
  if (o.approx) {
    const [row] = await store.aggregate(baseSpec(fromMs, toMs, filters, ['n']));
    const windowRows = Number(row?.n ?? 0);
    if (windowRows > SLICE_SAMPLE_ROWS) sample = { fraction: SLICE_SAMPLE_ROWS / windowRows, window_rows: windowRows };
  }
  const counts = await store.sliceCounts({
    fromMs,
    toMs,
    filters,
    dimensions: o.dimensions ?? DEFAULT_SLICE_DIMS,
    bad,
    pairs: o.pairs,
    minSupport: o.min_support,
    ...(sample ? { sampleFraction: sample.fraction } : {}),
  });
  const extra = { ...(o.approx && o.kind === 'slow' ? { approx: approxUsed } : {}), ...(o.approx ? { sample } : {}) };
  const totalRow = counts.find((c) => Object.keys(c.slice).length === 0) ?? { n: 0, k: 0 };
  const slices = counts.filter((c) => Object.keys(c.slice).length > 0).map((c) => ({ slice: c.slice as Record<string, string>, n: c.n, k: c.k }));
  const total = { n: totalRow.n, k: totalRow.k, rate: totalRow.n > 0 ? totalRow.k / totalRow.n : null };
  if (total.n === 0) return { kind: o.kind, ...(thresholdMs !== undefined ? { threshold_ms: thresholdMs } : {}), total, slices: [], ...extra };
  // A pair that holds exactly the same requests as one of its single-dimension parents (e.g.
  // model=m × node=n2 when m runs only on n2) says nothing new: drop it.
  const singles = new Map(slices.filter((c) => Object.keys(c.slice).length === 1).map((c) => [JSON.stringify(c.slice), c]));
  const redundant = (c: { slice: Record<string, string>; n: number; k: number }) =>
    Object.keys(c.slice).length > 1 &&
    Object.entries(c.slice).some(([d, v]) => {
      const parent = singles.get(JSON.stringify({ [d]: v }));
      return parent !== undefined && parent.n === c.n && parent.k === c.k;
    });
  const ranked = rankSlices({ total: { n: total.n, k: total.k }, slices: slices.filter((c) => !redundant(c)), minSupport: o.min_support });
  return {
    kind: o.kind,
    ...(thresholdMs !== undefined ? { threshold_ms: thresholdMs } : {}),
    total,
    slices: ranked.slice(0, o.limit).map(snakeKeys),
    ...extra,
  };
}

// ---------- stage attribution ----------

/** Most tail rows per window read for the tail composition (the quantiles themselves are exact, in SQL). */
const TAIL_ROWS = 5_000;
/** Most replicas compared (the busiest). */
const MAX_REPLICAS = 200;

export async function stageAttribution(store: StoreReads, o: StagesRequest): Promise<StagesReply> {
  const cur = { fromMs: o.fromMs, toMs: o.toMs };
  const base = o.baseline ? { fromMs: o.baseline.fromMs, toMs: o.baseline.toMs } : { fromMs: 2 * cur.fromMs - cur.toMs, toMs: cur.fromMs };
  const filters = o.filters as Filters;
  const baseFilters = (o.baseline?.filters ?? o.filters) as Filters;
  const qName = `p${Math.round(o.q * 1000) / 10}`.replace('.', '');
  const fields = [...STAGES, 'total_ms'] as const;
  const quantileMeasures = (list: readonly string[]): QuerySpec['measures'] =>
    list.flatMap((field) => [
      { name: `${qName}(${field})`, measure: { kind: 'quantile', q: o.q, field } as Measure },
      { name: `n(${field})`, measure: { kind: 'agg', fn: 'count', field } as Measure },
    ]);
  // Exact quantile_cont and the sample count per field, in the store.
  const quantileSpec = (fromMs: number, toMs: number, f: Filters): QuerySpec => ({
    ...baseSpec(fromMs, toMs, f, [], { approx: o.approx }),
    measures: quantileMeasures(fields),
  });
  const [curA, baseA, byReplica] = await Promise.all([
    answer(store, quantileSpec(cur.fromMs, cur.toMs, filters)),
    answer(store, quantileSpec(base.fromMs, base.toMs, baseFilters)),
    store.aggregate({
      ...baseSpec(cur.fromMs, cur.toMs, filters, ['n']),
      groupBy: ['replica'],
      limit: MAX_REPLICAS,
      measures: measures(['n', ...fields.map((f) => `p50(${f})`)]),
    }),
  ]);
  const [curRow, baseRow] = [curA.rows[0], baseA.rows[0]];
  const value = (row: Record<string, unknown> | undefined, key: string): number | null => (typeof row?.[key] === 'number' ? (row[key] as number) : null);
  // The significance of each shift: the share of requests strictly above the baseline's quantile b,
  // now and before (below_rate is weighted by sample_weight; × the row count gives the requests).
  // "≤ b" is asked as "< b·(1 + 2⁻⁴⁰)": stored latencies are rounded to 3 decimals, far coarser,
  // and a window where most requests take exactly b (a constant stage) must not count as above it.
  const present = fields.filter((f) => value(baseRow, `${qName}(${f})`) !== null);
  const atMost = (b: number) => (b === 0 ? Number.MIN_VALUE : b * (1 + 2 ** -40));
  const aboveSpec = (fromMs: number, toMs: number, f: Filters): QuerySpec => ({
    ...baseSpec(fromMs, toMs, f, []),
    measures: present.map((field) => ({
      name: field,
      measure: { kind: 'below_rate', field, threshold: atMost(value(baseRow, `${qName}(${field})`) as number) } as Measure,
    })),
  });
  const [curBelow, baseBelow] =
    present.length === 0
      ? [undefined, undefined]
      : (await Promise.all([store.aggregate(aboveSpec(cur.fromMs, cur.toMs, filters)), store.aggregate(aboveSpec(base.fromMs, base.toMs, baseFilters))])).map(
          (r) => r[0],
        );
  // The tail: the TAIL_ROWS most recent requests at or above each window's total quantile, read
  // raw. About (1 − q)·n rows are in the tail; when that is well over TAIL_ROWS, the most recent
  // part of the window that should hold 1.25 × TAIL_ROWS of them is read first (on 1.67 M rows:
  // 22 of 60 minutes). If it holds TAIL_ROWS, those are the most recent ones of the whole window;
  // if not, the whole window is read.
  const tailRows = async (fromMs: number, toMs: number, f: Filters, threshold: unknown, n: unknown) => {
    if (typeof threshold !== 'number') return [];
    const read = (from: number) =>
      store.listEvents({
        fromMs: from,
        toMs,
        filters: f,
        includeProbes: false,
        columns: [...fields],
        minValue: { column: 'total_ms', value: threshold },
        limit: TAIL_ROWS,
      });
    const expected = (1 - o.q) * (typeof n === 'number' ? n : 0);
    if (expected > 1.5 * TAIL_ROWS) {
      const from = Math.floor(toMs - ((toMs - fromMs) * 1.25 * TAIL_ROWS) / expected);
      const recent = await read(from);
      if (recent.length >= TAIL_ROWS) return recent;
    }
    return read(fromMs);
  };
  const [curRows, baseRows] = await Promise.all([
    tailRows(cur.fromMs, cur.toMs, filters, curRow?.[`${qName}(total_ms)`], curRow?.['n(total_ms)']),
    tailRows(base.fromMs, base.toMs, baseFilters, baseRow?.[`${qName}(total_ms)`], baseRow?.['n(total_ms)']),
  ]);
  const shiftInput = (field: string): StageShiftInput => {
    const nCurrent = value(curRow, `n(${field})`) ?? 0;
    const nBaseline = value(baseRow, `n(${field})`) ?? 0;
    const above = (row: Record<string, unknown> | undefined, n: number) =>
      value(row, field) === null ? 0 : Math.round((1 - (value(row, field) as number)) * n);
    return {
      stage: field,
      currentMs: value(curRow, `${qName}(${field})`) ?? NaN,
      baselineMs: value(baseRow, `${qName}(${field})`) ?? NaN,
      nCurrent,
      nBaseline,
      aboveCurrent: above(curBelow, nCurrent),
      aboveBaseline: above(baseBelow, nBaseline),
    };
  };
  const finite = (x: number) => (Number.isFinite(x) ? x : null);
  const asRow = (s: ReturnType<typeof judgeStageShifts>['stages'][number]): StageShiftReply => ({
    stage: s.stage,
    current_ms: finite(s.currentMs),
    baseline_ms: finite(s.baselineMs),
    delta_ms: finite(s.deltaMs),
    ratio: s.baselineMs > 0 ? finite(s.ratio) : null,
    n_current: s.nCurrent,
    n_baseline: s.nBaseline,
    above_current: s.aboveCurrent,
    above_baseline: s.aboveBaseline,
    p_value: s.pValue,
    grew: s.grew,
  });
  const judged = judgeStageShifts(STAGES.map(shiftInput).filter((s) => Number.isFinite(s.currentMs) || Number.isFinite(s.baselineMs)));
  const total = asRow(judgeStageShifts([shiftInput('total_ms')]).stages[0]!);
  const replicas = byReplica
    .filter((r) => typeof r.replica === 'string')
    .map((r) => ({
      replica: r.replica as string,
      n: Number(r.n ?? 0),
      totalMs: value(r, 'p50(total_ms)'),
      stagesMs: Object.fromEntries(STAGES.map((f) => [f, value(r, `p50(${f})`)])),
    }))
    .filter((r) => Object.values(r.stagesMs).some((v) => v !== null));
  const slow = compareReplicas(replicas);
  const asRows = (rows: StoredEvent[]) => rows.map((r) => r as unknown as Record<string, number | null>);
  // The rows read are already the tail (total ≥ its exact quantile), so every one of them counts
  // (q = 0 inside); the reported q and thresholds are the window's.
  let tail: StagesReply['tail'] = null;
  if (curRows.length > 0 && baseRows.length > 0) {
    const t = compareTailComposition(asRows(curRows), asRows(baseRows), 0, { stages: STAGES });
    const composition = (c: TailComposition, threshold: unknown): TailCompositionReply => ({
      q: o.q,
      threshold_ms: typeof threshold === 'number' ? threshold : null,
      n_rows: c.nRows,
      n_tail: c.nTail,
      shares: c.shares.map(snakeKeys),
    });
    tail = {
      current: composition(t.current, curRow?.[`${qName}(total_ms)`]),
      baseline: composition(t.baseline, baseRow?.[`${qName}(total_ms)`]),
      stages: t.stages.map(snakeKeys),
      grew_most: t.grewMost,
    };
  }
  return {
    q: o.q,
    current: { from: new Date(cur.fromMs).toISOString(), to: new Date(cur.toMs).toISOString() },
    baseline: { from: new Date(base.fromMs).toISOString(), to: new Date(base.toMs).toISOString() },
    stages: judged.stages.map(asRow),
    total,
    grew_most: judged.grewMost,
    replicas: replicas.map(snakeKeys),
    slow_replica: slow ? snakeKeys(slow) : null,
    tail,
    // Either window read from the rollup makes the answer approximate (within its bound).
    ...(o.approx ? { approx: curA.approx ?? baseA.approx } : {}),
  };
}

// ---------- saturation ----------

/**
 * Saturation of the window, judged with a baseline of the same length (at least 10 steps) read
 * just before it, so a window that starts at the onset still shows the step up. Throughput is the
 * served rate (offered minus rejected and rate-limited); the shed share is tested too.
 */
export async function saturation(store: StoreReads, o: SaturationRequest): Promise<SaturationReply> {
  const { fromMs, toMs, stepMs } = o;
  const baselineMs = o.baseline ? parseDurationMs(o.baseline)! : Math.max(toMs - fromMs, 10 * stepMs);
  // Whole steps before `from`, so the baseline's buckets line up with the window's.
  const baseFromMs = fromMs - Math.ceil(baselineMs / stepMs) * stepMs;
  const { rows, approx: used } = await answer(
    store,
    baseSpec(baseFromMs, toMs, o.filters as Filters, ['qps', 'rejected_rate', 'rate_limited_rate', 'mean(queue_ms)', 'p99(total_ms)', 'n'], {
      stepMs,
      approx: o.approx,
    }),
  );
  const points = rows.map((r) => {
    const offered = r.qps as number;
    const shed =
      r['rejected_rate'] == null && r['rate_limited_rate'] == null
        ? null
        : ((r['rejected_rate'] as number | null) ?? 0) + ((r['rate_limited_rate'] as number | null) ?? 0);
    return {
      bucket: new Date(r.bucket as number).toISOString(),
      baseline: (r.bucket as number) < fromMs,
      offeredQps: offered,
      qps: offered * (1 - (shed ?? 0)),
      shedRate: shed,
      queueMs: r['mean(queue_ms)'] as number | null,
      p99Ms: r['p99(total_ms)'] as number | null,
      n: r.n as number,
    };
  });
  const r = detectSaturation(
    points
      .filter((p) => p.queueMs != null && p.p99Ms != null)
      .map((p) => ({
        t: Date.parse(p.bucket),
        qps: p.qps,
        queueMs: p.queueMs as number,
        p99Ms: p.p99Ms as number,
        baseline: p.baseline,
        ...(p.shedRate != null ? { shedRate: p.shedRate } : {}),
      })),
  );
  const trend = (e: TrendEvidence): TrendEvidenceReply => snakeKeys(e);
  return {
    verdict: r.verdict,
    saturated: r.saturated,
    signals: r.signals,
    reasons: r.reasons,
    n: r.n,
    n_baseline: r.nBaseline,
    alpha: r.alpha,
    qps: trend(r.qps),
    queue_ms: trend(r.queueMs),
    p99_ms: trend(r.p99Ms),
    shed_rate: r.shedRate ? trend(r.shedRate) : null,
    baseline_window: { from: new Date(baseFromMs).toISOString(), to: new Date(fromMs).toISOString() },
    points: points.map(snakeKeys),
    ...(o.approx ? { approx: used } : {}),
  };
}

// ---------- latency heatmap ----------

/** Log-spaced bucket bounds: 0.1 ms … 60 s, 10 per decade. */
export const HEATMAP_BOUNDS_MS = logBuckets(0.1, 60_000, 10);

export async function histogram(store: StoreReads, o: HistogramRequest): Promise<HistogramReply> {
  const { fromMs, toMs, stepMs } = o;
  const hspec = { fromMs, toMs, stepMs, filters: o.filters as Filters, column: o.field, boundsMs: HEATMAP_BOUNDS_MS };
  const fromRollup = o.approx ? await store.approxHistogram(hspec) : null;
  const rows = fromRollup ?? (await store.histogram(hspec));
  const out = { field: o.field, bounds_ms: HEATMAP_BOUNDS_MS, rows: rows.map((r) => ({ bucket: new Date(r.bucketMs).toISOString(), counts: r.counts })) };
  return o.approx ? { ...out, approx: fromRollup ? HISTOGRAM_APPROXIMATION : null } : out;
}

// ---------- the events behind a chart point ----------

export async function searchEvents(store: StoreReads, o: EventSearchRequest): Promise<EventSearchReply & { events: StoredEvent[] }> {
  const { fromMs, toMs } = o;
  const events = await store.listEvents({
    fromMs,
    toMs,
    filters: o.filters as Filters,
    limit: o.limit,
    order: o.order,
    ...(o.columns ? { columns: o.columns } : {}),
    ...(o.min ? { minValue: o.min } : {}),
  });
  return { events };
}

// ---------- resources on the same buckets ----------

export async function resourceSeries(store: StoreReads, o: ResourceQueryRequest): Promise<ResourceSeriesReply> {
  const { fromMs, toMs, stepMs } = o;
  const rows = await store.resources({ fromMs, toMs, stepMs, metrics: o.metrics, filters: o.filters, groupBy: o.group_by });
  return { rows: rows.map(({ bucketMs, ...r }) => ({ bucket: new Date(bucketMs).toISOString(), ...r })) };
}
