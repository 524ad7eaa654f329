/** The cost reply (`POST /v1/cost`). */

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
