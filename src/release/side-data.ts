/**
 * Reads what one side of a comparison needs through the query service: counts, rates and exact
 * quantiles from one aggregate (user traffic, probes excluded), and a bounded sample of raw rows
 * (latencies, labels, confidence, golden probes). When a side holds more rows than the bound, the
 * window is cut into `STRATA` equal slices and the most recent bound/STRATA rows of each are read,
 * so the sample covers the whole window deterministically; the evidence says so.
 */
import { InferlensError, LATENCY_FIELDS, parseMeasure } from '../schema/index.ts';
import type { FeedbackStats, FeedbackStatsSpec, LatencyField, Measure, QueryRow, QuerySpec, StoredEvent } from '../schema/index.ts';
import type { TypedReads } from '../query/index.ts';
import type { SideWindow } from './input.ts';
import { QUANTILE_OF } from './metrics.ts';

/** Slices of the window when the raw rows are more than the bound. */
export const STRATA = 10;

type ListSpec = Parameters<TypedReads['events']>[0];

/** Optional source of feedback hit rates: `{ hits, n }` over the side's requests with feedback. */
export type FeedbackSource = (side: SideWindow) => Promise<{ hits: number; n: number } | null>;

/**
 * Feedback hit rates from the store's feedback join: a hit is `correct` feedback that is true or
 * `label` feedback equal to the predicted label; n counts both kinds (thumbs, ratings, clicks and
 * conversions say nothing about the prediction being right). Null when the side has none.
 * Worked: 40 `correct` (36 true) and 60 `label` (45 matching) → 81 hits in 100.
 */
export function feedbackFromStats(feedbackStats: (spec: FeedbackStatsSpec) => Promise<FeedbackStats>): FeedbackSource {
  return async (w) => {
    const { rows } = await feedbackStats({ fromMs: w.fromMs, toMs: w.toMs, filters: w.filters, groupBy: [], limit: 1 });
    const r = rows[0];
    if (!r) return null;
    const n = r.correctN + r.labelN;
    if (n === 0) return null;
    const hits = Math.round((r.correctRate ?? 0) * r.correctN + (r.labelAccuracy ?? 0) * r.labelN);
    return { hits, n };
  };
}

export interface SideData {
  window: SideWindow;
  /** Stored user-traffic rows (probes excluded): the sample size behind every test. */
  n: number;
  /** Requests, weighted by sample_weight. */
  requests: number;
  /** Status shares (weighted, over rows with a status); null when no row has one. */
  rates: { error: number | null; timeout: number | null; rejected: number | null; rateLimited: number | null };
  /** Exact quantiles from the store, keyed like `p99(total_ms)`. */
  quantiles: Record<string, number | null>;
  /** Raw user-traffic values per latency field, sorted ascending. */
  latency: Record<LatencyField, number[]>;
  labels: string[];
  confidence: number[];
  /** Golden probes in the sample: how many carried a verdict, how many passed. */
  golden: { passed: number; n: number };
  feedback: { hits: number; n: number } | null;
  /** User-traffic requests per tenant (the busiest MAX_TENANTS; weighted). */
  tenants: Record<string, number>;
  sample: { rows: number; of: number; stratified: boolean };
}

/** Tenants read per side for the traffic-mix check. */
const MAX_TENANTS = 1000;

const QUANTILE_MEASURES = LATENCY_FIELDS.flatMap((f) => Object.keys(QUANTILE_OF).map((k) => `${k}(${f})`));
const RATE_MEASURES = ['n', 'count', 'error_rate', 'timeout_rate', 'rejected_rate', 'rate_limited_rate'];
const RAW_COLUMNS = ['ts', ...LATENCY_FIELDS, 'label', 'confidence', 'probe', 'attributes'];

function measures(names: readonly string[]): QuerySpec['measures'] {
  return names.map((name) => {
    const m: Measure | string = parseMeasure(name);
    if (typeof m === 'string') throw new InferlensError('internal', `release measure ${name}: ${m}`);
    return { name, measure: m };
  });
}

