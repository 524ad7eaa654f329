/**
 * Per-minute series of the slices the detectors look at, kept in memory and read incrementally:
 * an evaluation reads only the minutes since the previous one, plus the last `settleMs` again (for
 * rows that arrive a little late), so a detector that looks two hours back costs a query over a
 * minute or two of rows per tick instead of two hours. Live evaluation and the backtest run the
 * same code; on a manual clock that goes back, or jumps past what is held, the series start over.
 *
 * Nothing after the evaluation time is ever read: every query ends at `nowMs`. Rows that arrive
 * more than `settleMs` after their minute closed are not seen by the detectors (the analyses and
 * the query API see them).
 */
import { InferlensError } from '../schema/index.ts';
import type { Filters, GroupKey, NumericField, QueryRow } from '../schema/index.ts';
import { parseMeasure } from '../schema/index.ts';
import type { TypedReads } from '../query/index.ts';
import type { Labels } from './labels.ts';

export const MINUTE_MS = 60_000;

/** Measure values of one slice in one minute (absent when null). */
export type CountsBin = Record<string, number>;
/** Rows per bucket index of one slice in one minute. */
export type BucketsBin = Map<number, number>;

export type SeriesSpec =
  | { kind: 'counts'; filters: Filters; by: readonly GroupKey[]; measures: readonly string[] }
  | { kind: 'buckets'; filters: Filters; by: readonly GroupKey[]; column: NumericField; buckets: { perDecade: number } | { width: number } };

export interface SliceSeries<V> {
  labels: Labels;
  /** Minute start (epoch ms) → what that minute holds. */
  bins: Map<number, V>;
}

export interface SeriesCacheOptions {
  reads: TypedReads;
  /** Minutes closed less than this long ago are read again at the next evaluation (default 60 s). */
  settleMs?: number;
  /** Most cells (slice-minutes, or slice-minute-buckets) held over every series; more is an error. */
  maxCells?: number;
  /** Longest range one query reads (default 30 min), so no single result is large. */
  chunkMs?: number;
}

export interface SeriesCache {
  counts(spec: Extract<SeriesSpec, { kind: 'counts' }>, nowMs: number, spanMs: number): Promise<Map<string, SliceSeries<CountsBin>>>;
  buckets(spec: Extract<SeriesSpec, { kind: 'buckets' }>, nowMs: number, spanMs: number): Promise<Map<string, SliceSeries<BucketsBin>>>;
  /** Cells held now, over every series. */
  cells(): number;
  /** Queries made so far (the backtest reports it). */
  queries(): number;
}

/** Default bound on what the detectors hold: ~2 M cells is a few hundred MB at most. */
export const DEFAULT_MAX_CELLS = 2_000_000;
/** Most rows one read may return. */
const MAX_ROWS_PER_READ = 500_000;

interface Entry<V> {
  slices: Map<string, SliceSeries<V>>;
  /** Earliest minute held. */
  fromMs: number;
  /** The evaluation time of the last read. */
  fetchedToMs: number;
  /** Longest span any caller asked for. */
  spanMs: number;
  cells: number;
  busy: Promise<void> | null;
}

export const floorMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/** The key of a slice: its values in `by` order. */
export const labelsKey = (labels: Labels, by: readonly string[]): string => by.map((d) => labels[d] ?? '').join('\u0000');

