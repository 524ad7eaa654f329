/** The release comparison's reply (`POST /v1/compare`). */
import type { Filters } from '../vocabulary.ts';

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
