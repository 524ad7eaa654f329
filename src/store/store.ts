/**
 * The Store seam: the only place SQL lives. Every backend (DuckDB embedded, ClickHouse scale-out)
 * implements this interface and passes the one conformance suite in `conformance.test-support.ts`.
 *
 * Contract:
 * - `appendEvents` takes JSON lines of events that already passed `checkEvent` (flat form, no
 *   unknown fields, `ts` as epoch ms or a UTC 'Z' string). It resolves only once the rows are
 *   durable (committed and synced), and it is idempotent: a row whose (request_id, ts) is already
 *   stored, or repeats within the batch, is not stored again. Rows without request_id are always
 *   stored. Latencies are stored rounded to 3 decimals (microseconds).
 * - Every read takes a time range [fromMs, toMs) and is bounded (a limit on rows or groups).
 * - Probe events (`probe = true`) are excluded from aggregates unless asked for.
 * - Rates are weighted by `sample_weight` (default 1) and computed over rows with a status;
 *   quantiles are exact (linear interpolation, Hyndman–Fan type 7) over stored rows.
 * - `close()` is idempotent and flushes.
 * - A failed append throws an `InferlensError` (write-errors.ts): `invalid_argument` when the rows
 *   themselves cannot be stored (nothing of that append is stored; the pipeline then finds the
 *   row and rejects only it), `unavailable` otherwise — with `DISK_FULL_MESSAGE` when the disk is
 *   full. Validation (src/schema) accepts only what the columns hold, so `invalid_argument` is a
 *   bug caught safely, not a path for ordinary bad input.
 */
import type {
  Dimension,
  Feedback,
  Filters,
  GroupKey,
  NumericField,
  QueryRow,
  QuerySpec,
  ResourceSample,
  ResourceSeriesReply,
  StoredEvent,
  FeedbackStatsSpec,
  FeedbackStats,
  SampleFilterKey,
  SampleReason,
  SampleReply,
} from '../schema/index.ts';

/** What the caller knows about a batch of event lines (see `Store.appendEvents`). */
export interface AppendHint {
  /** Bounds every row's ts (epoch ms): the duplicate check then reads only that range of stored rows. */
  minTsMs: number;
  maxTsMs: number;
  /**
   * No request_id appears twice among the lines (rows without one aside): the store may skip
   * looking for repeats within the batch (a window over the batch, ~20 % of DuckDB's insert).
   */
  distinctRequestIds?: boolean;
}

export interface AppendResult {
  /** Rows newly written (re-sent duplicates are not counted here but are still durable). */
  inserted: number;
}

/** A bounded, time-ranged selection of raw events. */
export interface ListSpec {
  fromMs: number;
  toMs: number;
  filters: Filters;
  includeProbes?: boolean;
  /** Columns to return (default: all). */
  columns?: readonly string[];
  /** Only rows where this numeric column is at least this value. */
  minValue?: { column: string; value: number };
  limit: number;
  /**
   * Newest or oldest first (default newest), or `sample`: `limit` rows picked by a hash of
   * (request_id, ts), spread over the whole window and the same on every call.
   */
  order?: 'ts_desc' | 'ts_asc' | 'sample';
  /**
   * At most `limit` rows per distinct value of these columns (a stratified read: every model version
   * gets its share, however small its traffic), in the chosen order within each; `limit` above still
   * bounds the whole answer.
   */
  perSlice?: { by: readonly string[]; limit: number };
}

/** Counts of "bad" rows per slice, for the slice finder. */
export interface SliceCountSpec {
  fromMs: number;
  toMs: number;
  filters: Filters;
  dimensions: readonly Dimension[];
  /** What makes a row bad: a status in this list, or a latency column above a threshold. */
  bad: { statuses: readonly string[] } | { column: string; aboveMs: number };
  /** Also count pairs of dimensions. */
  pairs: boolean;
  minSupport: number;
  includeProbes?: boolean;
  /**
   * Count only a random sample of about this share (0 < f < 1) of the rows: whole vectors of
   * 2,048 consecutive rows (DuckDB system sampling; which vectors may differ between calls). The
   * counts are of the sampled rows.
   */
  sampleFraction?: number;
}

export interface SliceCount {
  slice: Partial<Record<Dimension, string>>;
  n: number;
  k: number;
}

export interface HistogramSpec {
  fromMs: number;
  toMs: number;
  filters: Filters;
  stepMs: number;
  column: string;
  /** Upper bounds of the buckets, ascending; values above the last go to an overflow bucket. */
  boundsMs: readonly number[];
  includeProbes?: boolean;
}

/**
 * Per slice and time step, how many rows fall in each bucket of a numeric column: what the
 * alerting detectors read to count requests above a reference quantile, or to compare a binned
 * distribution. Buckets are either logarithmic (latencies: bucket i holds (10^((i−1)/d), 10^(i/d)],
 * values ≤ 0 go to `ZERO_INDEX`) or linear (scores in [0, 1]: bucket i holds [i·w, (i+1)·w)).
 */
