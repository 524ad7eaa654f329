/** The pipeline: validate → normalise → limit cardinality → batch → store. */
export type { EventSink, ResourceSink, FeedbackSink, Admission, Sink, WriteOptions } from './sink.ts';
/** Builds the pipeline (a Sink) in front of a Store. */
export { createPipeline } from './pipeline.ts';
export type { Pipeline, PipelineOptions } from './pipeline.ts';
/** The value that replaces a dimension value beyond the cardinality cap. */
export { OVERFLOW_VALUE } from './cardinality.ts';
/** Periodic deletion of data older than the retention window. */
export { createRetention } from './retention.ts';
export type { Retention, RetentionOptions } from './retention.ts';
/** Keeps the store's per-minute rollup up to date (closed minutes, on an interval). */
export { createRollupMaintainer } from './rollup.ts';
export type { RollupMaintainer, RollupMaintainerOptions } from './rollup.ts';
/** The capture policy: which payloads are kept as samples (redacted, weighted, bounded), and its config schema. */
export { createCapturePolicy, CapturePolicySchema } from './capture.ts';
export type { CapturePolicy, CapturePolicyInput, CapturePolicyOptions } from './capture.ts';
/** Work on big inputs in slices with a turn of the event loop between them. */
export { yieldToLoop, ROWS_PER_SLICE, CHARS_PER_SLICE } from './slices.ts';
/** PII redaction of captured text. */
export { redact } from './redact.ts';
