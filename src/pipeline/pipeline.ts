/**
 * validate → normalise → limit cardinality → batch → store.
 *
 * Every row is checked against the event field table (`checkEvent`). Valid rows are queued for a
 * single writer that group-commits the rows of many requests into one store transaction; a write
 * resolves only after its rows are durable. The queue is bounded in rows: when it is full the write
 * fails fast with `resource_exhausted` (HTTP 429 + Retry-After) instead of growing memory.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Counter, Gauge, Histogram } from 'prom-client';
import { DIMENSIONS, FeedbackSchema, InferlensError, READ_RESOURCE_METRICS, ResourceSampleSchema, checkEvent, tsMillis, zodIssues } from '../schema/index.ts';
import type { Dimension, EventInput, Feedback, IngestReply, ResourceSample, RowIssue } from '../schema/index.ts';
import type { Store } from '../store/index.ts';
import type { Sink, WriteOptions } from './sink.ts';
import { CardinalityLimiter } from './cardinality.ts';
import { createRequestMetrics } from './request-metrics.ts';
import { createCapturePolicy, withoutPayload } from './capture.ts';
import type { CapturePolicy } from './capture.ts';
import type { SampleRow } from '../store/index.ts';

export interface PipelineOptions {
  store: Store;
  logger: Logger;
  registry: Registry;
  /** Injected clock (epoch ms). */
  now?: () => number;
  /** Oldest accepted event, in days before now (the retention window). */
  retentionDays: number;
  /** Most distinct values kept per dimension; the rest become `__other__`. */
  cardinalityCap: number;
  /** Most rows waiting for the writer; beyond it writes are refused with 429. */
  maxQueueRows: number;
  /** Most rows in one store transaction. */
  maxBatchRows: number;
  /** Which payloads are kept as samples (default: the capture policy's defaults). */
  capture?: CapturePolicy;
}

export interface Pipeline extends Sink {
  /** Loads the known dimension values so the cardinality cap survives restarts. */
  start(): Promise<void>;
  /** Stops taking writes and waits for queued ones, up to the deadline. */
  stop(deadlineMs?: number): Promise<void>;
  /** Rows waiting for the writer. */
  queueRows(): number;
}

