/**
 * "Which signal moved first": for one incident's slice, every signal the platform keeps — latency
 * by stage, errors, queue and shedding, GPU resources, result quality — per minute over the half
 * hour before the first rule fired, each judged against the hour before that, and the minute each
 * first moved.
 *
 * When a signal moved (per signal, over the minutes that carry data) — the first of two consecutive
 * moved minutes that follow an unmoved one (a move already under way is not a new one):
 * - a level (a stage's P95, mean confidence, GPU utilisation or memory) moved at the first of two
 *   consecutive minutes whose modified z-score (Iglewicz & Hoaglin 1993: 0.6745 · (x − median) /
 *   MAD of the baseline minutes; with MAD 0, (x − median) / (1.253314 · mean absolute deviation))
 *   is beyond 3.5 in the signal's direction and that stand at least 10 % from the baseline median
 *   (a move too small to matter is not one, however steady the baseline);
 *   worked: baseline minutes 10, 11, 12, 11, 10 → median 11, MAD 1; 15 → z = 0.6745 · 4 = 2.7
 *   (not moved); 17 → z = 4.0 (moved, +55 %);
 * - a rate (errors, timeouts, shed requests, empty or refused answers) moved at the first of two
 *   consecutive minutes above the baseline's pooled rate with a two-proportion test (Fisher's exact
 *   test when an expected count is below 5) at p < 0.001;
 *   worked: baseline 0 of 300, a minute with 3 of 3 → Fisher p = 1 / C(303, 3) ≈ 2.2e-7 (moved).
 * A minute counts for a latency quantile with at least 20 requests (a P95 of fewer is its maximum,
 * noise on a small slice); a signal needs 10 baseline minutes with data to be judged at all
 * (otherwise `judged: false`, said, not guessed).
 */
import { proportionTest } from '../analysis/index.ts';
import { parseMeasure, DIMENSIONS } from '../schema/index.ts';
import type { Filters, Measure, QueryRow } from '../schema/index.ts';
import type { TypedReads } from '../query/index.ts';

export type SignalFamily = 'latency' | 'queue' | 'errors' | 'resources' | 'quality';

export interface SignalMove {
  /** A measure of `POST /v1/query` (`p95(exec_ms)`, `error_rate`) or a resource metric. */
  signal: string;
  family: SignalFamily;
  kind: 'level' | 'rate';
  direction: 'up' | 'down' | 'both';
  /** Whether there were enough baseline minutes to judge it. */
  judged: boolean;
  /** The first minute of the first pair of moved minutes (RFC 3339), null when it did not move. */
  moved_at: string | null;
  /** Its value that minute, and the baseline (median minute for a level, pooled rate for a rate). */
  value: number | null;
  baseline: number | null;
  /** Rows (requests or samples) behind the watched minutes and behind the baseline. */
  n: number;
  baseline_n: number;
}

/** How long before the first firing the signals are watched, and the baseline before that. */
export const WATCH_MS = 30 * 60_000;
export const BASELINE_MS = 60 * 60_000;
const MINUTE_MS = 60_000;
/** Modified z-score beyond which a minute is an outlier (Iglewicz & Hoaglin). */
export const MODIFIED_Z = 3.5;
/** Smallest relative move of a level that counts. */
export const MIN_LEVEL_MOVE = 0.1;
/** Level of the per-minute rate test. */
export const RATE_ALPHA = 0.001;
const MIN_BASELINE_MINUTES = 10;
const MIN_QUANTILE_ROWS = 20;

interface SignalDef {
  signal: string;
  family: SignalFamily;
  kind: 'level' | 'rate';
  direction: 'up' | 'down' | 'both';
}

/** The event signals, each with its family and the direction that is bad. */
export const EVENT_SIGNALS: readonly SignalDef[] = [
  ...['ingress_ms', 'batch_ms', 'exec_ms', 'post_ms', 'total_ms', 'ttft_ms', 'tpot_ms'].map((f) => ({
    signal: `p95(${f})`,
    family: 'latency' as const,
    kind: 'level' as const,
    direction: 'up' as const,
  })),
  { signal: 'p95(queue_ms)', family: 'queue', kind: 'level', direction: 'up' },
  { signal: 'rejected_rate', family: 'queue', kind: 'rate', direction: 'up' },
  { signal: 'rate_limited_rate', family: 'queue', kind: 'rate', direction: 'up' },
  { signal: 'error_rate', family: 'errors', kind: 'rate', direction: 'up' },
  { signal: 'timeout_rate', family: 'errors', kind: 'rate', direction: 'up' },
  { signal: 'mean(confidence)', family: 'quality', kind: 'level', direction: 'both' },
  { signal: 'empty_rate', family: 'quality', kind: 'rate', direction: 'up' },
  { signal: 'refused_rate', family: 'quality', kind: 'rate', direction: 'up' },
];
export const RESOURCE_SIGNALS: readonly SignalDef[] = [
  { signal: 'gpu_utilization_ratio', family: 'resources', kind: 'level', direction: 'up' },
  { signal: 'gpu_memory_used_bytes', family: 'resources', kind: 'level', direction: 'up' },
];

