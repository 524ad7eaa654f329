/** Replies of the runtime reads and analyses: the query, errors, stages, saturation, histogram, resources, capacity, samples. */

/** A value of a query row: a dimension string, a measure number, or null (no data). */
export type Cell = string | number | null;
/** A query row: `bucket` (RFC 3339) and the group's dimensions as text, measures by their names. */
export type Row = Record<string, Cell>;

/** The rollup's error bound when a reply says it answered from it; null: exact. */
export interface Approximation {
  /** Every quantile is within this relative error of the exact one; other measures are exact. */
  relative_error: number;
  source: 'rollup_1m';
}

/** A window as RFC 3339 text. */
export interface WindowText {
  from: string;
  to: string;
}

/** `POST /v1/query`. `approx` is present when the request allowed approximation. */
export interface QueryReply {
  rows: Row[];
  approx?: Approximation | null;
}

// ---------- POST /v1/analysis/errors ----------

export type SliceVerdict = 'elevated' | 'not_significant' | 'not_elevated' | 'parent_explains';

export interface RankedSliceReply {
  /** The slice: dimension → value (one or two dimensions). */
  slice: Record<string, string>;
  n: number;
  k: number;
  /** k/n. */
  rate: number;
  /** Wilson 95 % interval of the rate. */
  lo: number;
  hi: number;
  /** Rate of the traffic outside the slice. */
  rest_rate: number;
  z: number;
  p_value: number;
  method: 'z' | 'fisher';
  /** Benjamini–Hochberg q-value across all slices tested. */
  q_value: number;
  /** Bad events beyond what the rest's rate predicts. */
  excess: number;
  score: number;
  significant: boolean;
  verdict: SliceVerdict;
  /** A significant child slice that carries this slice's whole elevation. */
  explained_by?: Record<string, string>;
}

export interface ErrorSlicesReply {
  kind: 'errors' | 'slow' | 'shed';
  /** Present when the request allowed approximation: the sample counted, or null (every row). */
  sample?: { fraction: number; window_rows: number } | null;
  /** Present when the request allowed approximation and the threshold came from the rollup. */
  approx?: Approximation | null;
  threshold_ms?: number;
  total: { n: number; k: number; rate: number | null };
  slices: RankedSliceReply[];
}

// ---------- POST /v1/analysis/stages ----------

export interface StageShiftReply {
  stage: string;
  current_ms: number | null;
  baseline_ms: number | null;
  delta_ms: number | null;
  ratio: number | null;
  n_current: number;
  n_baseline: number;
  /** Requests above the baseline's quantile, now and in the baseline. */
  above_current: number;
  above_baseline: number;
  /** Holm-adjusted p-value of the change in the share above the baseline's quantile. */
  p_value: number;
  /** Grew significantly and by at least ×1.1. */
  grew: boolean;
}

export interface SlowReplicaReply {
  replica: string;
  stage: string;
  ms: number;
  /** Median of the other replicas' quantile of that stage. */
  peers_ms: number;
  ratio: number;
  n: number;
}

export interface TailCompositionReply {
  q: number;
  /** The total's q-quantile; requests at or above it form the tail. */
  threshold_ms: number | null;
  n_rows: number;
  n_tail: number;
  shares: { stage: string; mean_share: number; n: number }[];
}

export interface StagesReply {
  q: number;
  current: WindowText;
  baseline: WindowText;
  stages: StageShiftReply[];
  total: StageShiftReply;
  /** The stage that grew (significantly, ≥ ×1.1) most in ms; null when none did. */
  grew_most: string | null;
  /** Each replica's stage medians (and median total) in the current window. */
  replicas: { replica: string; n: number; total_ms: number | null; stages_ms: Record<string, number | null> }[];
  /** The replica whose stage median is ≥ 1.5× the median of its peers' (largest ratio), or null. */
  slow_replica: SlowReplicaReply | null;
  /** Stage shares among requests above the total's quantile, now vs before. */
  tail: {
    current: TailCompositionReply;
    baseline: TailCompositionReply;
    stages: { stage: string; share_now: number; share_before: number; delta_share: number }[];
    grew_most: string | null;
  } | null;
  approx?: Approximation | null;
}

// ---------- POST /v1/analysis/saturation ----------

export interface TrendEvidenceReply {
  slope: number;
  slope_lo: number;
  slope_hi: number;
  s: number;
  z: number;
  p_value: number;
  trend: 'up' | 'down' | 'none';
}

export interface SaturationReply {
  verdict: 'saturated' | 'not_saturated' | 'not_enough_data';
  saturated: boolean;
  signals: ('queueing' | 'shedding')[];
  reasons: string[];
  n: number;
  n_baseline: number;
  alpha: number;
  qps: TrendEvidenceReply;
  queue_ms: TrendEvidenceReply;
  p99_ms: TrendEvidenceReply;
  shed_rate: TrendEvidenceReply | null;
  baseline_window: WindowText;
  /** Per bucket, baseline first: offered and served rates, the shed share, queue time, P99. */
  points: {
    bucket: string;
    baseline: boolean;
    offered_qps: number;
    qps: number;
    shed_rate: number | null;
    queue_ms: number | null;
    p99_ms: number | null;
    n: number;
  }[];
  approx?: Approximation | null;
}

