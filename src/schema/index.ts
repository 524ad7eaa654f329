/** The schema folder: the contracts every other folder shares. Types are inferred from zod schemas. */
export { InferlensError, isInferlensError, ERROR_CODES } from './errors.ts';
export type { ErrorCode, FieldIssue, InferlensErrorOptions } from './errors.ts';
export {
  DEFAULT_LOW_CONFIDENCE,
  STATUSES,
  ERROR_TYPES,
  DIMENSIONS,
  STAGES,
  LATENCY_FIELDS,
  NUMERIC_FIELDS,
  EVENT_FIELDS,
  EVENT_FIELD_NAMES,
  EventInputSchema,
  MAX_LATENCY_MS,
  checkEvent,
  expectedFor,
  valueOk,
  zodIssues,
  tsMillis,
} from './event.ts';
export type { Status, ErrorType, Dimension, Stage, LatencyField, NumericField, FieldKind, FieldSpec, EventInput, StoredEvent, CheckResult } from './event.ts';
export { QuerySpecSchema, FiltersSchema, TimeRangeSchema, FILTER_KEYS, GROUP_KEYS, QUANTILES, MAX_BUCKETS, MAX_GROUPS, parseMeasure, parseDurationMs } from './query.ts';
export type { QuerySpec, QuerySpecInput, QueryRow, Measure, Filters, FilterKey, GroupKey } from './query.ts';
export { READ_RESOURCE_METRICS, ResourceSampleSchema } from './resource.ts';
export type { ResourceSample } from './resource.ts';
export { FeedbackSchema, FEEDBACK_KINDS } from './feedback.ts';
export type { Feedback, FeedbackKind, FeedbackStatsSpec, FeedbackStatsRow, FeedbackStats } from './feedback.ts';
export type { SuccessEnvelope, ErrorEnvelope, RowIssue, IngestReply } from './api.ts';
/** What every write route accepts, so validation and storage agree: timestamps, well-formed text, bounds. */
export { TimestampSchema, textSchema, timestampMs, outsideWindow, truncate, isWellFormed, ILL_FORMED_TEXT, EXPECTED_TIMESTAMP, MAX_FUTURE_MS } from './fields.ts';
export { MAX_COUNT, MAX_SAMPLE_WEIGHT } from './event.ts';
export { MAX_RESOURCE_LABELS } from './resource.ts';