export interface BucketCountSpec {
  fromMs: number;
  toMs: number;
  stepMs: number;
  filters: Filters;
  groupBy: readonly GroupKey[];
  column: NumericField;
  buckets: { perDecade: number } | { width: number };
  includeProbes?: boolean;
  /** Most counts (step × slice × bucket) to return; a result that would hold more is an error (resource_exhausted). */
  limit: number;
}

/**
 * One step of one slice: its non-empty buckets, columnar (a step of a slice is one row, not one per
 * bucket: a backtest reads ~200 k of them instead of ~2.1 M bucket rows, each with its slice's strings).
 */
export interface BucketCountRow {
  /** Start of the step (epoch ms), steps aligned to fromMs. */
  bucketMs: number;
  /** The group-by values (null where the row has none). */
  slice: Record<string, string | null>;
  /** Bucket indices with rows, ascending. */
  indices: number[];
  /** Rows (not weights) in each of those buckets. */
  counts: number[];
}

export interface HistogramRow {
  bucketMs: number;
  /** counts[i] = rows with bounds[i-1] < v ≤ bounds[i]; the last entry is the overflow bucket. */
  counts: number[];
}

/** The sample fields a resource query filters and groups by. */
export type ResourceField = 'node' | 'replica' | 'gpu' | 'pool';
/** One of a sample's own labels as a group key: `labels.model`, `labels.le`, `labels.gen_ai.token.type`. */
export type ResourceLabelKey = `labels.${string}`;
export type ResourceGroupKey = ResourceField | ResourceLabelKey;

export interface ResourceQuerySpec {
  fromMs: number;
  toMs: number;
  stepMs: number;
  metrics: readonly string[];
  /** Sample fields, and `labels`: a sample's own labels (key → one value or any of several). */
  filters: {
    node?: string | string[];
    replica?: string | string[];
    pool?: string | string[];
    gpu?: string | string[];
    labels?: Readonly<Record<string, string | readonly string[]>>;
  };
  groupBy: readonly ResourceGroupKey[];
}

/** A resource series point as the store reads it: the API's row (src/schema/replies/runtime.ts) with the bucket in epoch ms. */
export type ResourceRow = Omit<ResourceSeriesReply['rows'][number], 'bucket'> & { bucketMs: number };

/** The label name of a `labels.<name>` group key, else undefined. */
export function resourceLabelOf(key: string): string | undefined {
  return key.startsWith('labels.') ? key.slice('labels.'.length) : undefined;
}

export interface RollupProgress {
  /** Every minute before this (epoch ms) is rolled up; null when nothing is yet. */
  watermarkMs: number | null;
  /** Minutes rolled up by this call. */
  minutes: number;
}

export interface StoreStats {
  events: number;
  resources: number;
  feedback: number;
  /** Bytes on disk, when the backend knows. */
  bytes: number | null;
}

