/**
 * The `data` of the API's replies, as the server builds them and the dashboard reads them: one
 * declaration for both. The server's query functions return these types, and `web/src` reads
 * replies through them (`web/src/api.ts` `post<T>` / `get<T>`), so renaming a reply field breaks
 * the typecheck of the server or of the web (`npm run typecheck:web`), never silently the page.
 * Keys are snake_case (src/schema/wire-names.ts). Imports only the vocabularies (types), so the
 * web can import it without zod.
 */
import type { Filters } from './vocabulary.ts';

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
  points: { bucket: string; baseline: boolean; offered_qps: number; qps: number; shed_rate: number | null; queue_ms: number | null; p99_ms: number | null; n: number }[];
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
  correlations: { request: 'p99_total_ms' | 'mean_queue_ms' | 'qps'; resource: string; correlation: { method: 'pearson' | 'spearman'; r: number | null; p_value: number | null; n: number }; strong: boolean }[];
  saturated: { resource: string; peak: number; level: number; node: string | null; gpu: string | null }[];
  verdict: 'capacity_bound' | 'not_capacity' | 'not_enough_data';
  reasons: string[];
  headroom: { node: string | null; gpu: string | null; pool: string | null; max_used_bytes: number; total_bytes: number; headroom_bytes: number; headroom_ratio: number; simulated: boolean }[];
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
  /** How many requests this sample stands for. */
  sample_weight: number;
  input: string | null;
  output: string | null;
}

/** `GET /v1/requests/:id`: the stored events of one request (fields as in the event contract) and its captured samples. */
export interface RequestReply {
  events: Record<string, unknown>[];
  samples: SampleReply[];
}

/** `POST /v1/samples/search`. */
export interface SamplesReply {
  samples: SampleReply[];
}

// ---------- POST /v1/quality/summary, /v1/quality/drift, /v1/quality/feedback, GET /v1/golden/results ----------

/**
 * One group of feedback joined to requests. Rates are over the requests that got that kind of
 * feedback, except conversion and click rates, which are over all requests in the group. The
 * group's dimensions (and `bucket`, RFC 3339, with a step) sit beside these fields.
 */
export type FeedbackRowReply = {
  bucket?: string;
  requests: number;
  with_feedback: number;
  correct_n: number;
  correct_rate: number | null;
  label_n: number;
  label_accuracy: number | null;
  thumbs_n: number;
  thumbs_up_rate: number | null;
  rating_n: number;
  rating_mean: number | null;
  conversions: number;
  conversion_rate: number | null;
  clicks: number;
  click_rate: number | null;
} & Record<string, string | number | null | undefined>;

export interface FeedbackReply {
  rows: FeedbackRowReply[];
  /** Feedback rows in [from, to) whose request_id has no stored event (yet). */
  orphans: number;
}

/** One value of a categorical field in one group: its weighted count and share of the group. */
export type DistributionRow = Record<string, string | number | null> & { count: number; share: number };

export interface ConfidenceHistogramRow {
  bucket?: string;
  [dimension: string]: string | number | number[] | null | undefined;
  /** Weighted share of rows with a confidence in each bin of the edges. */
  shares: number[];
}

export interface ClassShiftReply {
  group: Record<string, string | null>;
  label: string;
  share: number;
  previous_share: number | null;
  delta: number | null;
  /** Rows in the group now and in the previous window (the test counts rows, not weights). */
  n: number;
  previous_n: number;
  p_value: number | null;
  /** Benjamini–Hochberg across every class and group of this model. */
  q_value: number | null;
  method: 'z' | 'fisher' | null;
}

export interface ModelQualityReply {
  model: string;
  type: 'classifier' | 'generative' | 'ranker' | 'unknown';
  source: 'declared' | 'inferred';
  /** Result fields seen in the window (what the inference rests on). */
  fields: string[];
  /** Stored rows of this model in the window. */
  n: number;
  measures: Row[];
  labels?: DistributionRow[];
  confidence_histogram?: { edges: readonly number[]; rows: ConfidenceHistogramRow[] };
  key_class_shift?: { previous: WindowText; classes: ClassShiftReply[] };
  finish_reasons?: DistributionRow[];
  feedback?: FeedbackRowReply[];
}

export interface QualitySummaryReply {
  from: string;
  to: string;
  /** The low-confidence cut-off behind `below_rate(confidence, x)`. */
  low_confidence: number;
  models: ModelQualityReply[];
}

/** One drift test's answer. */
export interface DriftTestReply {
  method: 'psi' | 'jensen_shannon' | 'ks' | 'chi_square' | 'wasserstein_normed' | 'z';
  statistic: number | null;
  /** Null for distances (PSI, Jensen–Shannon, Wasserstein), which have no p-value. */
  p_value: number | null;
  /** p-value methods: drift when p_value < threshold; distances: when statistic ≥ threshold. */
  threshold: number;
  verdict: 'drift' | 'no_drift' | 'not_enough_data' | 'low_expected_counts';
  drift: boolean;
  /** Reference and current sample sizes. */
  n_ref: number;
  n_cur: number;
}

