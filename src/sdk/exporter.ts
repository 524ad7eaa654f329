/**
 * The batching exporter: bounded buffers, flush by size and by interval, one HTTP request in flight,
 * retries with back-off, and a count for every row that does not make it.
 *
 * Invariants:
 * - `push*` is O(1) and synchronous: it never serialises, compresses or sends. A full batch
 *   schedules a send on the next turn of the event loop (`setImmediate`).
 * - Every row pushed ends in exactly one counter: `sent` or one `dropped` reason, or is still
 *   `buffered` / `inFlight` (rows of the batch being sent, including its back-off waits).
 * - Nothing here keeps the host process alive, except `shutdown()` until its deadline.
 * - Nothing here throws into the caller.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { RowIssue } from '../schema/index.ts';
import { backoffDelayMs } from './backoff.ts';
import type { ResolvedOptions } from './options.ts';
import { RingBuffer } from './ring-buffer.ts';
import type { SdkTimers } from './timers.ts';
import { unrefTimer } from './timers.ts';
import { postBatch } from './transport.ts';
import type { WarnOnce } from './warn-once.ts';

/** Why rows were dropped. Each is a counter in `ClientStats.dropped`. */
export type DropReason =
  /** The buffer was full (server slow or down); the oldest buffered row made room. */
  | 'buffer_full'
  /** The server refused the row (a 200 reply's `rejected`, a 400, 401, 403 …): retrying cannot help. */
  | 'rejected'
  /** The batch still failed after `maxRetries` retries. */
  | 'retries_exhausted'
  /** 413 for a single row: the row alone is over the server's body limit. */
  | 'too_large'
  /** Still buffered or in flight at the shutdown deadline, or recorded after shutdown. */
  | 'shutdown'
  /** The client has no usable endpoint. */
  | 'no_endpoint';

export const DROP_REASONS: readonly DropReason[] = ['buffer_full', 'rejected', 'retries_exhausted', 'too_large', 'shutdown', 'no_endpoint'];

/** Counters of the exporter, in rows. */
export interface ClientStats {
  /** Rows the server accepted. */
  sent: number;
  dropped: Record<DropReason, number>;
  /** HTTP requests retried (each retry of each batch counts once). */
  retries: number;
  /** Rows taken from the buffer and not yet settled (being sent or waiting to retry). */
  inFlight: number;
  /** Rows waiting in the buffers. */
  buffered: number;
}

export interface Exporter {
  pushEvent(row: object): void;
  pushFeedback(row: object): void;
  /** Counts rows the client refused before buffering them (e.g. invalid feedback). */
  drop(reason: DropReason, rows: number): void;
  flush(): Promise<void>;
  stats(): ClientStats;
  shutdown(timeoutMs: number): Promise<ClientStats>;
}

/** Bodies above this many bytes are gzipped (below it, compression costs more than it saves). */
export const GZIP_MIN_BYTES = 8 * 1024;

const gzipAsync = promisify(gzip);

interface Stream {
  name: 'events' | 'feedback';
  url: string;
  contentType: string;
  buffer: RingBuffer<object>;
  /** Joins JSON lines into a request body. */
  join(lines: readonly string[]): string;
}

type ExporterOptions = Pick<
  ResolvedOptions,
  | 'endpoint'
  | 'apiKey'
  | 'flushIntervalMs'
  | 'maxBatchSize'
  | 'maxBufferSize'
  | 'maxRetries'
  | 'initialBackoffMs'
  | 'maxBackoffMs'
  | 'timeoutMs'
  | 'timers'
  | 'warn'
>;

/** Resolves after `ms`, or at once when `signal` fires. The timer does not keep the process alive. */
function sleep(ms: number, signal: AbortSignal, timers: SdkTimers): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      timers.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = timers.setTimeout(done, ms);
    unrefTimer(timer);
    signal.addEventListener('abort', done, { once: true });
  });
}

export function createExporter(options: ExporterOptions): Exporter {
  return new BatchExporter(options);
}

class BatchExporter implements Exporter {
  private readonly opts: ExporterOptions;
  private readonly warn: WarnOnce;
  private readonly events: Stream;
  private readonly feedback: Stream;
  private readonly dropped: Record<DropReason, number> = {
    buffer_full: 0,
    rejected: 0,
    retries_exhausted: 0,
    too_large: 0,
    shutdown: 0,
    no_endpoint: 0,
  };
  private sent = 0;
  private retries = 0;
  private inFlight = 0;
  private running: Promise<void> | undefined;
  private scheduled = false;
  private closed = false;
  private shutdownPromise: Promise<ClientStats> | undefined;
  /** Fires at the shutdown deadline: aborts the request in flight and any back-off wait. */
  private readonly abort = new AbortController();
  private readonly interval: ReturnType<typeof setInterval> | undefined;

