/**
 * validate → normalise → limit cardinality → batch → store.
 *
 * Every row is checked against the event field table (`checkEvent`), in slices with a turn of the
 * event loop between them (slices.ts). Valid rows are queued for a single writer that
 * group-commits the rows of many requests into one store transaction; a write resolves only after
 * its rows are durable.
 *
 * Bounded by rows and by expected wait: a write is refused with `resource_exhausted` (HTTP 429 +
 * Retry-After) when the rows queued ahead of it would take longer than `maxQueueWaitMs` to write
 * (write-cost.ts), or exceed `maxQueueRows`. So an admitted write waits at most about
 * `maxQueueWaitMs` plus the writing of its own rows. `admit()` answers the same question before a
 * request's body is even read, so a refused request costs no parsing.
 *
 * One request's rows never fail another's: when the store refuses a group commit because of the
 * rows themselves (`invalid_argument`), each request is written on its own, and within a request
 * the refused rows are isolated (isolate.ts) and rejected one by one while the rest is stored. A
 * storage failure (disk full, I/O) fails the requests of that transaction with a retryable error,
 * and `writeFailure()` reports it (for `/readyz`) until a write succeeds or the storage probe does.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Counter, Gauge, Histogram } from 'prom-client';
import { DIMENSIONS, EVENT_FIELD_NAMES, FeedbackSchema, InferlensError, READ_RESOURCE_METRICS, ResourceSampleSchema, checkEvent, outsideWindow, tsMillis, zodIssues } from '../schema/index.ts';
import type { Dimension, EventInput, Feedback, IngestReply, ResourceSample, RowIssue } from '../schema/index.ts';
import type { Store } from '../store/index.ts';
import type { Sink, WriteOptions } from './sink.ts';
import { CardinalityLimiter } from './cardinality.ts';
import { createRequestMetrics } from './request-metrics.ts';
import { createCapturePolicy, withoutPayload } from './capture.ts';
import type { CapturePolicy } from './capture.ts';
import type { SampleRow } from '../store/index.ts';
import { appendIsolating, isRowRefusal } from './isolate.ts';
import type { RefusedRow } from './isolate.ts';
import { WriteCost } from './write-cost.ts';
import { ROWS_PER_SLICE, yieldToLoop } from './slices.ts';

export interface PipelineOptions {
  store: Store;
  logger: Logger;
  registry: Registry;
  /** Injected clock (epoch ms): the accepted time window of rows. */
  now?: () => number;
  /** Injected monotonic clock (ms) for timing store writes and queue waits (default performance.now). */
  monotonicNow?: () => number;
  /** Oldest accepted event, in days before now (the retention window). */
  retentionDays: number;
  /** Most distinct values kept per dimension; the rest become `__other__`. */
  cardinalityCap: number;
  /** Most rows waiting for the writer; beyond it writes are refused with 429. */
  maxQueueRows: number;
  /**
   * Longest expected wait of a queued row, in ms: beyond it writes are refused with 429. Well under
   * the SDK's 10 s request timeout, so a client never gives up on (and re-sends) rows that were
   * stored. Default `DEFAULT_MAX_QUEUE_WAIT_MS`.
   */
  maxQueueWaitMs?: number;
  /** Most rows in one store transaction. */
  maxBatchRows: number;
  /** Which payloads are kept as samples (default: the capture policy's defaults). */
  capture?: CapturePolicy;
  /**
   * After a storage failure, resolves when storage takes writes again (e.g. the data disk has room);
   * run at most once a second by `writeFailure()`. Without it only a successful write clears it.
   */
  probeStorage?: () => Promise<void>;
}

export interface Pipeline extends Sink {
  /** Loads the known dimension values so the cardinality cap survives restarts. */
  start(): Promise<void>;
  /** Stops taking writes and waits for queued ones, up to the deadline. */
  stop(deadlineMs?: number): Promise<void>;
  /** Rows waiting for the writer. */
  queueRows(): number;
  /** Expected milliseconds until the rows queued now are durable (see write-cost.ts). */
  expectedWaitMs(): number;
  /**
   * Why writes fail now (the last store write failed for a storage reason and none succeeded
   * since), or undefined when they do not. While failing, runs the storage probe (once a second).
   */
  writeFailure(): Promise<string | undefined>;
}