export interface FieldDriftReply {
  field: string;
  kind: 'numeric' | 'categorical';
  test: DriftTestReply;
  /** BH q-value of the test's p-value across the fields (null for distances and no verdict). */
  q_value: number | null;
  psi: DriftTestReply & { level: 'stable' | 'moderate' | 'significant' | null };
  /** Whether a side was subsampled to stay bounded. */
  sampled: { reference: boolean; current: boolean };
}

export interface DriftReply {
  current: WindowText & { filters: Filters };
  reference: WindowText & { filters: Filters };
  fields: FieldDriftReply[];
}

export interface PassCount {
  runs: number;
  passed: number;
  /** passed / runs; null without runs. */
  pass_rate: number | null;
}

export interface GoldenVersionReply extends PassCount {
  model: string | null;
  model_version: string | null;
  /** Calls that got no valid answer (counted as failures). */
  errors: number;
  buckets?: (PassCount & { bucket: string })[];
}

export interface FailingSampleReply {
  golden_set: string;
  golden_id: string;
  model: string | null;
  model_version: string | null;
  runs: number;
  fails: number;
  last_failure: string;
  /** The reason recorded with the latest failure. */
  reason: string | null;
}

export interface GoldenResultsReply {
  from: string;
  to: string;
  truncated: boolean;
  versions: GoldenVersionReply[];
  failing: FailingSampleReply[];
}

// ---------- POST /v1/compare ----------

/** One row of the release evidence table (null where there is no number). */
export interface EvidenceRowReply {
  metric: string;
  family: 'latency' | 'stage_latency' | 'rates' | 'output' | 'accuracy';
  baseline: number | null;
  candidate: number | null;
  /** candidate − baseline (ms, fraction, or the drift statistic for drift rows). */
  diff: number | null;
  /** 95 % interval of diff. */
  ci: [number, number] | null;
  p_value: number | null;
  /** p adjusted across every metric with a p-value (Benjamini–Hochberg or Holm). */
  q_value: number | null;
  test: string;
  unit: 'ms' | 'fraction' | 'distance' | 'statistic' | 'confidence';
  /** Half-width of the band that counts as "the same" (a drift threshold for drift rows). */
  tolerance: number | null;
  direction: 'better' | 'worse' | 'same';
  classification: 'pass' | 'high' | 'low' | 'no_data';
  weight: number;
  critical: boolean;
  n: { baseline: number; candidate: number };
  /** Why there is no verdict, subsampling, fallbacks. */
  note: string | null;
}

export interface CompareSideReply {
  /** User-traffic rows (probes excluded). */
  n: number;
  /** Requests weighted by sample_weight. */
  requests: number;
  from: string;
  to: string;
  filters: Filters;
  /** Raw rows read for the rank and drift tests, of how many stored (probes included). */
  sample: { rows: number; of: number; stratified: boolean };
}

export interface CompareReply {
  verdict: 'promote' | 'hold' | 'rollback' | 'not_enough_data';
  score: number | null;
  reasons: string[];
  /** What may make the comparison unfair (the two sides serve different tenant mixes). */
  warnings: string[];
  evidence: EvidenceRowReply[];
  baseline: CompareSideReply;
  candidate: CompareSideReply;
}

// ---------- POST /v1/cost ----------

export interface CostLineReply {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Σ exec_ms × sample_weight. */
  exec_ms: number;
  /** GPU-seconds attributed by execution-time share. */
  gpu_seconds: number;
  /** Money; null when no price is configured. */
  gpu_cost: number | null;
  token_cost: number | null;
  cost: number | null;
  cost_per_1k_requests: number | null;
  cost_per_1k_tokens: number | null;
  /** Per step, aligned to the reply's `buckets`: money (or GPU-seconds when unpriced) and money per 1,000 requests. */
  trend: { cost: (number | null)[]; per_1k_requests: (number | null)[] };
  /** Cost per 1,000 requests in the window's second half over its first half, minus 1; null when a half has no requests. */
  change: number | null;
}

export interface CostReply {
  currency: string | null;
  /** Whether any price is configured; when not, money fields are null and `unlock` names the setting. */
  priced: boolean;
  unlock: string | null;
  step_ms: number;
  buckets: string[];
  total: CostLineReply;
  by_model: (CostLineReply & { model: string | null })[];
  by_tenant: (CostLineReply & { tenant: string | null })[];
  by_slice: (CostLineReply & { model: string | null; model_version: string | null; tenant: string | null })[];
  /** GPU time not attributed to a slice, by reason (see the module comment). */
  unattributed: { reason: 'idle' | 'no_exec_ms' | 'other'; gpu_seconds: number; cost: number | null }[];
  nodes: { node: string; gpus: number; gpu_seconds: number; busy_gpu_seconds: number; cost: number | null; simulated: boolean }[];
  /** GPUs held without a matching price (their seconds count, their money does not). */
  unpriced: { pool: string | null; gpu_model: string | null; gpu_seconds: number }[];
}

// ---------- GET /v1/alerts, /v1/incidents, /v1/actions, /v1/rules ----------

export type AlertLabels = Record<string, string>;

