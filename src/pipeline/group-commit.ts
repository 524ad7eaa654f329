/**
 * The single store writer: a queue of store writes run one at a time, bounded by rows and by
 * expected wait, with the events of many requests group-committed into one store transaction.
 *
 * Bounded: a write is refused with `resource_exhausted` (HTTP 429 + Retry-After) when the rows
 * queued ahead of it would take longer than `maxWaitMs` to write (write-cost.ts), or exceed
 * `maxQueueRows`. So an admitted write waits at most about `maxWaitMs` plus the writing of its
 * own rows. `admit()` answers the same question before a request's body is even read.
 *
 * Group commit: events of requests that arrive while a write is running gather in one open batch,
 * written in a single transaction when the writer reaches it. One request's rows never fail
 * another's: when the store refuses a group commit because of the rows themselves
 * (`invalid_argument`), each request is written on its own, and within a request the refused rows
 * are isolated (isolate.ts) and rejected one by one while the rest is stored. A storage failure
 * (disk full, I/O) fails the requests of that transaction with a retryable error, and
 * `writeFailure()` reports it (for `/readyz`) until a write succeeds or the storage probe does.
 */
import type { Logger } from 'pino';
import type { Counter, Registry } from 'prom-client';
import { Gauge, Histogram } from 'prom-client';
import { InferlensError, tsMillis } from '../schema/index.ts';
import type { EventInput } from '../schema/index.ts';
import type { AppendHint, Store } from '../store/index.ts';
import { appendIsolating, isRowRefusal } from './isolate.ts';
import type { RefusedRow } from './isolate.ts';
import { WriteCost } from './write-cost.ts';

/** The default bound on a queued row's expected wait: 3 s, well under the SDK's 10 s timeout. */
export const DEFAULT_MAX_QUEUE_WAIT_MS = 3000;
/** How often a failing storage is probed, at most. */
const PROBE_INTERVAL_MS = 1000;

export interface GroupCommitOptions {
  store: Store;
  logger: Logger;
  registry: Registry;
  /** `inferlens_ingest_dropped_total{reason}`, shared with the pipeline's validation. */
  dropped: Counter<'reason'>;
  /** Injected monotonic clock (ms) for timing store writes and queue waits. */
  monotonicNow: () => number;
  /** Most rows waiting for the writer; beyond it writes are refused with 429. */
  maxQueueRows: number;
  /** Longest expected wait of a queued row, in ms: beyond it writes are refused with 429. */
  maxWaitMs: number;
  /** Most rows in one store transaction. */
  maxBatchRows: number;
  /** The stored JSON line of a valid event, re-serialised (for text the store's reader refuses as sent). */
  reserialise: (e: EventInput) => string;
  /** See PipelineOptions.probeStorage. */
  probeStorage?: () => Promise<void>;
}

export interface GroupCommit {
  /** Queues events (their stored lines and parsed rows) into the open group commit; resolves when durable, with the rows the store refused. */
  writeEvents(lines: string[], events: EventInput[]): Promise<RefusedRow[]>;
  /** One store write as its own job; a refused row is isolated (rejected alone), a storage failure is retryable. */
  write(rows: number, run: (indexes: readonly number[]) => Promise<void>): Promise<RefusedRow[]>;
  /** Throws when a write arriving now would be refused (see Admission). */
  admit(): void;
  /** Stops taking writes and waits for queued ones, up to the deadline. */
  stop(deadlineMs: number): Promise<void>;
  queueRows(): number;
  expectedWaitMs(): number;
  writeFailure(): Promise<string | undefined>;
}

interface Job {
  rows: number;
  run: () => Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** One request's rows inside a group commit: settles with the rows the store refused (part indexes). */
interface Part {
  lines: string[];
  events: EventInput[];
  done: (refused: RefusedRow[]) => void;
  fail: (e: unknown) => void;
}

/**
 * `deadlineMs` is the earliest time by which a request in the batch was promised its rows
 * (admission time + maxWaitMs + the writing of its own rows): a request whose rows would push the
 * batch past it starts a new batch instead.
 */
interface EventBatch {
  parts: Part[];
  rows: number;
  /** What the store is told about the batch's rows: their time range, whether a request_id repeats. */
  hint: BatchHint;
  deadlineMs: number;
}

export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  const { store, logger, registry, dropped, monotonicNow, maxWaitMs } = options;
  const cost = new WriteCost();

