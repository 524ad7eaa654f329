/**
 * Per-minute series of the slices the detectors look at, kept in memory and read incrementally:
 * an evaluation reads only the minutes since the previous one, plus the last `settleMs` again (for
 * rows that arrive a little late), so a detector that looks two hours back costs a query over a
 * minute or two of rows per tick instead of two hours. Live evaluation and the backtest run the
 * same code; on a manual clock that goes back, or jumps past what is held, the series start over.
 *
 * Each slice holds dense per-minute arrays with running sums beside them, so any window's total is
 * two array reads, however many rules and windows ask (the running sums are brought up to date
 * from the first minute that changed). Rates are stored as counts: a product `rate × weight`
 * (`error_rate × count`: the failed requests of the minute) is computed as a minute is stored.
 *
 * Nothing after the evaluation time is seen: live, every query ends at `nowMs`; in a backtest over
 * stored data (`readAheadMs`), whole chunks are read ahead to spare queries, and every sum a detector
 * asks for is clamped at the evaluation time, so a detector sees exactly what it would live (a test
 * checks that a backtest with read-ahead raises the same episodes as one without). Rows that arrive
 * more than `settleMs` after their minute closed are not seen by the detectors live (the analyses and
 * the query API see them).
 */
import { InferlensError } from '../schema/index.ts';
import type { Filters, GroupKey, NumericField, QueryRow, StoredEvent } from '../schema/index.ts';
import { parseMeasure } from '../schema/index.ts';
import type { ResourceQuerySpec, ResourceRow, TypedReads } from '../query/index.ts';
import type { Labels } from './labels.ts';

export const MINUTE_MS = 60_000;

/**
 * A count per minute derived from a rate: `rate × weight` (both measures of the query). A measure
 * that is a product's rate is read, not held: a rate summed over minutes means nothing.
 */
export interface Product {
  name: string;
  rate: string;
  weight: string;
}

export type SeriesSpec =
  | { kind: 'counts'; filters: Filters; by: readonly GroupKey[]; measures: readonly string[]; products?: readonly Product[] }
  | { kind: 'buckets'; filters: Filters; by: readonly GroupKey[]; column: NumericField; buckets: { perDecade: number } | { width: number } };

/** One slice's per-minute data: totals over [fromMs, toMs) (whole minutes) in two array reads. */
export interface SliceSeries {
  labels: Labels;
  /** Sum of a measure or product over the minutes in [fromMs, toMs). */
  sum(name: string, fromMs: number, toMs: number): number;
  /** `sum` of one measure or product, its column looked up once (for a detector that asks many ranges). */
  sumOf(name: string): (fromMs: number, toMs: number) => number;
  /** Bucket indices seen (buckets series), ascending. */
  indices(): readonly number[];
  /** Rows in bucket `index` over [fromMs, toMs) (buckets series). */
  count(index: number, fromMs: number, toMs: number): number;
  /**
   * Rows over [fromMs, toMs) of the bucket at position `x` of `indices()` (buckets series): the same
   * numbers as `count`, the range resolved once and no bucket looked up (a detector that reads every
   * bucket of a range, or walks a tail).
   */
  countsOver(fromMs: number, toMs: number): (x: number) => number;
  /** Rows in every bucket over [fromMs, toMs) (buckets series): one lookup instead of a sum over the indices. */
  total(fromMs: number, toMs: number): number;
}

/** The column of a buckets series that holds every bucket's rows together. */
const ALL_BUCKETS = 'all';

export interface SeriesCacheOptions {
  reads: TypedReads;
  /** Minutes closed less than this long ago are read again at the next evaluation (default 60 s). */
  settleMs?: number;
  /** Most numbers held over every series (per-minute values and their running sums); more is an error. */
  maxCells?: number;
  /** Longest range one query reads (default 30 min), so no single result is large. */
  chunkMs?: number;
  /**
   * Backtests only (stored data that does not change): read this far past the evaluation time in
   * one query; sums stay clamped at the evaluation time. Evaluation times must be whole minutes.
   */
  readAheadMs?: number;
  /** Most slice-minutes one series read may return (default 500,000); more is an error. */
  maxRowsPerRead?: number;
}