interface Job {
  rows: number;
  run: () => Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The default bound on a queued row's expected wait: 3 s, well under the SDK's 10 s timeout. */
export const DEFAULT_MAX_QUEUE_WAIT_MS = 3000;

/** Most rejected / warning entries listed in one reply (the counts are still exact). */
const READ_METRICS: ReadonlySet<string> = new Set(READ_RESOURCE_METRICS);
const MAX_LISTED_ISSUES = 1000;
/** How often a failing storage is probed, at most. */
const PROBE_INTERVAL_MS = 1000;

/** One request's rows inside a group commit: settles with the rows the store refused (part indexes). */
interface Part {
  lines: string[];
  events: EventInput[];
  done: (refused: RefusedRow[]) => void;
  fail: (e: unknown) => void;
}

/**
 * Group commit: events of requests that arrive while a write is running gather in one open batch,
 * written in a single transaction when the writer reaches it. `deadlineMs` is the earliest time by
 * which a request in it was promised its rows (admission time + maxQueueWaitMs + the writing of
 * its own rows): a request whose rows would push the batch past it starts a new batch instead.
 */
interface EventBatch {
  parts: Part[];
  rows: number;
  minTsMs: number;
  maxTsMs: number;
  deadlineMs: number;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const { store, logger, registry } = options;
  const now = options.now ?? Date.now;
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const limiter = new CardinalityLimiter(options.cardinalityCap);
  const cost = new WriteCost();
  const maxWaitMs = options.maxQueueWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_MS;

  const rowsTotal = new Counter({ name: 'inferlens_ingest_rows_total', help: 'Rows received, by kind and outcome.', labelNames: ['kind', 'outcome'], registers: [registry] });
  const dropped = new Counter({ name: 'inferlens_ingest_dropped_total', help: 'Rows not stored, by reason.', labelNames: ['reason'], registers: [registry] });
  const overflow = new Counter({ name: 'inferlens_pipeline_cardinality_overflow_total', help: 'Dimension values replaced by __other__ because the cap was reached.', labelNames: ['dimension'], registers: [registry] });
  const queueGauge = new Gauge({ name: 'inferlens_pipeline_queue_rows', help: 'Rows waiting for the store writer.', registers: [registry] });
  const waitGauge: Gauge = new Gauge({
    name: 'inferlens_pipeline_queue_expected_wait_seconds',
    help: 'Expected time until the rows queued now are durable.',
    registers: [registry],
    collect: () => waitGauge.set(cost.waitMs(queued) / 1000),
  });
  const failingGauge = new Gauge({ name: 'inferlens_store_write_failing', help: '1 while store writes fail for a storage reason (disk full, I/O), else 0.', registers: [registry] });
  const writeSeconds = new Histogram({ name: 'inferlens_store_write_duration_seconds', help: 'Duration of one store transaction.', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [registry] });
  const batchRows = new Histogram({ name: 'inferlens_store_write_batch_rows', help: 'Rows per store transaction.', buckets: [1, 10, 100, 1000, 5000, 20000, 50000, 100000], registers: [registry] });

  const requestMetrics = createRequestMetrics(registry);
  const capture = options.capture ?? createCapturePolicy({ registry, now });
  const samplesRefused = new Counter({ name: 'inferlens_capture_write_dropped_total', help: 'Kept samples not stored because the write queue was full or the write failed.', registers: [registry] });

  const queue: Job[] = [];
  let queued = 0;
  let writing: Promise<void> | null = null;
  let stopping = false;

  // ---------- storage failures ----------

  let failure: string | undefined;
  let probing: Promise<void> | undefined;
  let lastProbeMs = -Infinity;

  /** The retryable error a failed write answers with; records a storage failure for `writeFailure()`. */
  function storageFailed(e: unknown): InferlensError {
    const err = e instanceof InferlensError ? e : new InferlensError('unavailable', 'the store could not write this batch; retry later', { cause: e, retryAfterS: 2 });
    if (err.code === 'unavailable' && !stopping) {
      if (failure === undefined) logger.error({ err: e }, 'store writes fail');
      failure = err.message;
      failingGauge.set(1);
    }
    return err;
  }

