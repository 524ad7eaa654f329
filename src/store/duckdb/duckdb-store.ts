/**
 * The embedded default store: DuckDB in one file (or `:memory:` for tests).
 *
 * Write path (measured, see ARCHITECTURE.md): validated JSON lines are written to a staging file
 * and loaded with DuckDB's own NDJSON reader in one INSERT … SELECT with an anti-join on
 * (request_id, ts) restricted to the batch's time range (zone maps keep that cheap). One statement
 * (one transaction) per batch; DuckDB syncs its WAL on commit, so a resolved append survives kill -9.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { InferlensError } from '../../schema/index.ts';
import type { QueryRow, QuerySpec } from '../../schema/index.ts';
import type { AppendHint, AppendResult, HistogramRow, HistogramSpec, RollupProgress, Store, StoreStats } from '../store.ts';
import { EVENT_COLUMNS, EVENT_STAGE_COLUMNS, EVENT_STAGE_SELECT } from './ddl.ts';
import { DUCKDB_MIGRATIONS } from './migrations.ts';
import { Params, aggregateSql, tsParam } from './sql.ts';
import type { StagedWriter } from './sql.ts';
import type { Row } from '../result-rows.ts';
import { appendFeedback, feedbackStats } from './feedback-sql.ts';
import { deleteRollupSql, hasSketch, rebuildSql, rollupAggregateSql, rollupHistogramSql, rolledUpRange } from './rollup-sql.ts';
import { ROLLUP_STEP_MS, rollupLevelFor } from '../rollup.ts';
import { appendSamples, listSamples } from './samples-sql.ts';
import { appendIncidentLog, listIncidentLog } from './incident-log-sql.ts';
import { bucketCounts, distinctValues, getEvents, histogram, listEvents, sliceCounts } from './events-sql.ts';
import { appendResources, resources } from './resources-sql.ts';
import { toHistogramRows, toQueryRows } from '../result-rows.ts';
import { storeWriteError } from '../write-errors.ts';

/**
 * DuckDB errors that mean the rows themselves cannot be stored: its JSON reader refuses the text
 * ("Invalid Input Error: … duplicate key", "… no low surrogate in string") or a value does not fit
 * its column ("Conversion Error", "Out of Range Error"). Retrying the same rows cannot help.
 */
const DUCKDB_ROW_ERROR = /^(?:Error: )?(?:Invalid Input Error|Conversion Error|Out of Range Error|Constraint Error|Mismatch Type Error)\b/;
const isDuckDBRowError = (e: unknown): boolean => DUCKDB_ROW_ERROR.test(String((e as Error | null)?.message ?? e));
/** Runs a write; a failure becomes the coded error of the Store contract (store.ts, write-errors.ts). */
async function coded<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    throw storeWriteError(e, isDuckDBRowError);
  }
}
/**
 * How far below the rollup's watermark late rows may start and still leave their minutes to the
 * maintainer (see appendEventsNow): two hours, two of its transactions.
 */
const LAZY_REBUILD_MS = 2 * 3_600_000;
/** Minutes per rollup transaction: a catch-up holds the writer (appends wait) for one at most. */
const ROLLUP_CHUNK_MS = 10 * 60_000;
/** The maintainer's rollup waits for reads to pause this long before each transaction… */
const READ_QUIET_MS = 100;
/**
 * …but no longer than this per transaction, so a dashboard that never pauses cannot stall it (reads
 * stay right meanwhile: minutes not rolled up are read raw). 2 s let an hour's catch-up start in the
 * middle of the benchmark's five dashboard reads on a loaded machine.
 */
const MAX_READ_YIELD_MS = 10_000;
/** Staging files this process writes (`stage-<pid>-<seq>.ndjson`); ones left by a killed process are removed at open. */
const STAGE_FILE = /^stage-\d+-\d+\.ndjson$/;