export function createSeriesCache(o: SeriesCacheOptions): SeriesCache {
  const settleMs = o.settleMs ?? MINUTE_MS;
  const maxCells = o.maxCells ?? DEFAULT_MAX_CELLS;
  const chunkMs = o.chunkMs ?? 30 * MINUTE_MS;
  const entries = new Map<string, Entry<unknown>>();
  let queryCount = 0;

  const total = () => {
    let n = 0;
    for (const e of entries.values()) n += e.cells;
    return n;
  };

  /** Reads [fromMs, toMs) in chunks and hands each row to `put`. */
  async function read(spec: SeriesSpec, fromMs: number, toMs: number, put: (minuteMs: number, labels: Labels, row: { measures?: QueryRow; index?: number; n?: number }) => void): Promise<void> {
    for (let a = fromMs; a < toMs; a += chunkMs) {
      const b = Math.min(toMs, a + chunkMs);
      queryCount++;
      if (spec.kind === 'counts') {
        const rows = await o.reads.aggregate({
          fromMs: a,
          toMs: b,
          filters: spec.filters,
          groupBy: [...spec.by],
          stepMs: MINUTE_MS,
          measures: spec.measures.map((name) => {
            const m = parseMeasure(name);
            if (typeof m === 'string') throw new Error(m);
            return { name, measure: m };
          }),
          includeProbes: false,
          limit: MAX_ROWS_PER_READ,
        });
        if (rows.length >= MAX_ROWS_PER_READ) throw new InferlensError('resource_exhausted', `a detector read ${rows.length} slice-minutes in ${Math.round((b - a) / MINUTE_MS)} minutes: narrow the rule's by or filters`);
        for (const r of rows) put(Number(r.bucket), sliceOf(r, spec.by), { measures: r });
      } else {
        const rows = await o.reads.bucketCounts({ fromMs: a, toMs: b, stepMs: MINUTE_MS, filters: spec.filters, groupBy: spec.by, column: spec.column, buckets: spec.buckets, limit: MAX_ROWS_PER_READ });
        for (const r of rows) put(r.bucketMs, sliceOf(r.slice, spec.by), { index: r.index, n: r.n });
      }
    }
  }

  async function refresh<V>(key: string, spec: SeriesSpec, nowMs: number, spanMs: number): Promise<Map<string, SliceSeries<V>>> {
    let e = entries.get(key) as Entry<V> | undefined;
    while (e?.busy) {
      await e.busy;
      e = entries.get(key) as Entry<V> | undefined;
    }
    const wantFrom = floorMinute(nowMs - spanMs);
    const reset = !e || nowMs < e.fetchedToMs || wantFrom >= e.fetchedToMs;
    const entry: Entry<V> = reset ? { slices: new Map(), fromMs: wantFrom, fetchedToMs: nowMs, spanMs, cells: 0, busy: null } : e!;
    if (reset) entries.set(key, entry as Entry<unknown>);
    if (nowMs === entry.fetchedToMs && !reset && wantFrom >= entry.fromMs) return entry.slices;
    let done!: () => void;
    entry.busy = new Promise<void>((r) => (done = r));
    try {
      entry.spanMs = Math.max(entry.spanMs, spanMs);
      const put = (minuteMs: number, labels: Labels, row: { measures?: QueryRow; index?: number; n?: number }) => {
        const k = labelsKey(labels, spec.by);
        let s = entry.slices.get(k);
        if (!s) entry.slices.set(k, (s = { labels, bins: new Map() }));
        if (spec.kind === 'counts') {
          const bin: CountsBin = {};
          for (const m of spec.measures) {
            const v = row.measures?.[m];
            if (typeof v === 'number' && Number.isFinite(v)) bin[m] = v;
          }
          if (!s.bins.has(minuteMs)) entry.cells++;
          s.bins.set(minuteMs, bin as V);
        } else {
          let bin = s.bins.get(minuteMs) as BucketsBin | undefined;
          if (!bin) s.bins.set(minuteMs, (bin = new Map()) as V);
          if (!bin.has(row.index!)) entry.cells++;
          bin.set(row.index!, (bin.get(row.index!) ?? 0) + row.n!);
        }
      };
      const drop = (fromMs: number, toMs: number) => {
        for (const s of entry.slices.values())
          for (const [m, bin] of s.bins)
            if (m >= fromMs && m < toMs) {
              entry.cells -= spec.kind === 'counts' ? 1 : (bin as BucketsBin).size;
              s.bins.delete(m);
            }
      };
      if (reset) await read(spec, wantFrom, nowMs, put);
      else {
        if (wantFrom < entry.fromMs) await read(spec, wantFrom, entry.fromMs, put);
        const again = Math.max(entry.fromMs, floorMinute(entry.fetchedToMs - settleMs));
        drop(again, Infinity);
        await read(spec, again, nowMs, put);
        entry.fromMs = Math.min(entry.fromMs, wantFrom);
      }
      entry.fetchedToMs = nowMs;
      // Keep what the longest caller needs; forget older minutes and slices that went quiet.
      const keepFrom = floorMinute(nowMs - entry.spanMs);
      if (entry.fromMs < keepFrom) {
        drop(-Infinity, keepFrom);
        entry.fromMs = keepFrom;
      }
      for (const [k, s] of entry.slices) if (s.bins.size === 0) entry.slices.delete(k);
      const held = total();
      if (held > maxCells) {
        entries.delete(key);
        throw new InferlensError('resource_exhausted', `the detectors would hold ${held} series cells, more than the bound of ${maxCells}: narrow the rules' by, localize or filters, or shorten their reference windows`);
      }
      return entry.slices;
    } finally {
      entry.busy = null;
      done();
    }
  }

  return {
    counts: (spec, nowMs, spanMs) => refresh<CountsBin>(JSON.stringify(spec), spec, nowMs, spanMs),
    buckets: (spec, nowMs, spanMs) => refresh<BucketsBin>(JSON.stringify(spec), spec, nowMs, spanMs),
    cells: total,
    queries: () => queryCount,
  };
}

function sliceOf(row: Record<string, unknown>, by: readonly string[]): Labels {
  const out: Labels = {};
  for (const d of by) {
    const v = row[d];
    if (v !== null && v !== undefined) out[d] = String(v);
  }
  return out;
}