/** Raw rows a detector reads itself (golden probes): filters and the columns it needs. */
export interface RowsSpec {
  filters: Filters;
  columns: readonly string[];
  includeProbes: boolean;
}

/** A resource read without its range. */
export type ResourceSeriesSpec = Omit<ResourceQuerySpec, 'fromMs' | 'toMs'>;

export interface SeriesCache {
  /**
   * The rows with ts in [nowMs − spanMs, nowMs), oldest first, read incrementally like the series
   * (the minutes since the last read and the last `settleMs` again). At most `maxRows` are held.
   */
  rows(spec: RowsSpec, nowMs: number, spanMs: number, maxRows: number): Promise<readonly StoredEvent[]>;
  /**
   * Resource step buckets whose start is in [nowMs − spanMs, nowMs), read the same way (a bucket is
   * read again until `settleMs` after it closed). Buckets are aligned to `stepMs` from the epoch.
   */
  resources(spec: ResourceSeriesSpec, nowMs: number, spanMs: number): Promise<readonly ResourceRow[]>;
  /** The slices of a series as seen at `nowMs`; every rule that asks at the same time gets the same map (not to be changed). */
  counts(spec: Extract<SeriesSpec, { kind: 'counts' }>, nowMs: number, spanMs: number): Promise<ReadonlyMap<string, SliceSeries>>;
  buckets(spec: Extract<SeriesSpec, { kind: 'buckets' }>, nowMs: number, spanMs: number): Promise<ReadonlyMap<string, SliceSeries>>;
  /** Numbers held now, over every series. */
  cells(): number;
  /** Queries made so far (the backtest reports it). */
  queries(): number;
  /** Resolves once no read started in the background is still running (before the store closes). */
  settled(): Promise<void>;
}

/** Default bound on what the detectors hold: 40 M numbers, at most ~320 MB. */
export const DEFAULT_MAX_CELLS = 40_000_000;
/** Most rows one read may return. */
const MAX_ROWS_PER_READ = 500_000;

export const floorMinute = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/** The key of a slice: its values in `by` order. */
export const labelsKey = (labels: Labels, by: readonly string[]): string => by.map((d) => labels[d] ?? '').join('\u0000');

/** A per-minute column and its running sums from the entry's origin, brought up to date lazily. */
class Column {
  raw: Float64Array;
  cum: Float64Array;
  /** cum is valid up to and including this index. */
  valid = 0;
  constructor(cap: number) {
    this.raw = new Float64Array(cap);
    this.cum = new Float64Array(cap + 1);
  }
  set(j: number, v: number): void {
    this.raw[j] = v;
    if (j < this.valid) this.valid = j;
  }
  add(j: number, v: number): void {
    this.raw[j]! += v;
    if (j < this.valid) this.valid = j;
  }
  /** Sum over indices [a, b). */
  range(a: number, b: number): number {
    const cap = this.raw.length;
    a = Math.max(0, Math.min(cap, a));
    b = Math.max(0, Math.min(cap, b));
    if (b <= a) return 0;
    if (this.valid < b) {
      for (let j = this.valid; j < b; j++) this.cum[j + 1] = this.cum[j]! + this.raw[j]!;
      this.valid = b;
    }
    return this.cum[b]! - this.cum[a]!;
  }
  /** Moves the origin forward by `shift` minutes. */
  shift(shift: number): void {
    this.raw.copyWithin(0, shift);
    this.raw.fill(0, this.raw.length - shift);
    this.valid = 0;
  }
}

interface Slice {
  labels: Labels;
  cols: Map<string | number, Column>;
  /** Bucket indices, sorted, for buckets series, and their columns in the same order. */
  sorted: number[] | null;
  sortedCols: Column[] | null;
}