  function storageWorks(): void {
    if (failure !== undefined) logger.info('store writes work again');
    failure = undefined;
    failingGauge.set(0);
  }

  // ---------- the queue ----------

  function retryAfterS(): number {
    return Math.max(1, Math.ceil(cost.waitMs(queued) / 1000));
  }

  function refuseIfFull(rows: number): void {
    if (stopping) throw new InferlensError('unavailable', 'inferlens is shutting down; retry against another node or later', { retryAfterS: 5 });
    if (queued === 0) return; // a write alone waits only for itself
    if (queued + rows > options.maxQueueRows) {
      dropped.inc({ reason: 'queue_full' }, rows);
      throw new InferlensError('resource_exhausted', `write queue is full (${queued} rows waiting, limit ${options.maxQueueRows}); retry after the delay`, { retryAfterS: retryAfterS() });
    }
    const aheadMs = cost.waitMs(queued);
    if (aheadMs > maxWaitMs) {
      dropped.inc({ reason: 'queue_wait' }, rows);
      throw new InferlensError('resource_exhausted', `the store is behind: these rows would wait about ${(aheadMs / 1000).toFixed(1)} s (limit ${maxWaitMs / 1000} s); retry after the delay`, { retryAfterS: retryAfterS() });
    }
  }

  function addQueued(rows: number) {
    queued += rows;
    queueGauge.set(queued);
  }

  /** Runs store writes one at a time, in order. `job.rows` is read when the job finishes. */
  function enqueue(job: Job): void {
    queue.push(job);
    if (!writing) writing = Promise.resolve().then(drain);
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const job = queue.shift()!;
      const t0 = monotonicNow();
      try {
        await job.run();
        job.resolve();
      } catch (e) {
        job.reject(e);
      }
      const ms = monotonicNow() - t0;
      writeSeconds.observe(ms / 1000);
      batchRows.observe(job.rows);
      cost.observe(job.rows, ms);
      addQueued(-job.rows);
    }
    writing = null;
  }

  /** One store write as its own job; a refused row is isolated (rejected alone), a storage failure is retryable. */
  function write(rows: number, run: (indexes: readonly number[]) => Promise<void>): Promise<RefusedRow[]> {
    refuseIfFull(rows);
    addQueued(rows);
    return new Promise<RefusedRow[]>((resolve, reject) => {
      let refused: RefusedRow[] = [];
      enqueue({
        rows,
        run: async () => {
          try {
            refused = await appendIsolating(rows, run);
            storageWorks();
          } catch (e) {
            throw storageFailed(e);
          }
        },
        resolve: () => resolve(refused),
        reject,
      });
    });
  }

  // ---------- group commit of events ----------

  let open: EventBatch | null = null;

  function writeEventLines(lines: string[], events: EventInput[]): Promise<RefusedRow[]> {
    refuseIfFull(lines.length);
    const t = monotonicNow();
    // When the open batch would be written with these rows in it (everything queued is ahead of
    // them or in it), and by when these rows were promised: the bound plus their own writing.
    const doneBy = t + cost.waitMs(queued + lines.length);
    const deadlineMs = t + maxWaitMs + cost.waitMs(lines.length);
    addQueued(lines.length);
    return new Promise<RefusedRow[]>((done, fail) => {
      let batch = open;
      const fresh = !batch || batch.rows + lines.length > options.maxBatchRows || doneBy > batch.deadlineMs;
      if (fresh) open = batch = { parts: [], rows: 0, minTsMs: Infinity, maxTsMs: -Infinity, deadlineMs: Infinity };
      const b = batch!;
      b.parts.push({ lines, events, done, fail });
      b.rows += lines.length;
      b.deadlineMs = Math.min(b.deadlineMs, deadlineMs);
      for (const e of events) {
        const ts = tsMillis(e.ts);
        if (ts < b.minTsMs) b.minTsMs = ts;
        if (ts > b.maxTsMs) b.maxTsMs = ts;
      }
      if (fresh) {
        const job: Job = {
          rows: 0,
          run: async () => {
            if (open === b) open = null;
            job.rows = b.rows;
            await writeBatch(b);
          },
          resolve: () => undefined,
          reject: () => undefined,
        };
        enqueue(job);
      }
    });
  }