// ---------- POST /v1/histogram, /v1/resources/query, /v1/resources/quantiles, /v1/analysis/capacity ----------

export interface HistogramReply {
  field: string;
  bounds_ms: number[];
  rows: { bucket: string; counts: number[] }[];
  approx?: Approximation | null;
}

export interface ResourceSeriesReply {
  rows: {
    bucket: string;
    metric: string;
    node?: string | null;
    replica?: string | null;
    gpu?: string | null;
    pool?: string | null;
    /** The grouped labels (`labels.model` → `labels.model`), null where a sample lacks the label. */
    labels?: Record<string, string | null>;
    avg: number;
    max: number;
    /** Σ value: per-interval bucket increases and rates add up across series. */
    sum: number;
    n: number;
    simulated: boolean;
  }[];
}

export interface ResourceQuantilesReply {
  metric: string;
  method: 'bucket_interpolated';
  /** The finite bucket bounds seen, ascending. */
  bounds: number[];
  rows: {
    bucket: string;
    node?: string | null;
    replica?: string | null;
    gpu?: string | null;
    pool?: string | null;
    labels?: Record<string, string | null>;
    count: number;
    /** Quantile (as text, "0.99") → value in the histogram's unit; null with no observations. */
    values: Record<string, number | null>;
  }[];
}

export interface CapacityReply {
  step: string;
  buckets: { bucket: string; n: number; p99_total_ms: number | null; mean_queue_ms: number | null; qps: number; resources: Record<string, number | null> }[];
  nodes: string[] | null;
  correlations: {
    request: 'p99_total_ms' | 'mean_queue_ms' | 'qps';
    resource: string;
    correlation: { method: 'pearson' | 'spearman'; r: number | null; p_value: number | null; n: number };
    strong: boolean;
  }[];
  saturated: { resource: string; peak: number; level: number; node: string | null; gpu: string | null }[];
  verdict: 'capacity_bound' | 'not_capacity' | 'not_enough_data';
  reasons: string[];
  headroom: {
    node: string | null;
    gpu: string | null;
    pool: string | null;
    max_used_bytes: number;
    total_bytes: number;
    headroom_bytes: number;
    headroom_ratio: number;
    simulated: boolean;
  }[];
  simulated: boolean;
}

// ---------- the events and samples behind a chart point ----------

/** A captured sample as the API returns it: redacted, bounded text. */
export interface SampleReply {
  ts: string;
  request_id: string | null;
  model: string;
  model_version: string | null;
  tenant: string | null;
  entry: string | null;
  node: string | null;
  replica: string | null;
  route_rule: string | null;
  status: string | null;
  error_type: string | null;
  label: string | null;
  confidence: number | null;
  /** Why the capture policy kept it. */
  reasons: string[];
  risk_tags: string[];
  /** How many requests this sample stands for (1 / probability it was kept × the event's own weight). */
  sample_weight: number;
  input: string | null;
  output: string | null;
}

/** `GET /v1/requests/:id`: the stored events of one request (fields as in the event contract) and its captured samples. */
export interface RequestReply {
  events: Record<string, unknown>[];
  samples: SampleReply[];
}

/** `POST /v1/events/search`: stored events (fields as in the event contract), newest first. */
export interface EventSearchReply {
  events: Record<string, unknown>[];
}

/** `POST /v1/samples/search`. */
export interface SamplesReply {
  samples: SampleReply[];
}

// ---------- GET /v1/scrape/targets ----------

/** One scrape target and how its last scrape went (like Prometheus's targets page). */
export interface ScrapeTargetReply {
  url: string;
  labels: Record<string, string>;
  /** `up` (last scrape succeeded), `down` (it failed), `unknown` (not scraped yet). */
  health: 'up' | 'down' | 'unknown';
  engine: string | null;
  engine_setting: string;
  interval_ms: number;
  last_scrape: string | null;
  last_success: string | null;
  last_duration_ms: number | null;
  last_error: { at: string; reason: string; message: string } | null;
  scrapes: number;
  failures: number;
  last_samples: number;
  samples_total: number;
  mapped_families: number;
  unmapped_families: number;
  /** The first 100 unmapped family names of the last successful scrape. */
  unmapped_names: string[];
  parse_warnings: { last: number; total: number; first: { line: number; message: string } | null };
  dropped_series: number;
  sink_rejected: number;
}

/** `GET /v1/scrape/targets`. */
export interface ScrapeTargetsReply {
  targets: ScrapeTargetReply[];
}
