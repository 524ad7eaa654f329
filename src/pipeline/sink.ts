/**
 * The seams between receivers (src/ingest) and the pipeline. Receivers decode their wire format
 * into plain rows and hand them over here; they never touch storage.
 *
 * Contract: a write resolves once the accepted rows are durable, with per-row rejects (partial
 * success). It throws an `InferlensError` with code `resource_exhausted` or `unavailable` (and a
 * `retryAfterS`) when the write path is full, so the receiver can answer 429/503 with Retry-After.
 */
import type { Feedback, IngestReply, ResourceSample, RowIssue } from '../schema/index.ts';

/** Where inference events go. Rows are unvalidated: the pipeline validates each one. */
export interface EventSink {
  writeEvents(rows: readonly unknown[], options?: WriteOptions): Promise<IngestReply>;
}

/**
 * Where resource samples (host, GPU, scraped engine metrics) go. The rows are validated by the
 * pipeline (a body decoded from JSON may hold anything: the type says what a good row is).
 */
export interface ResourceSink {
  /** `warnings`: stored rows whose metric no analysis or view reads (READ_RESOURCE_METRICS). */
  writeResources(samples: readonly ResourceSample[]): Promise<IngestReply>;
}

/** Where feedback and business events go; validated by the pipeline like resource samples. */
export interface FeedbackSink {
  writeFeedback(rows: readonly Feedback[]): Promise<{ accepted: number; rejected: RowIssue[] }>;
}

/** Early refusal: lets a receiver turn a request away before it reads and parses the body. */
export interface Admission {
  /**
   * Throws `resource_exhausted` (with `retryAfterS`) when a write arriving now would be refused
   * (the queue is full or its expected wait is past the bound), or `unavailable` when stopping.
   */
  admit(): void;
}

export interface WriteOptions {
  /**
   * The original JSON text of each row, when the body was NDJSON: rows that need no rewriting are
   * stored from this text without re-serialising them.
   */
  lines?: readonly string[];
}

/** All three, with early refusal. */
export type Sink = EventSink & ResourceSink & FeedbackSink & Admission;