/** A slice's bucket indices ascending and their columns, rebuilt after a bucket is added. */
function ordered(s: Slice): { sorted: number[]; sortedCols: Column[] } {
  if (!s.sorted || !s.sortedCols) {
    s.sorted = [...s.cols.keys()].filter((k): k is number => typeof k === 'number').sort((a, b) => a - b);
    s.sortedCols = s.sorted.map((k) => s.cols.get(k)!);
  }
  return { sorted: s.sorted, sortedCols: s.sortedCols };
}

interface Entry {
  spec: SeriesSpec;
  slices: Map<string, Slice>;
  /** Minute of index 0 of every column. */
  originMs: number;
  /** Minutes every column holds. */
  cap: number;
  /** Earliest minute held with data read. */
  fromMs: number;
  /** Data is read up to here (past the evaluation time with read-ahead). */
  fetchedToMs: number;
  /** The evaluation time of the last refresh. */
  nowMs: number;
  /** Longest span any caller asked for. */
  spanMs: number;
  busy: Promise<void> | null;
  /** The views last handed out, and the evaluation time and number of slices they were made for. */
  seen: { visibleMs: number; slices: number; views: ReadonlyMap<string, SliceSeries> } | null;
  /** The stretch read in the background past `fetchedToMs` (read-ahead only). */
  next: { fromMs: number; toMs: number; rows: Promise<{ apply: (put: Put) => void } | { error: unknown }> } | null;
}

type Put = (minuteMs: number, labels: Labels, row: { measures?: QueryRow; indices?: readonly number[]; counts?: readonly number[] }) => void;

/** Minutes of room kept past a span, so the origin moves once every so many ticks. */
const SLACK_MINUTES = 60;