export interface AlertReply {
  alertname: string;
  group: string;
  fingerprint: string;
  state: 'pending' | 'firing' | 'resolved';
  severity: string;
  labels: AlertLabels;
  annotations: Record<string, string>;
  value: number;
  /** The numbers behind the verdict (rate, reference, window, p-value) where the rule gives them. */
  details: Record<string, number | string>;
  /** When this state began: active_at for pending, when it fired for firing, when it resolved for resolved. */
  since: string;
  active_at: string;
  /** Ids of the silences that mute it. */
  silenced_by: string[];
  /** The alert that inhibits it, or null. */
  inhibited_by: string | null;
  incident: string | null;
  /** The rule's action, as the rule file writes it. */
  action: Record<string, unknown> | null;
}

/** A live incident: alerts grouped for notification in this process. */
export interface IncidentReply {
  id: string;
  group_key: string;
  group_labels: AlertLabels;
  status: 'open' | 'resolved';
  tier: 'page' | 'ticket';
  opened_at: string;
  resolved_at: string | null;
  last_notified_at: string | null;
  notifications: number;
  alerts: { fingerprint: string; alertname: string; labels: AlertLabels; severity: string; state: string; value: number; since: string }[];
}

/** A silence in Alertmanager's shape (its field names are Alertmanager's, on purpose: docs/api.md "Naming"). */
export interface AlertmanagerSilence {
  id: string;
  matchers: { name: string; value: string; isRegex: boolean; isEqual: boolean }[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  createdAt: string;
  state?: 'pending' | 'active' | 'expired';
}

/** A silence created or expired in a window of the incident log (Alertmanager's names, with when it ended). */
export interface AlertmanagerSilenceLogged {
  id: string;
  createdAt: string | null;
  expiredAt: string | null;
  createdBy: string | null;
  comment: string | null;
  matchers: unknown;
  startsAt: string | null;
  endsAt: string | null;
  tenant: string | null;
}

/** An incident read back from the incident log, with its timeline. */
export interface IncidentHistoryItem {
  id: string;
  group_labels: AlertLabels;
  /** resolved; open (still open in this process); unfinished (the process stopped before it resolved). */
  status: 'open' | 'resolved' | 'unfinished';
  tier: 'page' | 'ticket';
  opened_at: string | null;
  resolved_at: string | null;
  notifications: number;
  alerts: { alertname: string; fingerprint: string; severity: string | null; labels: AlertLabels; first_firing_at: string | null; resolved_at: string | null; value: number | null }[];
  actions: { id: string; action: string; state: string; alertname: string | null; proposed_at: string; last_step_at: string; by: string | null }[];
  timeline: { ts: string; kind: string; alertname: string | null; tenant: string | null; detail: Record<string, unknown> }[];
}

/** `GET /v1/incidents?from&to`. */
export interface IncidentHistoryReply {
  incidents: IncidentHistoryItem[];
  silences: AlertmanagerSilenceLogged[];
}

export interface ActionReply {
  id: string;
  action: string;
  params: Record<string, string | number | boolean>;
  alert: { alertname: string; fingerprint: string; labels: AlertLabels; value: number; severity: string };
  incident: string | null;
  state: 'dry_run' | 'awaiting_approval' | 'approved' | 'sent' | 'answered' | 'failed' | 'no_endpoint' | 'rejected';
  proposed_at: string;
  approved_at: string | null;
  approved_by: string | null;
  /** Set when a person rejected (dismissed) the proposal: when, who, why. */
  rejected_at?: string | null;
  rejected_by?: string | null;
  reject_reason?: string | null;
  sent_at: string | null;
  answered_at: string | null;
  url: string | null;
  answer: { status: number; body_excerpt: string } | null;
  error: string | null;
}

/** `GET /v1/actions`. */
export interface ActionsReply {
  mode: 'dry_run' | 'approval' | 'auto';
  actions: ActionReply[];
}

export interface RuleReply {
  alert: string;
  severity: string;
  for: string;
  /** The rule's condition as the rule file writes it. */
  condition: Record<string, unknown>;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  action: Record<string, unknown> | null;
  /** Where the rule is written. */
  source: { file: string; line?: number };
  health: 'unknown' | 'ok' | 'err';
  last_error: string | null;
  last_evaluation: string | null;
  evaluation_time_ms: number | null;
  alerts: { pending: number; firing: number };
  /** What the last evaluation could judge: slices judged, slices without enough history yet. */
  coverage: { judged: number; without_reference: number } | null;
}

/** `GET /v1/rules`. */
export interface RulesReply {
  groups: { name: string; file: string; interval_ms: number; last_evaluation: string | null; evaluation_time_ms: number | null; rules: RuleReply[] }[];
}

// ---------- GET / POST /v1/session ----------

/** Who is signed in (`GET /v1/session`, `POST /v1/session`). */
export interface SessionReply {
  principal: { id: string; name: string; role: string; tenants: readonly string[] | null };
  /** key, session or anonymous (a server without keys). */
  via: string;
  keys_required: boolean;
  /** Sent back in `X-CSRF-Token` with every change made through the session; null without one. */
  csrf_token: string | null;
  expires_at: string | null;
}
