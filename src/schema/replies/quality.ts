/** Replies of the quality routes: summary, drift, feedback, golden results. */
import type { Filters } from '../vocabulary.ts';
import type { Row, WindowText } from './runtime.ts';

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
