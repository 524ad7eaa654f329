/**
 * validate → normalise → limit cardinality → batch → store.
 *
 * Every row is checked against the event field table (`checkEvent`), in slices with a turn of the
 * event loop between them (slices.ts). Valid rows go to the single store writer (group-commit.ts),
 * which group-commits the rows of many requests into one store transaction, bounds its queue by
 * rows and expected wait, and isolates rows the store refuses; a write resolves only after its rows
 * are durable.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import {
  DIMENSIONS,
  EVENT_FIELD_NAMES,
  FeedbackSchema,
  READ_RESOURCE_METRICS,
  ResourceSampleSchema,
  checkEvent,
  outsideWindow,
  tsMillis,
  zodIssues,
} from '../schema/index.ts';
import type { Dimension, EventInput, Feedback, IngestReply, ResourceSample, RowIssue } from '../schema/index.ts';
import type { Store } from '../store/index.ts';
import type { Sink, WriteOptions } from './sink.ts';
import { CardinalityLimiter } from './cardinality.ts';
import { createRequestMetrics } from './request-metrics.ts';
import { createCapturePolicy, withoutPayload } from './capture.ts';
import type { CapturePolicy } from './capture.ts';
import type { SampleRow } from '../store/index.ts';
import { DEFAULT_MAX_QUEUE_WAIT_MS, createGroupCommit } from './group-commit.ts';
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

const READ_METRICS: ReadonlySet<string> = new Set(READ_RESOURCE_METRICS);
/** Most rejected / warning entries listed in one reply (the counts are still exact). */
const MAX_LISTED_ISSUES = 1000;

export function createPipeline(options: PipelineOptions): Pipeline {
  const { store, logger, registry } = options;
  const now = options.now ?? Date.now;
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const limiter = new CardinalityLimiter(options.cardinalityCap);

  const rowsTotal = new Counter({
    name: 'inferlens_ingest_rows_total',
    help: 'Rows received, by kind and outcome.',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  const dropped = new Counter({ name: 'inferlens_ingest_dropped_total', help: 'Rows not stored, by reason.', labelNames: ['reason'], registers: [registry] });
  const overflow = new Counter({
    name: 'inferlens_pipeline_cardinality_overflow_total',
    help: 'Dimension values replaced by __other__ because the cap was reached.',
    labelNames: ['dimension'],
    registers: [registry],
  });
  const writer = createGroupCommit({
    store,
    logger,
    registry,
    dropped,
    monotonicNow,
    maxQueueRows: options.maxQueueRows,
    maxWaitMs: options.maxQueueWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_MS,
    maxBatchRows: options.maxBatchRows,
    reserialise: (e) => normalise(e, limiter),
    ...(options.probeStorage ? { probeStorage: options.probeStorage } : {}),
  });
  const { write } = writer;

  const requestMetrics = createRequestMetrics(registry);
  const capture = options.capture ?? createCapturePolicy({ registry, now });
  const samplesRefused = new Counter({
    name: 'inferlens_capture_write_dropped_total',
    help: 'Kept samples not stored because the write queue was full or the write failed.',
    registers: [registry],
  });

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

    stop: (deadlineMs = 10_000) => writer.stop(deadlineMs),
    queueRows: () => writer.queueRows(),
    expectedWaitMs: () => writer.expectedWaitMs(),
    admit: () => writer.admit(),
    writeFailure: () => writer.writeFailure(),

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
        const eventsWritten = writer.writeEvents(lines, events);
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
      return writeRows<ResourceSample>(
        'resource',
        samples,
        ResourceSampleSchema,
        (ok) => store.appendResources(ok),
        (s) =>
          READ_METRICS.has(s.metric)
            ? undefined
            : {
                path: 'metric',
                message: `"${s.metric}" is stored, but no analysis or view reads it; the names read are ${READ_RESOURCE_METRICS.join(', ')}`,
                count: 'unknown_metric',
              },
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