const num = (row: QueryRow | undefined, key: string): number | null => {
  const v = row?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

/** A probe's golden verdict: attributes.golden_pass, else label = attributes.expected_label. */
export function goldenVerdict(e: StoredEvent): boolean | null {
  const a = e.attributes ?? {};
  const g = a.golden_pass?.toLowerCase();
  if (g === 'true' || g === '1' || g === 'pass') return true;
  if (g === 'false' || g === '0' || g === 'fail') return false;
  if (a.expected_label !== undefined && e.label != null) return e.label === a.expected_label;
  return null;
}

/** Reads one side: one aggregate for user traffic, one for all rows, then the raw sample. */
export async function readSide(
  queries: Pick<TypedReads, 'aggregate' | 'events'>,
  w: SideWindow,
  maxRows: number,
  feedback?: FeedbackSource,
): Promise<SideData> {
  const spec = (names: readonly string[], includeProbes: boolean): QuerySpec => ({
    fromMs: w.fromMs,
    toMs: w.toMs,
    filters: w.filters,
    groupBy: [],
    measures: measures(names),
    includeProbes,
    limit: 1,
  });
  const [userRows, allRows, fb, tenantRows] = await Promise.all([
    queries.aggregate(spec([...RATE_MEASURES, ...QUANTILE_MEASURES], false)),
    queries.aggregate(spec(['n'], true)),
    feedback ? feedback(w) : Promise.resolve(null),
    queries.aggregate({ ...spec(['count'], false), groupBy: ['tenant'], limit: MAX_TENANTS }),
  ]);
  const tenants: Record<string, number> = {};
  for (const r of tenantRows) tenants[typeof r.tenant === 'string' ? r.tenant : '(none)'] = num(r, 'count') ?? 0;
  const user = userRows[0];
  const total = num(allRows[0], 'n') ?? 0;
  const stratified = total > maxRows;
  const list = (fromMs: number, toMs: number, limit: number): ListSpec => ({
    fromMs,
    toMs,
    filters: w.filters,
    includeProbes: true,
    columns: RAW_COLUMNS,
    limit,
    order: 'ts_desc',
  });
  let events: StoredEvent[];
  if (!stratified) events = total > 0 ? await queries.events(list(w.fromMs, w.toMs, maxRows)) : [];
  else {
    const step = (w.toMs - w.fromMs) / STRATA;
    const per = Math.floor(maxRows / STRATA);
    const parts = await Promise.all(
      Array.from({ length: STRATA }, (_, i) =>
        queries.events(list(w.fromMs + Math.round(i * step), i === STRATA - 1 ? w.toMs : w.fromMs + Math.round((i + 1) * step), per)),
      ),
    );
    events = parts.flat();
  }

  const latency = Object.fromEntries(LATENCY_FIELDS.map((f) => [f, [] as number[]])) as Record<LatencyField, number[]>;
  const labels: string[] = [];
  const confidence: number[] = [];
  const golden = { passed: 0, n: 0 };
  for (const e of events) {
    if (e.probe === true) {
      const g = goldenVerdict(e);
      if (g !== null) {
        golden.n++;
        if (g) golden.passed++;
      }
      continue;
    }
    for (const f of LATENCY_FIELDS) {
      const v = e[f];
      if (typeof v === 'number') latency[f].push(v);
    }
    if (e.label != null) labels.push(e.label);
    if (typeof e.confidence === 'number') confidence.push(e.confidence);
  }
  for (const f of LATENCY_FIELDS) latency[f].sort((a, b) => a - b);

  const quantiles: Record<string, number | null> = {};
  for (const name of QUANTILE_MEASURES) quantiles[name] = num(user, name);
  return {
    window: w,
    n: num(user, 'n') ?? 0,
    requests: num(user, 'count') ?? 0,
    rates: {
      error: num(user, 'error_rate'),
      timeout: num(user, 'timeout_rate'),
      rejected: num(user, 'rejected_rate'),
      rateLimited: num(user, 'rate_limited_rate'),
    },
    quantiles,
    latency,
    labels,
    confidence,
    golden,
    feedback: fb,
    tenants,
    sample: { rows: events.length, of: total, stratified },
  };
}