  function timeRange(events: readonly EventInput[]): { minTsMs: number; maxTsMs: number } {
    let minTsMs = Infinity;
    let maxTsMs = -Infinity;
    for (const e of events) {
      const t = tsMillis(e.ts);
      if (t < minTsMs) minTsMs = t;
      if (t > maxTsMs) maxTsMs = t;
    }
    return { minTsMs, maxTsMs };
  }

  async function writeBatch(b: EventBatch): Promise<void> {
    try {
      await store.appendEvents(
        b.parts.length === 1 ? b.parts[0]!.lines : b.parts.flatMap((p) => p.lines),
        { minTsMs: b.minTsMs, maxTsMs: b.maxTsMs },
      );
      storageWorks();
      for (const p of b.parts) p.done([]);
      return;
    } catch (e) {
      if (!isRowRefusal(e)) {
        const err = storageFailed(e);
        for (const p of b.parts) p.fail(err);
        throw err;
      }
      logger.warn({ err: e, requests: b.parts.length }, 'the store refused rows of a group commit; writing each request on its own');
    }
    // Each request on its own, so that one request's rows never fail another's.
    let failed: InferlensError | undefined;
    for (const p of b.parts) {
      if (failed) {
        p.fail(failed);
        continue;
      }
      try {
        p.done(await writePart(p));
        storageWorks();
      } catch (e) {
        failed = storageFailed(e);
        p.fail(failed);
      }
    }
    if (failed) throw failed;
  }

  /** One request's rows: as sent, then re-serialised (text the store's reader refuses, such as a duplicate key), then row by row. */
  async function writePart(p: Part): Promise<RefusedRow[]> {
    try {
      await store.appendEvents(p.lines, timeRange(p.events));
      return [];
    } catch (e) {
      if (!isRowRefusal(e)) throw e;
    }
    const lines = p.events.map((e) => normalise(e, limiter));
    const refused = await appendIsolating(lines.length, (idx) =>
      store.appendEvents(
        idx.map((i) => lines[i]!),
        timeRange(idx.map((i) => p.events[i]!)),
      ).then(() => undefined),
    );
    if (refused.length > 0) {
      dropped.inc({ reason: 'store_refused' }, refused.length);
      logger.warn({ refused: refused.length, first: refused[0]?.message }, 'the store refused rows that passed validation (they were rejected alone)');
    }
    return refused;
  }

  /** Queues kept samples behind the events; a refused or failed sample write is counted, never fails the request. */
  async function writeSamples(samples: SampleRow[]): Promise<void> {
    if (samples.length === 0) return;
    try {
      const refused = await write(samples.length, (idx) => store.appendSamples(idx.length === samples.length ? samples : idx.map((i) => samples[i]!)));
      if (refused.length > 0) samplesRefused.inc(refused.length);
    } catch (e) {
      samplesRefused.inc(samples.length);
      logger.warn({ err: e, samples: samples.length }, 'captured samples not stored');
    }
  }

  function minTsMs(t: number): number {
    return t - options.retentionDays * 86_400_000;
  }