export interface DuckDBStoreOptions {
  /** A file path, or ':memory:'. The folder is created. */
  path: string;
  /** DuckDB worker threads (default: DuckDB's choice, the core count). */
  threads?: number;
  /** DuckDB memory limit, e.g. '1GB' (bounds the server's RSS). */
  memoryLimit?: string;
}

function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' && Number.isNaN(v)) return null;
  return v;
}

let stageSeq = 0;

export async function createDuckDBStore(options: DuckDBStoreOptions): Promise<Store> {
  const memory = options.path === ':memory:';
  if (!memory) mkdirSync(dirname(options.path), { recursive: true });
  const stageDir = memory ? join(tmpdir(), `inferlens-stage-${process.pid}`) : join(dirname(options.path), '.stage');
  mkdirSync(stageDir, { recursive: true });
  // A checkpoint rewrites the row group that appends are filling; with DuckDB's 16 MB default one
  // ran every ~40,000 rows of group commits (20,000-row transactions of 1 M events: 14.1 CPU-s at
  // 16 MB, 11.4 at 128 MB, 10.4 at 512 MB; ARCHITECTURE.md). 128 MB bounds the WAL replayed at start.
  const config: Record<string, string> = { preserve_insertion_order: 'false', checkpoint_threshold: '128MB' };
  if (options.threads) config.threads = String(options.threads);
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(options.path, config);
  } catch (e) {
    throw new InferlensError('unavailable', `cannot open DuckDB database ${options.path}: ${String(e)}`, { cause: e });
  }
  // The database file is locked to this process now, so staging files in its folder are leftovers
  // of a process that was killed mid-write (their rows were never acknowledged).
  if (!memory) for (const f of readdirSync(stageDir)) if (STAGE_FILE.test(f)) rmSync(join(stageDir, f), { force: true });
  // One connection serialises writes (the pipeline has a single writer); reads get their own.
  const writer = await instance.connect();
  // The writer keeps its rows in the order they come (a session setting; reads keep the database's
  // `false`): DuckDB then fills one row group from one thread instead of one per thread, so a
  // group commit of 8,500 events costs 5.1–5.5 CPU-µs a row against 6.3–6.8 and stores 32.4
  // bytes/event against 34.1 (ARCHITECTURE.md, issue 17).
  await writer.run('SET preserve_insertion_order = true');
  // Four read connections: a query runs on one connection at a time, so with two the small panel
  // reads of a dashboard queued behind the big ones; DuckDB shares its threads between them.
  const readers = [await instance.connect(), await instance.connect(), await instance.connect(), await instance.connect()];
  let nextReader = 0;
  let closed = false;
  // Every minute before this is rolled up (null: nothing yet). Only this store writes the rollup,
  // so the copy in memory is the truth once migrate() has read it.
  let watermarkMs: number | null = null;
  // The highest watermark reached. Late rows that lowered the watermark leave [watermarkMs,
  // highWaterMs) to roll up again: the maintainer's next run does, or the first approximate read.
  let highWaterMs: number | null = null;
  let catchingUp: Promise<unknown> | undefined;
  // The writer connection runs one operation at a time: an append must never land inside the
  // rollup's or retention's transaction.
  let writerChain: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new InferlensError('unavailable', 'the store is closed (the server is stopping): retry against a running server'));
    const run = writerChain.then(fn, fn);
    writerChain = run.catch(() => undefined);
    return run;
  }
  const floorMinute = (ms: number) => Math.floor(ms / ROLLUP_STEP_MS) * ROLLUP_STEP_MS;

  /** Rebuilds the rollup minutes of [fromMs, toMs) (whole minutes) inside the caller's transaction. */
  async function rebuild(fromMs: number, toMs: number): Promise<void> {
    for (const st of rebuildSql(fromMs, toMs)) await writer.run(st.sql, st.params as never);
  }

  // Reads in flight: close() waits for them. Closing a DuckDB connection under a running statement
  // deadlocks inside DuckDB (the statement's context destroys itself while holding its own lock;
  // seen as a server that never exited after SIGTERM during a dashboard benchmark).
  const inFlight = new Set<Promise<unknown>>();
  // When the last read finished (performance.now()): the rollup maintainer waits for quiet.
  let lastReadMs = -Infinity;
  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    const done = () => {
      inFlight.delete(p);
      lastReadMs = performance.now();
    };
    p.then(done, done);
    return p;
  }

  async function read(sql: string, params: unknown[] = []): Promise<Row[]> {
    if (closed) throw new InferlensError('unavailable', 'the store is closed (the server is stopping): retry against a running server');
    const conn = readers[nextReader++ % readers.length]!;
    const reader = await track(conn.runAndReadAll(sql, params as never));
    // Converted column by column, then one object per row (the row objects DuckDB's reader builds
    // would be copied again here: ~0.5 M rows a backtest, twice the garbage).
    const names = reader.deduplicatedColumnNames();
    const columns = reader.getColumnsJS();
    const rows = columns.length === 0 ? 0 : columns[0]!.length;
    const out: Row[] = new Array(rows);
    for (let i = 0; i < rows; i++) {
      const r: Row = {};
      for (let c = 0; c < names.length; c++) r[names[c]!] = plain(columns[c]![i]);
      out[i] = r;
    }
    return out;
  }

  async function inTransaction<T>(conn: DuckDBConnection, fn: () => Promise<T>): Promise<T> {
    await conn.run('BEGIN TRANSACTION');
    try {
      const out = await fn();
      await conn.run('COMMIT');
      return out;
    } catch (e) {
      await conn.run('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  /** Writes lines to a staging file and returns its path; the caller removes it (a failed write removes it here). */
  function stageFile(lines: readonly string[]): string {
    const file = join(stageDir, `stage-${process.pid}-${++stageSeq}.ndjson`);
    try {
      writeFileSync(file, lines.join('\n'));
    } catch (e) {
      rmSync(file, { force: true });
      throw e;
    }
    return file;
  }

  /** The writer and its staging files, for the appends in the `*-sql.ts` modules. */
  const staged: StagedWriter = { run: async (sql, params) => void (await writer.run(sql, params as never)), stageFile };

  const eventColumnList = EVENT_COLUMNS.map((c) => c.name).join(', ');

  /** Persists the watermark (inside the caller's transaction). */
  async function saveWatermark(ms: number): Promise<void> {
    await writer.run('DELETE FROM rollup_state');
    await writer.run('INSERT INTO rollup_state (watermark) VALUES (make_timestamp(CAST($1 AS BIGINT)))', [ms * 1000] as never);
  }

  /**
   * One batch of events. Live rows are ahead of the rollup's watermark and take the plain insert.
   * Rows below it (late data, a backfill of the last hours) lower the watermark to their first
   * minute in the same transaction, so reads take those minutes from raw rows at once and the
   * maintainer rebuilds them on its next run, once for many batches: rebuilding each batch's
   * minutes in its own transaction cost more than the insert (CPU 15 → 38 s per million rows in
   * 20,000-row batches) and left the rollup tables fragmented (34.6 → 59.5 bytes/event). Rows
   * older than `LAZY_REBUILD_MS` below the watermark (an import of last week) still rebuild their
   * minutes in the insert's transaction, so the maintainer never has days to redo.
   */
  async function appendEventsNow(lines: readonly string[], hint?: AppendHint): Promise<AppendResult> {
    const file = stageFile(lines);
    try {
      // The anti-join looks for stored copies only inside the batch's time range (zone maps
      // skip the rest); without a hint, DuckDB's join filter pushdown derives the range itself.
      const range = hint ? `e.ts >= make_timestamp(CAST($2 AS BIGINT)) AND e.ts <= make_timestamp(CAST($3 AS BIGINT)) AND` : '';
      const params = hint ? [file, Math.floor(hint.minTsMs * 1000), Math.ceil(hint.maxTsMs * 1000)] : [file];
      const staged = `SELECT ${EVENT_STAGE_SELECT} FROM read_ndjson($1, columns=${EVENT_STAGE_COLUMNS}, format='newline_delimited', maximum_object_size=1048576)`;
      // Repeats within the batch: a window over it, unless the caller knows there are none.
      const once = hint?.distinctRequestIds ? '' : 'QUALIFY s.request_id IS NULL OR row_number() OVER (PARTITION BY s.request_id, s.ts) = 1';
      const insert = () =>
        writer.run(
          `INSERT INTO events (${eventColumnList}) SELECT ${eventColumnList} FROM (${staged}) s
           WHERE s.request_id IS NULL OR NOT EXISTS (SELECT 1 FROM events e WHERE ${range} e.request_id = s.request_id AND e.ts = s.ts)
           ${once}`,
          params as never,
        );
      const wm = watermarkMs;
      if (wm === null || (hint && hint.minTsMs >= wm)) return { inserted: Number((await insert()).rowsChanged) };
      return await inTransaction(writer, async () => {
        const inserted = Number((await insert()).rowsChanged);
        if (inserted === 0) return { inserted };
        let span = hint;
        if (!span) {
          const r = (await writer.runAndReadAll(`SELECT epoch_ms(min(ts)) AS lo, epoch_ms(max(ts)) AS hi FROM (${staged})`, [file])).getRowObjectsJS()[0];
          span = { minTsMs: Number(r?.lo), maxTsMs: Number(r?.hi) };
        }
        const from = floorMinute(span.minTsMs);
        if (from >= wm) return { inserted };
        if (from >= wm - LAZY_REBUILD_MS) {
          // Lowered in memory before the commit: a read that starts now takes these minutes raw
          // (always right); a rolled-back insert only costs the maintainer a rebuild.
          watermarkMs = from;
          await saveWatermark(from);
          return { inserted };
        }
        const to = Math.min(floorMinute(span.maxTsMs) + ROLLUP_STEP_MS, wm);
        if (to > from) await rebuild(from, to);
        return { inserted };
      });
    } finally {
      rmSync(file, { force: true });
    }
  }

  /**
   * Rolls up from the watermark (or the oldest event) to `target`, `ROLLUP_CHUNK_MS` per
   * transaction, each taking its turn on the writer (`exclusive`), so appends wait for one chunk at
   * most. With `yieldToReads` (the maintainer) each chunk first waits until no read has run for
   * `READ_QUIET_MS` (at most `MAX_READ_YIELD_MS`): a backfill's catch-up costs DuckDB's threads
   * ~0.8 s per million events, and a dashboard read that shared them with it took 3× longer
   * (ARCHITECTURE.md, issue 17). Returns where it started.
   */
  async function rollUpTo(target: number, yieldToReads: boolean): Promise<number> {
    let start: number | undefined;
    for (let done = false; !done;) {
      if (yieldToReads) await readsQuiet();
      done = await exclusive(async () => {
        let from = watermarkMs;
        if (from === null) {
          const r = (await writer.runAndReadAll('SELECT epoch_ms(min(ts)) AS t FROM events')).getRowObjectsJS()[0];
          from = r?.t == null ? target : Math.min(floorMinute(Number(r.t)), target);
        }
        start ??= from;
        if (from >= target && watermarkMs !== null) return true;
        const to = Math.min(from + ROLLUP_CHUNK_MS, target);
        await inTransaction(writer, async () => {
          if (to > from) await rebuild(from, to);
          await saveWatermark(to);
        });
        watermarkMs = to;
        return to >= target;
      });
    }
    highWaterMs = Math.max(highWaterMs ?? target, target);
    return start!;
  }

  /** Resolves once no read has run for READ_QUIET_MS, or after MAX_READ_YIELD_MS, or when the store closes. */
  async function readsQuiet(): Promise<void> {
    const deadline = performance.now() + MAX_READ_YIELD_MS;
    for (;;) {
      const t = performance.now();
      const wait = inFlight.size > 0 ? READ_QUIET_MS : lastReadMs + READ_QUIET_MS - t;
      if (wait <= 0 || t >= deadline || closed) return;
      await new Promise((r) => setTimeout(r, Math.min(wait, deadline - t)));
    }
  }

  /**
   * Before an approximate read: minutes that late rows took out of the rollup are rolled up again
   * first (once, however many reads wait), so a read right after a backfill answers from the
   * rollup as one after live traffic does. A failure leaves those minutes to raw rows.
   */
  function caughtUp(): Promise<unknown> {
    if (watermarkMs === null || highWaterMs === null || watermarkMs >= highWaterMs) return Promise.resolve();
    catchingUp ??= rollUpTo(highWaterMs, false)
      .catch(() => undefined)
      .finally(() => (catchingUp = undefined));
    return catchingUp;
  }

  const store: Store = {
    async migrate() {
      await writer.run('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)');
      const rows = (await writer.runAndReadAll('SELECT coalesce(max(version), 0) AS v FROM schema_migrations')).getRowObjectsJS();
      const current = Number(rows[0]?.v ?? 0);
      if (current > DUCKDB_MIGRATIONS.length) {
        throw new InferlensError(
          'unavailable',
          `${options.path} has schema version ${current}, newer than this inferlens knows (${DUCKDB_MIGRATIONS.length}): run a newer inferlens on it`,
        );
      }
      for (let v = current + 1; v <= DUCKDB_MIGRATIONS.length; v++) {
        await inTransaction(writer, async () => {
          for (const stmt of DUCKDB_MIGRATIONS[v - 1]!) await writer.run(stmt);
          await writer.run('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, current_timestamp)', [v]);
        });
      }
      const wm = (await writer.runAndReadAll('SELECT epoch_ms(max(watermark)) AS w FROM rollup_state')).getRowObjectsJS();
      watermarkMs = wm[0]?.w == null ? null : Number(wm[0].w);
      highWaterMs = watermarkMs;
    },

    async ping() {
      await read('SELECT 1');
    },

    appendEvents(lines, hint): Promise<AppendResult> {
      if (lines.length === 0) return Promise.resolve({ inserted: 0 });
      return exclusive(() => coded(() => appendEventsNow(lines, hint)));
    },

    appendResources: (samples) => exclusive(() => coded(() => appendResources(staged, samples))),
    appendFeedback: (rows) => exclusive(() => coded(() => appendFeedback(staged, rows))),

    async aggregate(spec: QuerySpec): Promise<QueryRow[]> {
      const { sql, params } = aggregateSql(spec);
      return toQueryRows(spec, await read(sql, params));
    },

    async approxAggregate(spec: QuerySpec): Promise<QueryRow[] | null> {
      let level = rollupLevelFor(spec);
      // Quantiles need the level's sketch; without one (model, version) the exact query is faster.
      if (level && !hasSketch(level) && spec.measures.some((m) => m.measure.kind === 'quantile')) level = null;
      if (level) await caughtUp();
      const range = level && rolledUpRange(spec.fromMs, spec.toMs, watermarkMs);
      if (!level || !range) return null;
      const { sql, params } = rollupAggregateSql(spec, level, range);
      return toQueryRows(spec, await read(sql, params));
    },

    async approxHistogram(spec: HistogramSpec): Promise<HistogramRow[] | null> {
      let level = rollupLevelFor({ fromMs: spec.fromMs, stepMs: spec.stepMs, filters: spec.filters, groupBy: [] });
      if (level && !hasSketch(level)) level = null;
      if (level) await caughtUp();
      const range = level && rolledUpRange(spec.fromMs, spec.toMs, watermarkMs);
      const q = level && range && rollupHistogramSql({ ...spec, includeProbes: spec.includeProbes ?? false }, level, range);
      if (!q) return null;
      return toHistogramRows(spec, await read(q.sql, q.params));
    },

    async maintainRollup(untilMs: number): Promise<RollupProgress> {
      const target = floorMinute(untilMs);
      // Nothing closed since the last run (or a clock that went back): leave the watermark.
      if (closed || (watermarkMs !== null && target <= watermarkMs)) return exclusive(async () => ({ watermarkMs, minutes: 0 }));
      const start = await rollUpTo(target, true);
      return start >= target ? { watermarkMs, minutes: 0 } : { watermarkMs: target, minutes: (target - start) / ROLLUP_STEP_MS };
    },

    histogram: (spec) => histogram(read, spec),
    bucketCounts: (spec) => bucketCounts(read, spec),
    sliceCounts: (spec) => sliceCounts(read, spec),
    listEvents: (spec) => listEvents(read, spec),
    getEvents: (requestId) => getEvents(read, requestId),
    resources: (spec) => resources(read, spec),
    distinctValues: (dimension, fromMs, toMs, limit) => distinctValues(read, dimension, fromMs, toMs, limit),

    deleteBefore(cutoffMs) {
      const p = new Params();
      const cutoff = tsParam(p, cutoffMs);
      return exclusive(() =>
        inTransaction(writer, async () => {
          const e = await writer.run(`DELETE FROM events WHERE ts < ${cutoff}`, p.values as never);
          const r = await writer.run(`DELETE FROM resources WHERE ts < ${cutoff}`, p.values as never);
          const f = await writer.run(`DELETE FROM feedback WHERE ts < ${cutoff}`, p.values as never);
          await writer.run(`DELETE FROM samples WHERE ts < ${cutoff}`, p.values as never);
          // Rollup minutes go with their events; a minute the cutoff splits is rebuilt from what is left.
          const minute = floorMinute(cutoffMs);
          for (const st of deleteRollupSql(minute)) await writer.run(st.sql, st.params as never);
          if (minute < cutoffMs && watermarkMs !== null && minute < watermarkMs) await rebuild(minute, minute + ROLLUP_STEP_MS);
          return { events: Number(e.rowsChanged), resources: Number(r.rowsChanged), feedback: Number(f.rowsChanged) };
        }),
      );
    },

    async stats(): Promise<StoreStats> {
      const rows = await read('SELECT (SELECT count(*) FROM events) AS e, (SELECT count(*) FROM resources) AS r, (SELECT count(*) FROM feedback) AS f');
      let bytes: number | null = null;
      if (!memory) {
        bytes = 0;
        for (const f of [options.path, options.path + '.wal']) {
          try {
            bytes += statSync(f).size;
          } catch {
            // no WAL right after a checkpoint
          }
        }
      }
      return { events: Number(rows[0]!.e), resources: Number(rows[0]!.r), feedback: Number(rows[0]!.f), bytes };
    },

    feedbackStats: (spec) => feedbackStats(read, spec),

    appendSamples: (rows) => exclusive(() => coded(() => appendSamples(staged, rows))),
    listSamples: (spec) => listSamples(read, spec),

    appendIncidentLog: (entries) =>
      exclusive(() =>
        coded(() =>
          inTransaction(writer, () =>
            appendIncidentLog(
              {
                run: async (sql, params) => void (await writer.run(sql, params as never)),
                read: async (sql, params) => (await writer.runAndReadAll(sql, params as never)).getRowObjectsJS() as Record<string, unknown>[],
              },
              entries,
            ),
          ),
        ),
      ),
    listIncidentLog: (spec) => listIncidentLog(read, spec),

    async close() {
      if (closed) return;
      closed = true;
      // Let running statements finish first (see `track`); writes already queued still run.
      await Promise.allSettled([...inFlight, writerChain]);
      for (const c of [...readers, writer]) c.closeSync();
      instance.closeSync();
      if (memory) rmSync(stageDir, { recursive: true, force: true });
    },
  };
  return store;
}