interface Job {
  rows: number;
  run: () => Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Most rejected / warning entries listed in one reply (the counts are still exact). */
const READ_METRICS: ReadonlySet<string> = new Set(READ_RESOURCE_METRICS);
const MAX_LISTED_ISSUES = 1000;

export function createPipeline(options: PipelineOptions): Pipeline {
  const { store, logger, registry } = options;
  const now = options.now ?? Date.now;
  const limiter = new CardinalityLimiter(options.cardinalityCap);

  const rowsTotal = new Counter({ name: 'inferlens_ingest_rows_total', help: 'Rows received, by kind and outcome.', labelNames: ['kind', 'outcome'], registers: [registry] });
  const dropped = new Counter({ name: 'inferlens_ingest_dropped_total', help: 'Rows not stored, by reason.', labelNames: ['reason'], registers: [registry] });
  const overflow = new Counter({ name: 'inferlens_pipeline_cardinality_overflow_total', help: 'Dimension values replaced by __other__ because the cap was reached.', labelNames: ['dimension'], registers: [registry] });
  const queueGauge = new Gauge({ name: 'inferlens_pipeline_queue_rows', help: 'Rows waiting for the store writer.', registers: [registry] });
  const writeSeconds = new Histogram({ name: 'inferlens_store_write_duration_seconds', help: 'Duration of one store transaction.', buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [registry] });
  const batchRows = new Histogram({ name: 'inferlens_store_write_batch_rows', help: 'Rows per store transaction.', buckets: [1, 10, 100, 1000, 5000, 20000, 50000, 100000], registers: [registry] });

  const requestMetrics = createRequestMetrics(registry);
  const capture = options.capture ?? createCapturePolicy({ registry, now });
  const samplesRefused = new Counter({ name: 'inferlens_capture_write_dropped_total', help: 'Kept samples not stored because the write queue was full or the write failed.', registers: [registry] });

  const queue: Job[] = [];
  let queued = 0;
  let writing: Promise<void> | null = null;
  let stopping = false;

  function refuseIfFull(rows: number): void {
    if (stopping) throw new InferlensError('unavailable', 'inferlens is shutting down; retry against another node or later', { retryAfterS: 5 });
    if (queued > 0 && queued + rows > options.maxQueueRows) {
      dropped.inc({ reason: 'queue_full' }, rows);
      throw new InferlensError('resource_exhausted', `write queue is full (${queued} rows waiting, limit ${options.maxQueueRows}); retry after the delay`, { retryAfterS: 1 });
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
      const t0 = performance.now();
      try {
        await job.run();
        job.resolve();
      } catch (e) {
        logger.error({ err: e }, 'store write failed');
        job.reject(e instanceof InferlensError ? e : new InferlensError('unavailable', 'the store could not write this batch; retry later', { cause: e, retryAfterS: 2 }));
      }
      writeSeconds.observe((performance.now() - t0) / 1000);
      batchRows.observe(job.rows);
      addQueued(-job.rows);
    }
    writing = null;
  }

  function write(rows: number, run: () => Promise<void>): Promise<void> {
    refuseIfFull(rows);
    addQueued(rows);
    return new Promise<void>((resolve, reject) => enqueue({ rows, run, resolve, reject }));
  }

  /**
   * Group commit: events of requests that arrive while a write is running gather in one open
   * batch (up to maxBatchRows), written in a single transaction when the writer reaches it.
   */
  interface EventBatch {
    lines: string[];
    events: EventInput[];
    minTsMs: number;
    maxTsMs: number;
    waiters: { resolve: () => void; reject: (e: unknown) => void }[];
  }
  let open: EventBatch | null = null;

  function writeEventLines(lines: string[], events: EventInput[]): Promise<void> {
    refuseIfFull(lines.length);
    addQueued(lines.length);
    return new Promise<void>((resolve, reject) => {
      let batch = open;
      const fresh = !batch || batch.lines.length + lines.length > options.maxBatchRows;
      if (fresh) open = batch = { lines: [], events: [], minTsMs: Infinity, maxTsMs: -Infinity, waiters: [] };
      for (const l of lines) batch!.lines.push(l);
      for (const e of events) {
        batch!.events.push(e);
        const t = tsMillis(e.ts);
        if (t < batch!.minTsMs) batch!.minTsMs = t;
        if (t > batch!.maxTsMs) batch!.maxTsMs = t;
      }
      batch!.waiters.push({ resolve, reject });
      if (fresh) {
        const b = batch!;
        const job: Job = {
          rows: 0,
          run: async () => {
            if (open === b) open = null;
            job.rows = b.lines.length;
            await writeBatch(b);
          },
          resolve: () => undefined,
          reject: () => undefined,
        };
        enqueue(job);
      }
    });
  }

  async function writeBatch(b: EventBatch) {
    try {
      try {
        await store.appendEvents(b.lines, { minTsMs: b.minTsMs, maxTsMs: b.maxTsMs });
      } catch (e) {
        // Original text that the store's reader refuses (e.g. a duplicate key that JSON.parse
        // tolerated): store the re-serialised rows instead.
        logger.warn({ err: e }, 'store refused original lines; retrying with re-serialised rows');
        await store.appendEvents(b.events.map((e) => normalise(e, limiter)), { minTsMs: b.minTsMs, maxTsMs: b.maxTsMs });
      }
      for (const w of b.waiters) w.resolve();
    } catch (e) {
      const err = e instanceof InferlensError ? e : new InferlensError('unavailable', 'the store could not write this batch; retry later', { cause: e, retryAfterS: 2 });
      for (const w of b.waiters) w.reject(err);
      throw err;
    }
  }

  /** Queues kept samples behind the events; a refused or failed sample write is counted, never fails the request. */
  async function writeSamples(samples: SampleRow[]): Promise<void> {
    if (samples.length === 0) return;
    try {
      await write(samples.length, () => store.appendSamples(samples));
    } catch (e) {
      samplesRefused.inc(samples.length);
      logger.warn({ err: e, samples: samples.length }, 'captured samples not stored');
    }
  }

  function minTsMs(t: number): number {
    return t - options.retentionDays * 86_400_000;
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

    async writeEvents(rows: readonly unknown[], opts: WriteOptions = {}): Promise<IngestReply> {
      const t = now();
      const oldest = minTsMs(t);
      const rejected: RowIssue[] = [];
      const warnings: RowIssue[] = [];
      let rejectedRows = 0;
      let warnedRows = 0;
      const lines: string[] = [];
      const events: EventInput[] = [];
      const samples: SampleRow[] = [];
      for (let i = 0; i < rows.length; i++) {
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
        if (sample) samples.push(sample);
        const stored = withoutPayload(ev);
        if (stored !== ev) canonical = false;
        const serialised = canonical && opts.lines ? null : normalise(stored, limiter);
        lines.push(serialised ?? opts.lines![i]!);
        events.push(stored);
      }
      rowsTotal.inc({ kind: 'event', outcome: 'rejected' }, rejectedRows);
      if (rejectedRows) dropped.inc({ reason: 'invalid' }, rejectedRows);
      if (lines.length > 0) {
        const eventsWritten = writeEventLines(lines, events);
        await Promise.all([eventsWritten, writeSamples(samples)]);
        rowsTotal.inc({ kind: 'event', outcome: 'accepted' }, lines.length);
        requestMetrics.observe(events);
      }
      const reply: IngestReply = { accepted: lines.length, rejected };
      if (warnedRows > 0) reply.warnings = warnings;
      return reply;
    },

    async writeResources(samples: readonly ResourceSample[]) {
      const ok: ResourceSample[] = [];
      const rejected: RowIssue[] = [];
      // Stored, but nothing built in reads them: said in the reply, counted.
      const warnings: RowIssue[] = [];
      let unknown = 0;
      samples.forEach((s, i) => {
        const r = ResourceSampleSchema.safeParse(s);
        if (!r.success) {
          for (const issue of zodIssues(r.error)) if (rejected.length < MAX_LISTED_ISSUES) rejected.push({ index: i, ...issue });
          return;
        }
        ok.push(r.data);
        if (READ_METRICS.has(r.data.metric)) return;
        unknown++;
        if (warnings.length < MAX_LISTED_ISSUES) warnings.push({ index: i, path: 'metric', message: `"${r.data.metric}" is stored, but no analysis or view reads it; the names read are ${READ_RESOURCE_METRICS.join(', ')}` });
      });
      if (ok.length) await write(ok.length, () => store.appendResources(ok));
      rowsTotal.inc({ kind: 'resource', outcome: 'accepted' }, ok.length);
      rowsTotal.inc({ kind: 'resource', outcome: 'rejected' }, samples.length - ok.length);
      if (unknown) rowsTotal.inc({ kind: 'resource', outcome: 'unknown_metric' }, unknown);
      return { accepted: ok.length, rejected, ...(warnings.length ? { warnings } : {}) };
    },

    async writeFeedback(rows: readonly Feedback[]) {
      const ok: Feedback[] = [];
      const rejected: RowIssue[] = [];
      rows.forEach((f, i) => {
        const r = FeedbackSchema.safeParse(f);
        if (r.success) ok.push(r.data);
        else for (const issue of zodIssues(r.error)) if (rejected.length < MAX_LISTED_ISSUES) rejected.push({ index: i, ...issue });
      });
      if (ok.length) await write(ok.length, () => store.appendFeedback(ok));
      rowsTotal.inc({ kind: 'feedback', outcome: 'accepted' }, ok.length);
      rowsTotal.inc({ kind: 'feedback', outcome: 'rejected' }, rows.length - ok.length);
      return { accepted: ok.length, rejected };
    },
  };
}

/** The stored JSON form of a valid event: nulls dropped, ts as epoch ms, capped dimensions. */
function normalise(ev: EventInput, limiter: CardinalityLimiter): string {
  const out: Record<string, unknown> = {};
  for (const k in ev) {
    const v = (ev as unknown as Record<string, unknown>)[k];
    if (v == null) continue;
    out[k] = v;
  }
  out.ts = tsMillis(ev.ts);
  for (const d of DIMENSIONS) {
    const v = out[d];
    if (typeof v === 'string') out[d] = limiter.map(d as Dimension, v);
  }
  return JSON.stringify(out);
}