  /**
   * Validates feedback or resource rows with their zod schema (in slices), the shared time window,
   * writes the valid ones and returns the reply.
   */
  async function writeRows<T extends { ts: string | number }>(
    kind: 'feedback' | 'resource',
    rows: readonly unknown[],
    schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: Parameters<typeof zodIssues>[0] } },
    append: (rows: readonly T[]) => Promise<void>,
    /** A stored row worth a word in the reply (and a count under `count`). */
    warn?: (row: T) => { path: string; message: string; count: string } | undefined,
  ): Promise<{ accepted: number; rejected: RowIssue[]; warnings?: RowIssue[] }> {
    const t = now();
    const oldest = minTsMs(t);
    const ok: T[] = [];
    const okIndex: number[] = [];
    const rejected: RowIssue[] = [];
    const warnings: RowIssue[] = [];
    const warned = new Map<string, number>();
    let rejectedRows = 0;
    const reject = (index: number, path: string, message: string) => {
      if (rejected.length < MAX_LISTED_ISSUES) rejected.push({ index, path, message });
    };
    for (let i = 0; i < rows.length; i++) {
      if (i > 0 && i % ROWS_PER_SLICE === 0) await yieldToLoop();
      const row = rows[i];
      // A cheap answer for what is not even an object (zod's error path costs ~6 µs a row).
      if (typeof row !== 'object' || row === null || Array.isArray(row)) {
        rejectedRows++;
        reject(i, '', `expected a JSON object (one ${kind === 'feedback' ? 'feedback row' : 'resource sample'})`);
        continue;
      }
      const r = schema.safeParse(row);
      if (!r.success) {
        rejectedRows++;
        for (const issue of zodIssues(r.error)) reject(i, issue.path, issue.message);
        continue;
      }
      const outside = outsideWindow(tsMillis(r.data.ts), t, oldest);
      if (outside) {
        rejectedRows++;
        reject(i, 'ts', outside);
        continue;
      }
      ok.push(r.data);
      okIndex.push(i);
      const w = warn?.(r.data);
      if (w) {
        warned.set(w.count, (warned.get(w.count) ?? 0) + 1);
        if (warnings.length < MAX_LISTED_ISSUES) warnings.push({ index: i, path: w.path, message: w.message });
      }
    }
    let accepted = ok.length;
    if (ok.length) {
      const refused = await write(ok.length, (idx) => append(idx.length === ok.length ? ok : idx.map((i) => ok[i]!)));
      for (const r of refused) reject(okIndex[r.index]!, '', r.message);
      rejectedRows += refused.length;
      accepted -= refused.length;
      if (refused.length) dropped.inc({ reason: 'store_refused' }, refused.length);
    }
    rowsTotal.inc({ kind, outcome: 'accepted' }, accepted);
    rowsTotal.inc({ kind, outcome: 'rejected' }, rejectedRows);
    if (rejectedRows) dropped.inc({ reason: 'invalid' }, rejectedRows);
    for (const [outcome, n] of warned) rowsTotal.inc({ kind, outcome }, n);
    rejected.sort((a, b) => a.index - b.index);
    return { accepted, rejected, ...(warnings.length ? { warnings } : {}) };
  }

  return {
    async start() {
      const t = now();
      for (const d of DIMENSIONS) {
        const values = await store.distinctValues(d, minTsMs(t), t + 600_000, options.cardinalityCap);
        limiter.seed(d, values);
      }
    },

    async stop(deadlineMs = 10_000) {
      stopping = true;
      const w = writing as Promise<void> | null;
      if (w) await Promise.race([w, new Promise((r) => setTimeout(r, deadlineMs).unref())]);
    },

    queueRows: () => queued,
    expectedWaitMs: () => cost.waitMs(queued),

    admit() {
      if (stopping) throw new InferlensError('unavailable', 'inferlens is shutting down; retry against another node or later', { retryAfterS: 5 });
      if (queued === 0) return;
      if (queued >= options.maxQueueRows || cost.waitMs(queued) > maxWaitMs) {
        dropped.inc({ reason: 'shed' });
        throw new InferlensError('resource_exhausted', `the store is behind (${queued} rows waiting, about ${(cost.waitMs(queued) / 1000).toFixed(1)} s): retry after the delay`, { retryAfterS: retryAfterS() });
      }
    },

    async writeFailure() {
      if (failure === undefined) return undefined;
      const t = monotonicNow();
      if (options.probeStorage && !probing && t - lastProbeMs >= PROBE_INTERVAL_MS) {
        lastProbeMs = t;
        probing = options.probeStorage().then(
          () => storageWorks(),
          () => undefined,
        );
        void probing.finally(() => (probing = undefined));
      }
      if (probing) await probing;
      return failure;
    },

    async writeEvents(rows: readonly unknown[], opts: WriteOptions = {}): Promise<IngestReply> {
      const t = now();
      const oldest = minTsMs(t);
      const rejected: RowIssue[] = [];
      const warnings: RowIssue[] = [];
      let rejectedRows = 0;
      let warnedRows = 0;
      const lines: string[] = [];
      const events: EventInput[] = [];
      /** The row index of each line. */
      const lineRow: number[] = [];
      const samples: SampleRow[] = [];
      for (let i = 0; i < rows.length; i++) {
        if (i > 0 && i % ROWS_PER_SLICE === 0) await yieldToLoop();
        const res = checkEvent(rows[i], t, oldest);
        if (!res.event) {
          rejectedRows++;
          for (const issue of res.issues) if (rejected.length < MAX_LISTED_ISSUES) rejected.push({ index: i, ...issue });
          continue;
        }
        if (res.unknown.length > 0) {
          warnedRows++;
          for (const path of res.unknown) if (warnings.length < MAX_LISTED_ISSUES) warnings.push({ index: i, path, message: 'unknown field, ignored' });
        }
        const ev = res.event;
        let canonical = res.canonical;
        for (const d of DIMENSIONS) {
          const v = ev[d];
          if (v == null) continue;
          if (!limiter.admit(d, v)) {
            overflow.inc({ dimension: d });
            canonical = false;
          }
        }
        // Capture: payloads go to the samples table (when the policy keeps them), never to events.
        const sample = capture.sample(ev, (d, v) => limiter.map(d, v));
        if (sample) {
          samples.push(sample);
          // Redacting a kept sample's texts costs up to ~30 ms each (redact.ts): a turn after each.
          await yieldToLoop();
        }
        const stored = withoutPayload(ev);
        if (stored !== ev) canonical = false;
        const serialised = canonical && opts.lines ? null : normalise(stored, limiter);
        lines.push(serialised ?? opts.lines![i]!);
        events.push(stored);
        lineRow.push(i);
      }
      let accepted = lines.length;
      if (lines.length > 0) {
        const eventsWritten = writeEventLines(lines, events);
        const [refused] = await Promise.all([eventsWritten, writeSamples(samples)]);
        for (const r of refused) if (rejected.length < MAX_LISTED_ISSUES) rejected.push({ index: lineRow[r.index]!, path: '', message: r.message });
        rejectedRows += refused.length;
        accepted -= refused.length;
        if (refused.length > 0) rejected.sort((a, b) => a.index - b.index);
        rowsTotal.inc({ kind: 'event', outcome: 'accepted' }, accepted);
        const stored = refused.length === 0 ? events : events.filter((_, i) => !refused.some((r) => r.index === i));
        for (let i = 0; i < stored.length; i += ROWS_PER_SLICE) {
          if (i > 0) await yieldToLoop();
          requestMetrics.observe(stored.slice(i, i + ROWS_PER_SLICE));
        }
      }
      rowsTotal.inc({ kind: 'event', outcome: 'rejected' }, rejectedRows);
      if (rejectedRows) dropped.inc({ reason: 'invalid' }, rejectedRows);
      const reply: IngestReply = { accepted, rejected };
      if (warnedRows > 0) reply.warnings = warnings;
      return reply;
    },

    writeResources(samples: readonly unknown[]) {
      // Stored, but nothing built in reads them: said in the reply, counted.
      return writeRows<ResourceSample>('resource', samples, ResourceSampleSchema, (ok) => store.appendResources(ok), (s) =>
        READ_METRICS.has(s.metric) ? undefined : { path: 'metric', message: `"${s.metric}" is stored, but no analysis or view reads it; the names read are ${READ_RESOURCE_METRICS.join(', ')}`, count: 'unknown_metric' },
      );
    },

    writeFeedback(rows: readonly unknown[]) {
      return writeRows<Feedback>('feedback', rows, FeedbackSchema, (ok) => store.appendFeedback(ok));
    },
  };
}

/**
 * The stored JSON form of a valid event: event fields only (unknown fields, which were not
 * validated, are dropped), nulls dropped, ts as epoch ms, capped dimensions.
 */
function normalise(ev: EventInput, limiter: CardinalityLimiter): string {
  const out: Record<string, unknown> = {};
  for (const k in ev) {
    const v = (ev as unknown as Record<string, unknown>)[k];
    if (v == null || !EVENT_FIELD_NAMES.has(k)) continue;
    out[k] = v;
  }
  out.ts = tsMillis(ev.ts);
  for (const d of DIMENSIONS) {
    const v = out[d];
    if (typeof v === 'string') out[d] = limiter.map(d as Dimension, v);
  }
  return JSON.stringify(out);
}