export function createSeriesCache(o: SeriesCacheOptions): SeriesCache {
  const settleMs = o.settleMs ?? MINUTE_MS;
  const maxCells = o.maxCells ?? DEFAULT_MAX_CELLS;
  const chunkMs = o.chunkMs ?? 30 * MINUTE_MS;
  const aheadMs = o.readAheadMs ?? 0;
  const maxRowsPerRead = o.maxRowsPerRead ?? MAX_ROWS_PER_READ;
  const entries = new Map<string, Entry>();
  let queryCount = 0;

  const cellsOf = (e: Entry) => {
    let n = 0;
    for (const s of e.slices.values()) n += s.cols.size * (2 * e.cap + 1);
    return n;
  };
  const total = () => {
    let n = 0;
    for (const e of entries.values()) n += cellsOf(e);
    return n;
  };

  /** [fromMs, toMs) read in chunks of `chunkMs`, all asked at once (the store answers them side by side). */
  function chunked<R>(fromMs: number, toMs: number, read: (a: number, b: number) => Promise<R>): Promise<R[]> {
    const out: Promise<R>[] = [];
    for (let a = fromMs; a < toMs; a += chunkMs) {
      queryCount++;
      out.push(read(a, Math.min(toMs, a + chunkMs)));
    }
    return Promise.all(out);
  }

  /** A read cut at its limit is not all of its range: an error that says so, never a silent truncation. */
  function tooMany(rows: number, a: number, b: number): void {
    if (rows >= maxRowsPerRead)
      throw new InferlensError(
        'resource_exhausted',
        `a detector read ${rows} slice-minutes in ${Math.round((b - a) / MINUTE_MS)} minutes: narrow the rule's by or filters`,
      );
  }

  /** Reads [fromMs, toMs) in chunks, the rows of each handed to `put` once all are read. */
  async function fetch(spec: SeriesSpec, fromMs: number, toMs: number): Promise<(put: Put) => void> {
    const chunks = await chunked(fromMs, toMs, async (a, b): Promise<(put: Put) => void> => {
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
          limit: maxRowsPerRead,
        });
        tooMany(rows.length, a, b);
        return (put) => {
          for (const r of rows) put(Number(r.bucket), sliceOf(r, spec.by), { measures: r });
        };
      } else {
        const rows = await o.reads.bucketCounts({
          fromMs: a,
          toMs: b,
          stepMs: MINUTE_MS,
          filters: spec.filters,
          groupBy: spec.by,
          column: spec.column,
          buckets: spec.buckets,
          limit: maxRowsPerRead,
        });
        // (The store answers more than `limit` bucket-count rows with its own resource_exhausted.)
        return (put) => {
          for (const r of rows) put(r.bucketMs, sliceOf(r.slice, spec.by), { indices: r.indices, counts: r.counts });
        };
      }
    });
    return (put) => {
      for (const c of chunks) c(put);
    };
  }

  /**
   * Read-ahead only: the next stretch is read in the background as soon as the last one is in, so
   * the store works while the detectors compute instead of every series waiting on its read at the
   * same tick. A failed read is answered when the stretch is needed.
   */
  function prefetch(e: Entry, ahead: number): void {
    if (ahead <= 0 || e.next) return;
    const fromMs = e.fetchedToMs;
    const rows = fetch(e.spec, fromMs, fromMs + ahead).then(
      (apply) => ({ apply }),
      (error: unknown) => ({ error }),
    );
    e.next = { fromMs, toMs: fromMs + ahead, rows };
  }

  /** A slice as a detector sees it at `visibleMs`: nothing at or after it is summed. */
  function view(e: Entry, s: Slice, visibleMs: number): SliceSeries {
    const idx = (ms: number) => Math.round((Math.min(ms, visibleMs) - e.originMs) / MINUTE_MS);
    return {
      labels: s.labels,
      sum: (name, fromMs, toMs) => s.cols.get(name)?.range(idx(fromMs), idx(toMs)) ?? 0,
      sumOf: (name) => {
        const c = s.cols.get(name);
        return c ? (fromMs, toMs) => c.range(idx(fromMs), idx(toMs)) : () => 0;
      },
      indices: () => ordered(s).sorted,
      count: (index, fromMs, toMs) => s.cols.get(index)?.range(idx(fromMs), idx(toMs)) ?? 0,
      countsOver: (fromMs, toMs) => {
        const cols = ordered(s).sortedCols;
        const a = idx(fromMs);
        const b = idx(toMs);
        return (x) => cols[x]!.range(a, b);
      },
      total: (fromMs, toMs) => s.cols.get(ALL_BUCKETS)?.range(idx(fromMs), idx(toMs)) ?? 0,
    };
  }

  async function refresh(key: string, spec: SeriesSpec, nowMs: number, spanMs: number): Promise<ReadonlyMap<string, SliceSeries>> {
    let e = entries.get(key);
    while (e?.busy) {
      await e.busy;
      e = entries.get(key);
    }
    const ahead = aheadMs > 0 && nowMs % MINUTE_MS === 0 ? aheadMs : 0;
    const wantFrom = floorMinute(nowMs - spanMs);
    const reset = !e || nowMs < e.nowMs || wantFrom >= e.fetchedToMs || wantFrom < e.fromMs || (ahead === 0 && e.fetchedToMs > nowMs);
    if (reset) {
      const span = Math.max(spanMs, e?.spanMs ?? 0);
      const cap = Math.ceil((span + ahead) / MINUTE_MS) + 2 + SLACK_MINUTES;
      e = {
        spec,
        slices: new Map(),
        originMs: floorMinute(nowMs - span),
        cap,
        fromMs: floorMinute(nowMs - span),
        fetchedToMs: nowMs,
        nowMs,
        spanMs: span,
        busy: null,
        next: null,
        seen: null,
      };
      entries.set(key, e);
    } else if (nowMs === e!.nowMs || (ahead > 0 && nowMs <= e!.fetchedToMs)) {
      e!.nowMs = nowMs;
      prefetch(e!, ahead);
      return views(e!, nowMs);
    }
    const entry = e!;
    let done!: () => void;
    entry.busy = new Promise<void>((r) => (done = r));
    try {
      // What was read in the background, when it reaches the evaluation time; else a read to it now.
      const next = !reset && ahead > 0 && entry.next?.fromMs === entry.fetchedToMs && entry.next.toMs >= nowMs ? entry.next : null;
      entry.next = null;
      const readTo = next ? next.toMs : nowMs + ahead;
      const lastMs = floorMinute(readTo - 1);
      // Room for the newest minute: move the origin forward, keeping what the longest caller needs.
      const over = (lastMs - entry.originMs) / MINUTE_MS - (entry.cap - 1);
      if (over > 0) {
        const shift = Math.min(entry.cap, Math.max(over, entry.cap - Math.ceil(entry.spanMs / MINUTE_MS) - 2));
        for (const s of entry.slices.values()) for (const c of s.cols.values()) c.shift(shift);
        entry.originMs += shift * MINUTE_MS;
        entry.fromMs = Math.max(entry.fromMs, entry.originMs);
      }
      const at = (ms: number) => (ms - entry.originMs) / MINUTE_MS;
      const column = (s: Slice, name: string | number) => {
        let c = s.cols.get(name);
        if (!c) {
          s.cols.set(name, (c = new Column(entry.cap)));
          s.sorted = null;
          s.sortedCols = null;
        }
        return c;
      };
      const slot = (labels: Labels) => {
        const k = labelsKey(labels, spec.by);
        let s = entry.slices.get(k);
        if (!s) entry.slices.set(k, (s = { labels, cols: new Map(), sorted: null, sortedCols: null }));
        return s;
      };
      const rates = new Set(spec.kind === 'counts' ? (spec.products ?? []).map((p) => p.rate) : []);
      const kept = spec.kind === 'counts' ? spec.measures.filter((m) => !rates.has(m)) : [];
      const put = (minuteMs: number, labels: Labels, row: { measures?: QueryRow; indices?: readonly number[]; counts?: readonly number[] }) => {
        const j = at(minuteMs);
        if (j < 0 || j >= entry.cap) return;
        const s = slot(labels);
        if (spec.kind === 'counts') {
          const value = (m: string) => {
            const v = row.measures?.[m];
            return typeof v === 'number' && Number.isFinite(v) ? v : 0;
          };
          for (const m of kept) column(s, m).set(j, value(m));
          for (const p of spec.products ?? []) column(s, p.name).set(j, value(p.rate) * value(p.weight));
        } else {
          // Counts are whole numbers: their sum is exact in any order.
          const all = column(s, ALL_BUCKETS);
          const indices = row.indices!;
          const counts = row.counts!;
          for (let x = 0; x < indices.length; x++) {
            column(s, indices[x]!).add(j, counts[x]!);
            all.add(j, counts[x]!);
          }
        }
      };
      const clear = (fromMs: number) => {
        const a = Math.max(0, at(fromMs));
        const b = Math.min(entry.cap, at(lastMs) + 1);
        for (const s of entry.slices.values()) for (const c of s.cols.values()) for (let j = a; j < b; j++) if (c.raw[j] !== 0) c.set(j, 0);
      };
      if (reset) (await fetch(spec, entry.fromMs, readTo))(put);
      else {
        // Live: the minutes since the last read and the last settleMs again. Read-ahead: stored data
        // does not change, so from where the last read ended.
        const again = ahead > 0 ? entry.fetchedToMs : Math.max(entry.fromMs, floorMinute(entry.fetchedToMs - settleMs));
        const got = next ? await next.rows : { apply: await fetch(spec, again, readTo) };
        if ('error' in got) throw got.error;
        clear(again);
        got.apply(put);
      }
      entry.fetchedToMs = readTo;
      entry.nowMs = nowMs;
      entry.spanMs = Math.max(entry.spanMs, spanMs);
      const held = total();
      if (held > maxCells) {
        entries.delete(key);
        throw new InferlensError(
          'resource_exhausted',
          `the detectors would hold ${held} series cells, more than the bound of ${maxCells}: narrow the rules' by, localize or filters, or shorten their reference windows`,
        );
      }
      prefetch(entry, ahead);
      return views(entry, nowMs);
    } catch (e) {
      // A read that failed leaves minutes unread: the series starts over at the next call.
      if (entries.get(key) === entry) entries.delete(key);
      throw e;
    } finally {
      entry.busy = null;
      done();
    }
  }

  /** Slices with data in the held range. */
  function views(e: Entry, visibleMs: number): ReadonlyMap<string, SliceSeries> {
    // The rules that share a series at one tick share its views (a slice only joins, never leaves,
    // an entry; what a view sums is read from the columns when asked).
    if (e.seen && e.seen.visibleMs === visibleMs && e.seen.slices === e.slices.size) return e.seen.views;
    const out = new Map<string, SliceSeries>();
    for (const [k, s] of e.slices) out.set(k, view(e, s, visibleMs));
    e.seen = { visibleMs, slices: e.slices.size, views: out };
    return out;
  }

  const rowEntries = new Map<string, RowsEntry<unknown>>();

  /**
   * Rows with a time, held per key and read incrementally: on each call, [again, now + ahead) is read
   * (again: where the last read ended, less `settleMs` live; aligned down to `alignMs`, so a read
   * never starts inside a step bucket), what was held from `again` on is replaced, and the rows in
   * [now − span, now) are answered, oldest first.
   */
  async function timed<T>(
    key: string,
    read: (fromMs: number, toMs: number) => Promise<T[]>,
    tsOf: (row: T) => number,
    nowMs: number,
    spanMs: number,
    maxRows: number,
    alignMs = 1,
  ): Promise<readonly T[]> {
    let e = rowEntries.get(key) as RowsEntry<T> | undefined;
    while (e?.busy) {
      await e.busy;
      e = rowEntries.get(key) as RowsEntry<T> | undefined;
    }
    const ahead = aheadMs > 0 && nowMs % MINUTE_MS === 0 && MINUTE_MS % alignMs === 0 ? aheadMs : 0;
    const fromMs = nowMs - spanMs;
    const floor = (ms: number) => Math.floor(ms / alignMs) * alignMs;
    const reset = !e || nowMs < e.nowMs || fromMs < e.fromMs || fromMs >= e.fetchedToMs || (ahead === 0 && e.fetchedToMs > nowMs);
    const entry: RowsEntry<T> = reset ? { rows: [], ts: [], fromMs, fetchedToMs: floor(fromMs), nowMs, busy: null, next: null } : e!;
    if (reset) rowEntries.set(key, entry as RowsEntry<unknown>);
    if (reset || !(ahead > 0 && nowMs <= entry.fetchedToMs)) {
      let done!: () => void;
      entry.busy = new Promise<void>((r) => (done = r));
      try {
        const again = reset || ahead > 0 ? entry.fetchedToMs : floor(Math.max(entry.fromMs, entry.fetchedToMs - settleMs));
        // What was read in the background, when it reaches the evaluation time; else a read to it now.
        const next = !reset && ahead > 0 && entry.next?.fromMs === again && entry.next.toMs >= nowMs ? entry.next : null;
        entry.next = null;
        const readTo = next ? next.toMs : nowMs + ahead;
        const chunks = next ? await next.chunks : { rows: await chunked(again, readTo, read) };
        if ('error' in chunks) throw chunks.error;
        let keep = entry.ts.length;
        while (keep > 0 && entry.ts[keep - 1]! >= again) keep--;
        entry.rows.length = keep;
        entry.ts.length = keep;
        for (const got of chunks.rows) {
          const at = got.map(tsOf);
          // Oldest first within the read (a resource read answers by metric and slice, not by time).
          const order = at.map((_, k) => k).sort((x, y) => at[x]! - at[y]!);
          for (const k of order) {
            entry.rows.push(got[k]!);
            entry.ts.push(at[k]!);
          }
          if (entry.rows.length > maxRows) {
            rowEntries.delete(key);
            throw new InferlensError(
              'resource_exhausted',
              `a detector would hold more than ${maxRows} rows: narrow its filters, shorten its windows or raise its max_rows`,
            );
          }
        }
        entry.fetchedToMs = readTo;
        // Drop what no caller will ask for again (a longer span starts over).
        let drop = 0;
        while (drop < entry.ts.length && entry.ts[drop]! < fromMs) drop++;
        if (drop > 0) {
          entry.rows.splice(0, drop);
          entry.ts.splice(0, drop);
        }
        entry.fromMs = fromMs;
      } finally {
        entry.busy = null;
        done();
      }
    }
    entry.nowMs = nowMs;
    // Read-ahead: the next stretch in the background, as the series do (`prefetch`).
    if (ahead > 0 && !entry.next) {
      const from = entry.fetchedToMs;
      const chunks = chunked(from, from + ahead, read).then(
        (rows) => ({ rows }),
        (error: unknown) => ({ error }),
      );
      entry.next = { fromMs: from, toMs: from + ahead, chunks };
    }
    let a = 0;
    while (a < entry.ts.length && entry.ts[a]! < fromMs) a++;
    let b = entry.ts.length;
    while (b > a && entry.ts[b - 1]! >= nowMs) b--;
    return entry.rows.slice(a, b);
  }

  const rows = (spec: RowsSpec, nowMs: number, spanMs: number, maxRows: number) =>
    timed(
      `rows ${spanMs} ${JSON.stringify(spec)}`,
      (fromMs, toMs) =>
        o.reads.events({
          fromMs,
          toMs,
          filters: spec.filters,
          includeProbes: spec.includeProbes,
          columns: ['ts', ...spec.columns],
          limit: maxRows + 1,
          order: 'ts_asc',
        }),
      (r) => Date.parse(r.ts as string),
      nowMs,
      spanMs,
      maxRows,
    );

  const resources = (spec: ResourceSeriesSpec, nowMs: number, spanMs: number) =>
    timed(
      `resources ${spanMs} ${JSON.stringify(spec)}`,
      (fromMs, toMs) => o.reads.resources({ ...spec, fromMs, toMs }),
      (r) => r.bucketMs,
      nowMs,
      spanMs,
      MAX_ROWS_PER_READ,
      spec.stepMs,
    );

  return {
    rows,
    resources,
    counts: (spec, nowMs, spanMs) => refresh(JSON.stringify(spec), spec, nowMs, spanMs),
    buckets: (spec, nowMs, spanMs) => refresh(JSON.stringify(spec), spec, nowMs, spanMs),
    cells: total,
    queries: () => queryCount,
    settled: async () => {
      await Promise.all([...[...entries.values()].map((e) => e.next?.rows), ...[...rowEntries.values()].map((e) => e.next?.chunks)]);
    },
  };
}

interface RowsEntry<T> {
  /** Rows oldest first, and their times. */
  rows: T[];
  ts: number[];
  /** Rows are held from here… */
  fromMs: number;
  /** …up to here (past the evaluation time with read-ahead). */
  fetchedToMs: number;
  nowMs: number;
  busy: Promise<void> | null;
  /** The stretch read in the background past `fetchedToMs` (read-ahead only), one array per chunk. */
  next: { fromMs: number; toMs: number; chunks: Promise<{ rows: T[][] } | { error: unknown }> } | null;
}

function sliceOf(row: Record<string, unknown>, by: readonly string[]): Labels {
  const out: Labels = {};
  for (const d of by) {
    const v = row[d];
    if (v !== null && v !== undefined) out[d] = String(v);
  }
  return out;
}