export interface Store {
  /** Creates or upgrades tables; safe to call on every start. */
  migrate(): Promise<void>;
  /** Resolves when the store answers a query now; throws `unavailable` (with what to check) when not. */
  ping(): Promise<void>;
  /** `hint`, when given, must be true of the lines (AppendHint). */
  appendEvents(lines: readonly string[], hint?: AppendHint): Promise<AppendResult>;
  appendResources(samples: readonly ResourceSample[]): Promise<void>;
  appendFeedback(rows: readonly Feedback[]): Promise<void>;
  /** The aggregate query behind `POST /v1/query`. Rows carry `bucket` (epoch ms) when stepMs is set. */
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  histogram(spec: HistogramSpec): Promise<HistogramRow[]>;
  bucketCounts(spec: BucketCountSpec): Promise<BucketCountRow[]>;
  sliceCounts(spec: SliceCountSpec): Promise<SliceCount[]>;
  listEvents(spec: ListSpec): Promise<StoredEvent[]>;
  /** Every stored event with this request id (normally one). */
  getEvents(requestId: string): Promise<StoredEvent[]>;
  resources(spec: ResourceQuerySpec): Promise<ResourceRow[]>;
  /** Distinct values of a dimension in a time range, most frequent first. */
  distinctValues(dimension: Dimension, fromMs: number, toMs: number, limit: number): Promise<string[]>;
  /**
   * The aggregate answered from the per-minute rollup (`rollup.ts`) plus raw rows for what it does
   * not cover yet; quantiles within `SKETCH_RELATIVE_ERROR`, every other measure exact. Null when
   * the rollup cannot answer this spec (a filter, group-by or measure it does not keep, buckets
   * not aligned to whole minutes, or no rolled-up minute in the range): use `aggregate`.
   */
  approxAggregate(spec: QuerySpec): Promise<QueryRow[] | null>;
  /** `histogram` from the rollup's log buckets, under the same conditions (bounds on the sketch's scale). */
  approxHistogram(spec: HistogramSpec): Promise<HistogramRow[] | null>;
  /**
   * Rolls up every closed minute before `untilMs` not yet rolled up and moves the watermark there
   * (the first call backfills from the oldest event). Safe to call at any interval.
   */
  maintainRollup(untilMs: number): Promise<RollupProgress>;
  /** Deletes everything older than the cutoff, rollup minutes included; returns how many events went. */
  deleteBefore(cutoffMs: number): Promise<{ events: number; resources: number; feedback: number }>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
  /**
   * Feedback joined to events by request_id at query time, grouped by dimensions and the time
   * bucket of the REQUEST; late feedback, and feedback stored before its request, match once both
   * rows exist. The latest row of each kind per request counts. `orphans` are feedback rows with
   * ts in [fromMs, toMs) whose request_id has no stored event.
   */
  feedbackStats(spec: FeedbackStatsSpec): Promise<FeedbackStats>;
  /**
   * Stores captured samples (already redacted and bounded by the capture policy). Not idempotent:
   * the pipeline writes each kept sample once. Resolves once the rows are durable.
   */
  appendSamples(rows: readonly SampleRow[]): Promise<void>;
  /**
   * Samples with ts in [fromMs, toMs), newest first, at most `limit` (≤ 1000): filtered by
   * dimensions / status / label, by any of `reasons`, by any of `tags` (risk tags), by request id.
   */
  listSamples(spec: SampleListSpec): Promise<StoredSample[]>;
  /**
   * Appends steps of the incident log (alerting's incidents, alerts, notifications, actions and
   * silences). Idempotent on `id`: an entry re-sent after a failed write is stored once.
   */
  appendIncidentLog(entries: readonly IncidentLogEntry[]): Promise<void>;
  /**
   * Incident log entries, oldest first (ties by id): with ts in [fromMs, toMs), or — with
   * `incidentIds` — every entry of those incidents whatever its time. At most `limit`.
   */
  listIncidentLog(spec: IncidentLogSpec): Promise<IncidentLogEntry[]>;
}

/** One step of the incident log as stored. */
export interface IncidentLogEntry {
  /** Epoch ms. */
  ts: number;
  /** Unique per entry (the writer's process prefix and a sequence number). */
  id: string;
  incident_id: string | null;
  /** opened, alert_firing, alert_resolved, alert_left, notified, resolved, action_<step>, silence_created, silence_expired. */
  kind: string;
  alertname: string | null;
  fingerprint: string | null;
  severity: string | null;
  /** The alert's (or a silence's `tenant="…"`) tenant: what tenant scoping reads. */
  tenant: string | null;
  labels: Record<string, string>;
  /** Small JSON object: what the step says (value, reason, tier, action, by, matchers, …). */
  detail: Record<string, unknown>;
}

export interface IncidentLogSpec {
  fromMs: number;
  toMs: number;
  /** Instead of the time range: every entry of these incidents. */
  incidentIds?: readonly string[];
  limit: number;
}

/** The reads of a Store: all that query/ needs, and what the read-scope decorator (`scopeStore`) wraps. */
export type StoreReads = Pick<
  Store,
  | 'aggregate'
  | 'approxAggregate'
  | 'histogram'
  | 'approxHistogram'
  | 'bucketCounts'
  | 'sliceCounts'
  | 'listEvents'
  | 'getEvents'
  | 'resources'
  | 'distinctValues'
  | 'feedbackStats'
  | 'listSamples'
>;

/** The feedback join's contract lives in src/schema (quality reads it too). */
export type { FeedbackStatsSpec, FeedbackStatsRow, FeedbackStats } from '../schema/index.ts';

/** Why a sample was kept, and what samples can be filtered by: request-schema constants (src/schema). */
export { SAMPLE_REASONS, SAMPLE_FILTER_KEYS } from '../schema/index.ts';
export type { SampleReason, SampleFilterKey } from '../schema/index.ts';
/** One captured request/response, as written: the API's sample with the time in epoch ms and the reasons typed. */
export type SampleRow = Omit<SampleReply, 'ts' | 'reasons'> & { ts: number; reasons: SampleReason[] };

/** A stored sample as read back (`ts` RFC 3339 UTC): the API's sample (src/schema/replies/runtime.ts). */
export type StoredSample = SampleReply;

export interface SampleListSpec {
  fromMs: number;
  toMs: number;
  filters: Partial<Record<SampleFilterKey, string | string[]>>;
  /** Samples kept for any of these reasons. */
  reasons?: readonly string[];
  /** Samples carrying any of these risk tags. */
  tags?: readonly string[];
  requestId?: string;
  limit: number;
}