/** One minute of one signal: its value and the rows behind it (for a rate: k of n). */
export interface MinutePoint {
  ms: number;
  value: number;
  n: number;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Modified z-scores of values against a baseline (Iglewicz & Hoaglin), or null when the baseline has no spread at all. */
export function modifiedZ(baseline: readonly number[]): ((x: number) => number) | null {
  const m = median(baseline);
  const mad = median(baseline.map((x) => Math.abs(x - m)));
  if (mad > 0) return (x) => (0.6745 * (x - m)) / mad;
  const meanAd = baseline.reduce((a, x) => a + Math.abs(x - m), 0) / baseline.length;
  if (meanAd > 0) return (x) => (x - m) / (1.253314 * meanAd);
  return null;
}

const beyond = (d: SignalDef['direction'], delta: number) => (d === 'up' ? delta > 0 : d === 'down' ? delta < 0 : delta !== 0);

/** The first of two consecutive moved minutes of a level signal, judged against the baseline minutes. */
export function firstLevelMove(
  baseline: readonly MinutePoint[],
  watched: readonly MinutePoint[],
  direction: SignalDef['direction'],
  before?: MinutePoint,
): { judged: boolean; at: MinutePoint | null; baseline: number | null } {
  if (baseline.length < MIN_BASELINE_MINUTES) return { judged: false, at: null, baseline: baseline.length ? median(baseline.map((p) => p.value)) : null };
  const values = baseline.map((p) => p.value);
  const m = median(values);
  const z = modifiedZ(values);
  const moved = (x: number) => {
    const delta = x - m;
    if (!beyond(direction, delta)) return false;
    if (Math.abs(delta) < MIN_LEVEL_MOVE * Math.abs(m)) return false;
    // A baseline without any spread: any move of 10 % or more is one.
    return z === null ? true : Math.abs(z(x)) > MODIFIED_Z;
  };
  return { judged: true, at: firstPair(watched, (p) => moved(p.value), before), baseline: m };
}

/** The first of two consecutive moved minutes of a rate signal (value = k / n), against the baseline's pooled rate. */
export function firstRateMove(
  baseline: readonly MinutePoint[],
  watched: readonly MinutePoint[],
  direction: SignalDef['direction'],
  before?: MinutePoint,
): { judged: boolean; at: MinutePoint | null; baseline: number | null } {
  const N = baseline.reduce((a, p) => a + p.n, 0);
  const K = baseline.reduce((a, p) => a + p.value * p.n, 0);
  if (baseline.length < MIN_BASELINE_MINUTES || N === 0) return { judged: false, at: null, baseline: N > 0 ? K / N : null };
  const rate = K / N;
  const moved = (p: MinutePoint) =>
    beyond(direction, p.value - rate) && proportionTest(Math.round(p.value * p.n), Math.round(p.n), Math.round(K), Math.round(N)).pValue < RATE_ALPHA;
  return { judged: true, at: firstPair(watched, moved, before), baseline: rate };
}

/** The first of two consecutive moved minutes that follow an unmoved one (`before`: the minute before the first point; none counts as unmoved). */
function firstPair(points: readonly MinutePoint[], moved: (p: MinutePoint) => boolean, before?: MinutePoint): MinutePoint | null {
  for (let i = 0; i + 1 < points.length; i++) {
    const prev = i === 0 ? before : points[i - 1];
    if (prev && moved(prev)) continue;
    if (moved(points[i]!) && moved(points[i + 1]!)) return points[i]!;
  }
  return null;
}

const num = (v: unknown) =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
const iso = (ms: number) => new Date(ms).toISOString();

/** The slice's labels an event query can filter on. */
export function eventFilters(slice: Record<string, string>): Filters {
  const out: Filters = {};
  for (const d of DIMENSIONS) if (slice[d] !== undefined) out[d] = slice[d];
  return out;
}

/**
 * Every signal of the slice over [firstFiringMs − WATCH_MS, firstFiringMs), per minute, against the
 * BASELINE_MS before; moved signals first, earliest first. With `watchFromMs` (an earlier problem
 * of the incident on a consistent place fired then), moves are looked for from there only, and a
 * signal still moved from before it does not count until it settles and moves again. `events: false` judges the resource
 * signals only (a GPU's slice: requests do not say which GPU served them).
 */
export async function firstSignals(
  reads: Pick<TypedReads, 'aggregate' | 'resources'>,
  slice: Record<string, string>,
  firstFiringMs: number,
  o: { events?: boolean; watchFromMs?: number } = {},
): Promise<SignalMove[]> {
  const end = Math.floor(firstFiringMs / MINUTE_MS) * MINUTE_MS;
  const baseTo = end - WATCH_MS;
  const baseFrom = baseTo - BASELINE_MS;
  const watchFrom = Math.max(baseTo, Math.floor((o.watchFromMs ?? baseTo) / MINUTE_MS) * MINUTE_MS);
  const filters = eventFilters(slice);
  const measures = ['count', ...new Set(EVENT_SIGNALS.flatMap((s) => (s.kind === 'level' ? [s.signal, `n(${/\((\w+)\)/.exec(s.signal)![1]})`] : [s.signal])))];
  const rows =
    o.events === false
      ? []
      : await reads.aggregate({
          fromMs: baseFrom,
          toMs: end,
          filters,
          groupBy: [],
          stepMs: MINUTE_MS,
          includeProbes: false,
          limit: 10_000,
          measures: measures.map((name) => ({ name, measure: parseMeasure(name) as Measure })),
        });
  const out: SignalMove[] = [];
  const bucketOf = (r: QueryRow) => num(r['bucket']) ?? Date.parse(String(r['bucket']));
  for (const def of o.events === false ? [] : EVENT_SIGNALS) {
    const field = /\((\w+)\)/.exec(def.signal)?.[1];
    const points: MinutePoint[] = rows.flatMap((r) => {
      const value = num(r[def.signal]);
      const n = def.kind === 'level' ? (num(r[`n(${field})`]) ?? 0) : (num(r['count']) ?? 0);
      if (value === null || n === 0) return [];
      if (def.kind === 'level' && def.signal.startsWith('p') && n < MIN_QUANTILE_ROWS) return [];
      return [{ ms: bucketOf(r), value, n }];
    });
    out.push(judge(def, points, baseTo, watchFrom));
  }
  // Resources: the slice's own node / replica / GPU, else the nodes that served its requests.
  const resFilters: { node?: string | string[]; replica?: string; gpu?: string; pool?: string } = {};
  for (const k of ['node', 'replica', 'gpu', 'pool'] as const) if (slice[k] !== undefined) resFilters[k] = slice[k];
  if (Object.keys(resFilters).length === 0) {
    const nodes = (
      await reads.aggregate({
        fromMs: watchFrom,
        toMs: end,
        filters,
        groupBy: ['node'],
        includeProbes: false,
        limit: 5,
        measures: [{ name: 'count', measure: { kind: 'count' } }],
      })
    )
      .map((r) => r['node'])
      .filter((n): n is string => typeof n === 'string');
    if (nodes.length) resFilters.node = nodes;
  }
  if (Object.keys(resFilters).length > 0) {
    const res = await reads.resources({
      fromMs: baseFrom,
      toMs: end,
      stepMs: MINUTE_MS,
      metrics: RESOURCE_SIGNALS.map((s) => s.signal),
      filters: resFilters,
      groupBy: [],
    });
    for (const def of RESOURCE_SIGNALS) {
      const points = res
        .filter((r) => r.metric === def.signal)
        .map((r) => ({ ms: r.bucketMs, value: def.signal === 'gpu_memory_used_bytes' ? r.max : r.avg, n: 1 }));
      if (points.length) out.push(judge(def, points, baseTo, watchFrom));
    }
  }
  const t = (s: SignalMove) => (s.moved_at ? Date.parse(s.moved_at) : Infinity);
  return out.filter((s) => s.n > 0 || s.baseline_n > 0).sort((a, b) => t(a) - t(b));
}

function judge(def: SignalDef, points: readonly MinutePoint[], baseTo: number, watchFrom: number): SignalMove {
  const sorted = [...points].sort((a, b) => a.ms - b.ms);
  const baseline = sorted.filter((p) => p.ms < baseTo);
  const watched = sorted.filter((p) => p.ms >= watchFrom);
  const before = sorted.filter((p) => p.ms < watchFrom).at(-1);
  const r = def.kind === 'level' ? firstLevelMove(baseline, watched, def.direction, before) : firstRateMove(baseline, watched, def.direction, before);
  return {
    signal: def.signal,
    family: def.family,
    kind: def.kind,
    direction: def.direction,
    judged: r.judged,
    moved_at: r.at ? iso(r.at.ms) : null,
    value: r.at?.value ?? null,
    baseline: r.baseline,
    n: watched.reduce((a, p) => a + p.n, 0),
    baseline_n: baseline.reduce((a, p) => a + p.n, 0),
  };
}