  constructor(opts: ExporterOptions) {
    this.opts = opts;
    this.warn = opts.warn;
    const base = opts.endpoint ?? '';
    this.events = {
      name: 'events',
      url: `${base}/v1/events`,
      contentType: 'application/x-ndjson',
      buffer: new RingBuffer(opts.maxBufferSize),
      join: (lines) => lines.join('\n'),
    };
    this.feedback = {
      name: 'feedback',
      url: `${base}/v1/feedback`,
      contentType: 'application/json',
      buffer: new RingBuffer(opts.maxBufferSize),
      join: (lines) => `[${lines.join(',')}]`,
    };
    if (opts.endpoint !== undefined) {
      this.interval = setInterval(() => {
        if (this.running === undefined && this.bufferedRows() > 0) void this.run('all');
      }, opts.flushIntervalMs);
      this.interval.unref();
    }
  }

  pushEvent(row: object): void {
    this.push(this.events, row);
  }

  pushFeedback(row: object): void {
    this.push(this.feedback, row);
  }

  private push(stream: Stream, row: object): void {
    if (this.closed) {
      this.dropped.shutdown++;
      this.warn('closed', 'a row was recorded after shutdown(); it is dropped (counted as dropped.shutdown)');
      return;
    }
    if (this.opts.endpoint === undefined) {
      this.dropped.no_endpoint++;
      return;
    }
    if (stream.buffer.push(row)) {
      this.dropped.buffer_full++;
      this.warn(
        'buffer_full',
        `the send buffer is full (${this.opts.maxBufferSize} rows): the server is slow or down; dropping the oldest rows (counted as dropped.buffer_full)`,
      );
    }
    if (stream.buffer.size >= this.opts.maxBatchSize && !this.scheduled && this.running === undefined) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.run('full');
      }).unref();
    }
  }

  drop(reason: DropReason, rows: number): void {
    this.dropped[reason] += rows;
  }

  private bufferedRows(): number {
    return this.events.buffer.size + this.feedback.buffer.size;
  }

  /** Starts a drain unless one runs; resolves when the running drain ends. */
  private run(mode: 'full' | 'all'): Promise<void> {
    if (this.running !== undefined) return this.running;
    const p = this.drain(mode)
      .catch((e: unknown) => this.warn('internal', 'internal error in the exporter (please report it)', { error: String(e) }))
      .finally(() => {
        this.running = undefined;
      });
    this.running = p;
    return p;
  }

  /**
   * Sends batches one at a time. `full`: while a buffer holds a whole batch (size trigger).
   * `all`: the rows buffered when it started (interval, flush), so a steady producer cannot keep a
   * flush() waiting forever.
   */
  private async drain(mode: 'full' | 'all'): Promise<void> {
    const max = this.opts.maxBatchSize;
    let budget = mode === 'all' ? this.bufferedRows() : Infinity;
    while (budget > 0 && !this.abort.signal.aborted) {
      const need = mode === 'all' ? 1 : max;
      const stream = this.events.buffer.size >= need ? this.events : this.feedback.buffer.size >= need ? this.feedback : undefined;
      if (stream === undefined) return;
      const rows = stream.buffer.take(max);
      budget -= rows.length;
      this.inFlight += rows.length;
      try {
        await this.sendLines(stream, this.encode(stream, rows));
      } finally {
        this.inFlight -= rows.length;
      }
    }
  }

  /** One JSON line per row; a row that cannot be serialised (a cycle, a BigInt) is dropped as rejected. */
  private encode(stream: Stream, rows: readonly object[]): string[] {
    const lines: string[] = [];
    for (const row of rows) {
      try {
        lines.push(JSON.stringify(row));
      } catch (e) {
        this.dropped.rejected++;
        this.warn(`encode:${stream.name}`, `a ${stream.name} row could not be serialised to JSON and was dropped`, { error: String(e) });
      }
    }
    return lines;
  }

  /** Sends one batch until it settles: sent, rejected, split on 413, retried, or dropped. */
  private async sendLines(stream: Stream, lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    const text = stream.join(lines);
    let body: string | Uint8Array<ArrayBuffer> = text;
    let gzipped = false;
    if (Buffer.byteLength(text) > GZIP_MIN_BYTES) {
      try {
        // zlib output is backed by a plain ArrayBuffer (never a SharedArrayBuffer).
        body = (await gzipAsync(text)) as Uint8Array<ArrayBuffer>;
        gzipped = true;
      } catch {
        // Send it uncompressed.
      }
    }
    const signal = this.abort.signal;
    for (let attempt = 0; ; attempt++) {
      const outcome = await postBatch({
        url: stream.url,
        body,
        contentType: stream.contentType,
        gzip: gzipped,
        apiKey: this.opts.apiKey,
        timeoutMs: this.opts.timeoutMs,
        timers: this.opts.timers,
        signal,
      });
      switch (outcome.kind) {
        case 'ok':
          this.countReply(stream, lines.length, outcome.reply);
          return;
        case 'permanent':
          this.dropped.rejected += lines.length;
          this.warn(
            `status:${stream.name}:${outcome.status}`,
            `the server refused a ${stream.name} batch with HTTP ${outcome.status}; its rows are dropped (counted as dropped.rejected)`,
            { status: outcome.status, body: outcome.message },
          );
          return;
        case 'too_large': {
          if (lines.length === 1) {
            this.dropped.too_large++;
            this.warn(
              `too_large:${stream.name}`,
              `a single ${stream.name} row is larger than the server accepts (HTTP 413); dropped (counted as dropped.too_large)`,
            );
            return;
          }
          const mid = lines.length >>> 1;
          await this.sendLines(stream, lines.slice(0, mid));
          await this.sendLines(stream, lines.slice(mid));
          return;
        }
        case 'aborted':
          this.dropped.shutdown += lines.length;
          return;
        case 'retry':
          if (attempt >= this.opts.maxRetries) {
            this.dropped.retries_exhausted += lines.length;
            this.warn(
              `retries_exhausted:${stream.name}`,
              `a ${stream.name} batch failed ${attempt + 1} times (last: ${outcome.reason}); its rows are dropped (counted as dropped.retries_exhausted)`,
            );
            return;
          }
          this.retries++;
          await sleep(outcome.retryAfterMs ?? backoffDelayMs(attempt, this.opts.initialBackoffMs, this.opts.maxBackoffMs), signal, this.opts.timers);
          if (signal.aborted) {
            this.dropped.shutdown += lines.length;
            return;
          }
      }
    }
  }

  private countReply(stream: Stream, rows: number, reply: { accepted: number; rejected: RowIssue[] } | undefined): void {
    if (reply === undefined) {
      this.sent += rows;
      this.warn(
        `reply:${stream.name}`,
        `the server answered 2xx to a ${stream.name} batch with a body that is not { accepted, rejected }; counting its rows as sent`,
      );
      return;
    }
    this.sent += reply.accepted;
    this.dropped.rejected += reply.rejected.length;
    for (const issue of reply.rejected) {
      this.warn(
        `rejected:${stream.name}:${issue.path}`,
        `the server rejected ${stream.name} rows: ${issue.path}: ${issue.message} (counted as dropped.rejected)`,
      );
    }
  }

  async flush(): Promise<void> {
    if (this.opts.endpoint === undefined) return;
    while (this.running !== undefined) await this.running;
    await this.run('all');
  }

  stats(): ClientStats {
    return { sent: this.sent, dropped: { ...this.dropped }, retries: this.retries, inFlight: this.inFlight, buffered: this.bufferedRows() };
  }

  shutdown(timeoutMs: number): Promise<ClientStats> {
    if (this.shutdownPromise !== undefined) return this.shutdownPromise;
    this.closed = true;
    if (this.interval !== undefined) clearInterval(this.interval);
    this.shutdownPromise = (async () => {
      // Referenced on purpose: `await client.shutdown()` at the end of main keeps the process alive
      // until the rows are sent or the deadline passes, whichever comes first.
      const deadline = this.opts.timers.setTimeout(() => this.abort.abort(), timeoutMs);
      try {
        while (!this.abort.signal.aborted && (this.running !== undefined || this.bufferedRows() > 0)) await this.flush();
      } finally {
        this.opts.timers.clearTimeout(deadline);
      }
      this.abort.abort();
      const left = this.events.buffer.clear() + this.feedback.buffer.clear();
      if (left > 0) {
        this.dropped.shutdown += left;
        this.warn('shutdown', `shutdown deadline (${timeoutMs} ms) passed with ${left} rows unsent; dropped (counted as dropped.shutdown)`);
      }
      return this.stats();
    })();
    return this.shutdownPromise;
  }
}
