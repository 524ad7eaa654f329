/** The schema folder: the contracts every other folder shares. Types are inferred from zod schemas. */
export { InferlensError, isInferlensError } from './errors.ts';
export type { ErrorCode, FieldIssue, InferlensErrorOptions } from './errors.ts';
/** The vocabularies (dependency-free: the web and the SDK import them as values). */
export {
  STATUSES,
  FAILED_STATUSES,
  SHED_STATUSES,
  ERROR_TYPES,
  DIMENSIONS,
  STAGES,
  LATENCY_FIELDS,
  NUMERIC_FIELDS,
  FILTER_KEYS,
  GROUP_KEYS,
  SAMPLE_REASONS,
  SAMPLE_FILTER_KEYS,
  QUANTILES,
  RATE_FLAGS,
  COUNTED_FLAGS,
  parseMeasure,
} from './vocabulary.ts';
export type {
  Status,
  ErrorType,
  Dimension,
  Stage,
  StageName,
  LatencyField,
  NumericField,
  Filters,
  FilterKey,
  GroupKey,
  SampleReason,
  SampleFilterKey,
  QuantileName,
  RateFlag,
  CountedFlag,
  Measure,
} from './vocabulary.ts';
export {
  DEFAULT_LOW_CONFIDENCE,
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
export type { FieldKind, FieldSpec, EventInput, StoredEvent, CheckResult } from './event.ts';
export { FiltersSchema, MAX_BUCKETS, MAX_GROUPS } from './query.ts';
export type { QuerySpec, QueryRow } from './query.ts';
/** The one RFC 3339 parser and the one duration (step) parser. */
export { parseRfc3339, parseDurationMs, daysInMonth, MIN_STEP_MS, MAX_STEP_MS } from './time.ts';
/** Every request body and query string the HTTP API reads, decoded into typed specs. */
export {
  decode,
  Rfc3339,
  Step,
  MAX_TIME_MS,
  QueryRequestSchema,
  EventSearchRequestSchema,
  ErrorSlicesRequestSchema,
  StagesRequestSchema,
  SaturationRequestSchema,
  HistogramRequestSchema,
  ResourceQueryRequestSchema,
  ResourceQuantilesRequestSchema,
  CapacityRequestSchema,
  CostRequestSchema,
  SampleSearchRequestSchema,
  QualitySummaryRequestSchema,
  DriftRequestSchema,
  DRIFT_FIELDS,
  NUMERIC_DRIFT_FIELDS,
  CATEGORICAL_DRIFT_FIELDS,
  FeedbackQualityRequestSchema,
  GoldenResultsRequestSchema,
  CompareRequestSchema,
  LabelsRequestSchema,
  RequestIdSchema,
  PathIdSchema,
  AlertsRequestSchema,
  IncidentsRequestSchema,
  ReportRequestSchema,
  REPORT_FILTERS,
  SilenceRequestSchema,
  ApproveRequestSchema,
  AckRequestSchema,
  RejectRequestSchema,
  SessionRequestSchema,
  AuditRequestSchema,
} from './requests.ts';
export type {
  EventSearchRequest,
  ErrorSlicesRequest,
  StagesRequest,
  SaturationRequest,
  HistogramRequest,
  ResourceQueryRequest,
  ResourceQuantilesRequest,
  CapacityRequest,
  CostRequest,
  SampleSearchRequest,
  QualitySummaryRequest,
  DriftRequest,
  DriftField,
  FeedbackQualityRequest,
  GoldenResultsRequest,
  CompareRequest,
} from './requests.ts';
/** Principals, roles, what each role may do, and the read scope a principal carries. */
export { ROLES, PERMISSIONS, ROLE_PERMISSIONS, roleAllows, unscoped, scopeOf, tenantAllowed, KeyRecordSchema } from './auth.ts';
export type { Role, Permission, Principal, ReadScope, KeyRecord } from './auth.ts';
export { READ_RESOURCE_METRICS, ResourceSampleSchema } from './resource.ts';
export type { ResourceSample } from './resource.ts';
export { FeedbackSchema, FEEDBACK_KINDS } from './feedback.ts';
export type { Feedback, FeedbackStatsSpec, FeedbackStatsRow, FeedbackStats } from './feedback.ts';
export type { ErrorEnvelope, RowIssue, IngestReply } from './api.ts';
/** What every write route accepts, so validation and storage agree: timestamps, well-formed text, bounds. */
export {
  TimestampSchema,
  textSchema,
  timestampMs,
  outsideWindow,
  truncate,
  isWellFormed,
  ILL_FORMED_TEXT,
  EXPECTED_TIMESTAMP,
  MAX_FUTURE_MS,
} from './fields.ts';
export { MAX_COUNT, MAX_SAMPLE_WEIGHT } from './event.ts';
export { MAX_RESOURCE_LABELS } from './resource.ts';
/** The wire's naming (snake_case) and the replies' data, shared with the web (both dependency-free). */
export { snakeCase, snakeKeys } from './wire-names.ts';
export type { SnakeCase, SnakeKeys } from './wire-names.ts';
export type * from './replies.ts';
/** The wire's incident history, named apart from the alerting component's (camelCase) one. */
export type { IncidentHistoryReply as IncidentHistoryWireReply } from './replies.ts';