  const queueGauge = new Gauge({ name: 'inferlens_pipeline_queue_rows', help: 'Rows waiting for the store writer.', registers: [registry] });
  const waitGauge: Gauge = new Gauge({
    name: 'inferlens_pipeline_queue_expected_wait_seconds',
    help: 'Expected time until the rows queued now are durable.',
    registers: [registry],
    collect: () => waitGauge.set(cost.waitMs(queued) / 1000),
  });
  const failingGauge = new Gauge({
    name: 'inferlens_store_write_failing',
    help: '1 while store writes fail for a storage reason (disk full, I/O), else 0.',
    registers: [registry],
  });
  const writeSeconds = new Histogram({
    name: 'inferlens_store_write_duration_seconds',
    help: 'Duration of one store transaction.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const batchRows = new Histogram({
    name: 'inferlens_store_write_batch_rows',
    help: 'Rows per store transaction.',
    buckets: [1, 10, 100, 1000, 5000, 20000, 50000, 100000],
    registers: [registry],
  });

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
    const err =
      e instanceof InferlensError ? e : new InferlensError('unavailable', 'the store could not write this batch; retry later', { cause: e, retryAfterS: 2 });
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
      throw new InferlensError('resource_exhausted', `write queue is full (${queued} rows waiting, limit ${options.maxQueueRows}); retry after the delay`, {
        retryAfterS: retryAfterS(),
      });
    }
    const aheadMs = cost.waitMs(queued);
    if (aheadMs > maxWaitMs) {
      dropped.inc({ reason: 'queue_wait' }, rows);
      throw new InferlensError(
        'resource_exhausted',
        `the store is behind: these rows would wait about ${(aheadMs / 1000).toFixed(1)} s (limit ${maxWaitMs / 1000} s); retry after the delay`,
        { retryAfterS: retryAfterS() },
      );
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

  function writeEvents(lines: string[], events: EventInput[]): Promise<RefusedRow[]> {
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
      if (fresh) open = batch = { parts: [], rows: 0, hint: new BatchHint(), deadlineMs: Infinity };
      const b = batch!;
      b.parts.push({ lines, events, done, fail });
      b.rows += lines.length;
      b.deadlineMs = Math.min(b.deadlineMs, deadlineMs);
      b.hint.add(events);
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

  async function writeBatch(b: EventBatch): Promise<void> {
    try {
      await store.appendEvents(b.parts.length === 1 ? b.parts[0]!.lines : b.parts.flatMap((p) => p.lines), b.hint.value());
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
      await store.appendEvents(p.lines, new BatchHint().add(p.events).value());
      return [];
    } catch (e) {
      if (!isRowRefusal(e)) throw e;
    }
    const lines = p.events.map(options.reserialise);
    const refused = await appendIsolating(lines.length, (idx) =>
      store
        .appendEvents(
          idx.map((i) => lines[i]!),
          new BatchHint().add(idx.map((i) => p.events[i]!)).value(),
        )
        .then(() => undefined),
    );
    if (refused.length > 0) {
      dropped.inc({ reason: 'store_refused' }, refused.length);
      logger.warn({ refused: refused.length, first: refused[0]?.message }, 'the store refused rows that passed validation (they were rejected alone)');
    }
    return refused;
  }

  return {
    writeEvents,
    write,

    admit() {
      if (stopping) throw new InferlensError('unavailable', 'inferlens is shutting down; retry against another node or later', { retryAfterS: 5 });
      if (queued === 0) return;
      if (queued >= options.maxQueueRows || cost.waitMs(queued) > maxWaitMs) {
        dropped.inc({ reason: 'shed' });
        throw new InferlensError(
          'resource_exhausted',
          `the store is behind (${queued} rows waiting, about ${(cost.waitMs(queued) / 1000).toFixed(1)} s): retry after the delay`,
          { retryAfterS: retryAfterS() },
        );
      }
    },

    async stop(deadlineMs) {
      stopping = true;
      const w = writing as Promise<void> | null;
      if (w) await Promise.race([w, new Promise((r) => setTimeout(r, deadlineMs).unref())]);
    },

    queueRows: () => queued,
    expectedWaitMs: () => cost.waitMs(queued),

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
  };
}

/** The AppendHint of a batch, built as its requests join. */
class BatchHint {
  private minTsMs = Infinity;
  private maxTsMs = -Infinity;
  private readonly ids = new Set<string>();
  private repeated = false;

  add(events: readonly EventInput[]): this {
    for (const e of events) {
      const ts = tsMillis(e.ts);
      if (ts < this.minTsMs) this.minTsMs = ts;
      if (ts > this.maxTsMs) this.maxTsMs = ts;
      const id = e.request_id;
      if (id == null || this.repeated) continue;
      if (this.ids.has(id)) this.repeated = true;
      else this.ids.add(id);
    }
    return this;
  }

  value(): AppendHint {
    return { minTsMs: this.minTsMs, maxTsMs: this.maxTsMs, distinctRequestIds: !this.repeated };
  }
}
