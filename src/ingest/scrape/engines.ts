/**
 * From an engine's own metric names to inferlens concepts. The table is written out in
 * docs/engines.md; keep the two in step.
 *
 * A concept is a name with its unit in it (`queue_length`, `ttft_seconds`, `gpu_memory_used_bytes`)
 * and a part that says how the value behaves:
 * - `gauge`: stored as is (after unit conversion: DCGM's 0–100 % becomes a 0–1 ratio, MiB become bytes);
 * - `counter`: cumulative; the scraper turns it into `<concept>_per_second`;
 * - `bucket` / `sum` / `count`: one histogram; the scraper stores per-interval bucket increases,
 *   `<concept>_count_per_second`, `<concept>_sum_per_second` and the interval mean `<concept>_mean`;
 * - `quantile`: a summary quantile, stored as a gauge with a `quantile` label.
 *
 * Mapping is pure: the same families always give the same samples, so it is tested on captures.
 */
import type { MetricFamily } from './parse.ts';
import { groupSeries, labelKey } from './parse.ts';

export const ENGINES = ['vllm', 'sglang', 'tgi', 'triton', 'nim', 'torchserve', 'kserve', 'dcgm'] as const;
export type Engine = (typeof ENGINES)[number];
/** What a scrape target says about its engine: a fixed one, or 'auto' (classify each family by its name). */
export type EngineSetting = 'auto' | Engine;

export type SamplePart = 'gauge' | 'counter' | 'bucket' | 'sum' | 'count' | 'quantile';

export interface MappedSample {
  concept: string;
  part: SamplePart;
  /** Normalised labels: model, model_version, gpu, gpu_uuid, reason, le, quantile, … plus `engine`. */
  labels: Record<string, string>;
  /** In the concept's unit. */
  value: number;
  /** The family it came from, for debugging. */
  source: string;
}

export interface MapResult {
  /** The engine with the most mapped families (the configured one when not 'auto'). */
  engine: Engine | undefined;
  samples: MappedSample[];
  /** Families no rule knows (python_gc_*, process_*, …): dropped, counted. */
  unmappedFamilies: number;
  /** The first MAX_UNMAPPED_NAMES of their names, in scrape order (for the targets page). */
  unmappedNames: string[];
  /** Samples that mapped onto a series already produced (kept the first), counted. */
  duplicates: number;
  /** NaN / ±Inf values dropped (a summary with no observations reports NaN quantiles). */
  nonFinite: number;
}

type RuleKind = 'gauge' | 'counter' | 'histogram' | 'quantiles' | 'sum' | 'count';

interface Rule {
  concept: string;
  kind: RuleKind;
  /** Multiplies values, and `le` bounds of histograms (µs → s: 1e-6; % → ratio: 0.01; MiB → bytes). */
  scale?: number;
  /** Histograms: keep per-bucket samples (default true). Size histograms keep only sum and count. */
  buckets?: boolean;
  /**
   * A deprecated alias: skip a series of this rule when the family with this (normalised) name has
   * a series for the same model. Per model, not per scrape: a scrape that holds two models, one
   * from a server that still writes only the old name, keeps both.
   */
  unlessPresent?: string;
  /** Fixed labels added to every sample, e.g. `reason: "http_5xx"`. */
  labels?: Record<string, string>;
}

const MIB = 1024 * 1024;
const US = 1e-6;
const PERCENT = 0.01;

const g = (concept: string, scale?: number, extra: Partial<Rule> = {}): Rule => ({ concept, kind: 'gauge', scale, ...extra });
const c = (concept: string, scale?: number, extra: Partial<Rule> = {}): Rule => ({ concept, kind: 'counter', scale, ...extra });
const h = (concept: string, extra: Partial<Rule> = {}): Rule => ({ concept, kind: 'histogram', ...extra });
/** A histogram of sizes (tokens, batch size): sum and count only, no per-bucket samples. */
const hs = (concept: string): Rule => ({ concept, kind: 'histogram', buckets: false });

/** vLLM (V0 and V1) and NVIDIA NIM, which exposes the same names without the `vllm:` prefix. Counter `_total` is stripped. */
const VLLM: Record<string, Rule[]> = {
  num_requests_waiting: [g('queue_length')],
  num_requests_running: [g('running_requests')],
  num_requests_swapped: [g('swapped_requests')],
  num_request_max: [g('max_running_requests')],
  kv_cache_usage_perc: [g('kv_cache_usage_ratio')],
  gpu_cache_usage_perc: [g('kv_cache_usage_ratio', undefined, { unlessPresent: 'kv_cache_usage_perc' })],
  num_preemptions: [c('preemptions')],
  prompt_tokens: [c('prompt_tokens')],
  generation_tokens: [c('generation_tokens')],
  request_success: [c('request_success')],
  request_failure: [c('request_failure')],
  request_finish: [c('request_finished')],
  prefix_cache_queries: [c('prefix_cache_queried_tokens')],
  prefix_cache_hits: [c('prefix_cache_hit_tokens')],
  gpu_prefix_cache_queries: [c('prefix_cache_queried_tokens', undefined, { unlessPresent: 'prefix_cache_queries' })],
  gpu_prefix_cache_hits: [c('prefix_cache_hit_tokens', undefined, { unlessPresent: 'prefix_cache_hits' })],
  time_to_first_token_seconds: [h('ttft_seconds')],
  time_per_output_token_seconds: [h('tpot_seconds')],
  inter_token_latency_seconds: [h('inter_token_latency_seconds')],
  e2e_request_latency_seconds: [h('request_latency_seconds')],
  request_queue_time_seconds: [h('queue_time_seconds')],
  request_inference_time_seconds: [h('inference_time_seconds')],
  request_prefill_time_seconds: [h('prefill_time_seconds')],
  request_decode_time_seconds: [h('decode_time_seconds')],
  request_prompt_tokens: [hs('request_prompt_tokens')],
  request_generation_tokens: [hs('request_generation_tokens')],
  iteration_tokens_total: [hs('batch_tokens')],
};

const SGLANG: Record<string, Rule[]> = {
  num_queue_reqs: [g('queue_length')],
  num_running_reqs: [g('running_requests')],
  token_usage: [g('kv_cache_usage_ratio')],
  cache_hit_rate: [g('prefix_cache_hit_ratio')],
  prompt_tokens: [c('prompt_tokens')],
  generation_tokens: [c('generation_tokens')],
  cached_tokens: [c('prefix_cache_hit_tokens')],
  num_requests: [c('requests')],
  num_aborted_requests: [c('request_failure', undefined, { labels: { reason: 'abort' } })],
  time_to_first_token_seconds: [h('ttft_seconds')],
  inter_token_latency_seconds: [h('inter_token_latency_seconds')],
  e2e_request_latency_seconds: [h('request_latency_seconds')],
  queue_time_seconds: [h('queue_time_seconds')],
  time_per_output_token_seconds: [h('tpot_seconds')],
  prompt_tokens_histogram: [hs('request_prompt_tokens')],
  generation_tokens_histogram: [hs('request_generation_tokens')],
};

/** Hugging Face TGI (Rust metrics-exporter-prometheus; durations in seconds). */
const TGI: Record<string, Rule[]> = {
  tgi_queue_size: [g('queue_length')],
  tgi_batch_current_size: [g('batch_size')],
  tgi_request_count: [c('requests')],
  tgi_request_success: [c('request_success')],
  tgi_request_failure: [c('request_failure')],
  tgi_request_duration: [h('request_latency_seconds')],
  tgi_request_queue_duration: [h('queue_time_seconds')],
  tgi_request_inference_duration: [h('inference_time_seconds')],
  tgi_request_mean_time_per_token_duration: [h('tpot_seconds')],
  tgi_request_input_length: [hs('request_prompt_tokens')],
  tgi_request_generated_tokens: [hs('request_generation_tokens')],
  tgi_batch_next_size: [hs('batch_size')],
};

/**
 * NVIDIA Triton. Latency counters are cumulative µs; their count is `nv_inference_request_success`
 * (Triton's docs: summary `_count` equals it), so the scraper derives the interval mean from the
 * pair. Summaries only add quantiles (their sum/count repeat the counters). Average batch size is
 * Δnv_inference_count / Δnv_inference_exec_count.
 */
const TRITON: Record<string, Rule[]> = {
  nv_inference_pending_request_count: [g('queue_length')],
  nv_inference_request_success: [
    c('request_success'),
    { concept: 'request_latency_seconds', kind: 'count' },
    { concept: 'queue_time_seconds', kind: 'count' },
    { concept: 'compute_time_seconds', kind: 'count' },
  ],
  nv_inference_request_failure: [c('request_failure')],
  nv_inference_count: [c('inferences'), { concept: 'batch_size', kind: 'sum' }],
  nv_inference_exec_count: [c('executions'), { concept: 'batch_size', kind: 'count' }],
  nv_inference_request_duration_us: [{ concept: 'request_latency_seconds', kind: 'sum', scale: US }],
  nv_inference_queue_duration_us: [{ concept: 'queue_time_seconds', kind: 'sum', scale: US }],
  nv_inference_compute_infer_duration_us: [{ concept: 'compute_time_seconds', kind: 'sum', scale: US }],
  nv_inference_request_summary_us: [{ concept: 'request_latency_seconds', kind: 'quantiles', scale: US }],
  nv_inference_queue_summary_us: [{ concept: 'queue_time_seconds', kind: 'quantiles', scale: US }],
  nv_inference_compute_infer_summary_us: [{ concept: 'compute_time_seconds', kind: 'quantiles', scale: US }],
  nv_inference_first_response_histogram_ms: [h('ttft_seconds', { scale: 1e-3 })],
  nv_gpu_utilization: [g('gpu_utilization_ratio')],
  nv_gpu_memory_used_bytes: [g('gpu_memory_used_bytes')],
  nv_gpu_memory_total_bytes: [g('gpu_memory_total_bytes')],
  nv_gpu_power_usage: [g('gpu_power_watts')],
  nv_gpu_power_limit: [g('gpu_power_limit_watts')],
  nv_energy_consumption: [c('gpu_energy_joules')],
  nv_cpu_utilization: [g('cpu_utilization_ratio')],
  nv_cpu_memory_used_bytes: [g('memory_used_bytes')],
  nv_cpu_memory_total_bytes: [g('memory_total_bytes')],
};

/** TorchServe: `ts_*` counters (µs) per model, CamelCase host gauges in %, MB (MiB in practice). */
const TORCHSERVE: Record<string, Rule[]> = {
  ts_inference_requests: [c('requests'), { concept: 'request_latency_seconds', kind: 'count' }, { concept: 'queue_time_seconds', kind: 'count' }],
  ts_inference_latency_microseconds: [{ concept: 'request_latency_seconds', kind: 'sum', scale: US }],
  ts_queue_latency_microseconds: [{ concept: 'queue_time_seconds', kind: 'sum', scale: US }],
  Requests2XX: [c('request_success')],
  Requests4XX: [c('request_failure', undefined, { labels: { reason: 'http_4xx' } })],
  Requests5XX: [c('request_failure', undefined, { labels: { reason: 'http_5xx' } })],
  GPUUtilization: [g('gpu_utilization_ratio', PERCENT)],
  GPUMemoryUsed: [g('gpu_memory_used_bytes', MIB)],
  CPUUtilization: [g('cpu_utilization_ratio', PERCENT)],
  MemoryUsed: [g('memory_used_bytes', MIB)],
  MemoryAvailable: [g('memory_available_bytes', MIB)],
};

/** KServe's Python model servers (prometheus_client default buckets, seconds). */
const KSERVE: Record<string, Rule[]> = {
  request_preprocess_seconds: [h('preprocess_time_seconds')],
  request_predict_seconds: [h('inference_time_seconds')],
  request_postprocess_seconds: [h('postprocess_time_seconds')],
  request_explain_seconds: [h('explain_time_seconds')],
};

/** NVIDIA DCGM exporter. Utilisation fields are 0–100 %; PROF fields are already 0–1; FB in MiB; energy in mJ. */
const DCGM: Record<string, Rule[]> = {
  DCGM_FI_DEV_GPU_UTIL: [g('gpu_utilization_ratio', PERCENT)],
  DCGM_FI_DEV_MEM_COPY_UTIL: [g('gpu_memory_bandwidth_utilization_ratio', PERCENT)],
  DCGM_FI_DEV_FB_USED: [g('gpu_memory_used_bytes', MIB)],
  DCGM_FI_DEV_FB_FREE: [g('gpu_memory_free_bytes', MIB)],
  DCGM_FI_DEV_FB_TOTAL: [g('gpu_memory_total_bytes', MIB)],
  DCGM_FI_DEV_POWER_USAGE: [g('gpu_power_watts')],
  DCGM_FI_DEV_POWER_MGMT_LIMIT: [g('gpu_power_limit_watts')],
  DCGM_FI_DEV_GPU_TEMP: [g('gpu_temperature_celsius')],
  DCGM_FI_DEV_MEMORY_TEMP: [g('gpu_memory_temperature_celsius')],
  DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: [c('gpu_energy_joules', 1e-3)],
  DCGM_FI_DEV_SM_CLOCK: [g('gpu_sm_clock_hertz', 1e6)],
  DCGM_FI_DEV_MEM_CLOCK: [g('gpu_memory_clock_hertz', 1e6)],
  DCGM_FI_DEV_XID_ERRORS: [g('gpu_last_xid_error')],
  DCGM_FI_PROF_GR_ENGINE_ACTIVE: [g('gpu_graphics_engine_active_ratio')],
  DCGM_FI_PROF_SM_ACTIVE: [g('gpu_sm_active_ratio')],
  DCGM_FI_PROF_SM_OCCUPANCY: [g('gpu_sm_occupancy_ratio')],
  DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: [g('gpu_tensor_active_ratio')],
  DCGM_FI_PROF_DRAM_ACTIVE: [g('gpu_dram_active_ratio')],
  DCGM_FI_PROF_PCIE_RX_BYTES: [c('gpu_pcie_rx_bytes')],
  DCGM_FI_PROF_PCIE_TX_BYTES: [c('gpu_pcie_tx_bytes')],
};

const RULES: Record<Engine, Record<string, Rule[]>> = {
  vllm: VLLM,
  nim: VLLM,
  sglang: SGLANG,
  tgi: TGI,
  triton: TRITON,
  torchserve: TORCHSERVE,
  kserve: KSERVE,
  dcgm: DCGM,
};

/**
 * Source label → inferlens label. Labels not listed are dropped: they are build info, host names
 * already known from the target, or unbounded (worker ids), and every kept label multiplies series.
 */
const LABELS: Record<string, string> = {
  model_name: 'model',
  served_model_name: 'model',
  model: 'model',
  ModelName: 'model',
  version: 'model_version',
  model_version: 'model_version',
  gpu: 'gpu',
  gpu_uuid: 'gpu_uuid',
  UUID: 'gpu_uuid',
  uuid: 'gpu_uuid',
  modelName: 'gpu_model',
  finished_reason: 'reason',
  err: 'reason',
  reason: 'reason',
  method: 'method',
  source: 'source',
  engine: 'engine_index',
  tp_rank: 'tp_rank',
  dp_rank: 'dp_rank',
  pod: 'pod',
  namespace: 'namespace',
  container: 'container',
  Hostname: 'hostname',
};

/** Unmapped family names kept per scrape for the targets page; the count has them all. */
const MAX_UNMAPPED_NAMES = 100;

/** The model a source series is for (its model label, as `normaliseLabels` picks it); '' when none. */
function modelOf(labels: Record<string, string>): string {
  for (const [k, v] of Object.entries(labels)) if (LABELS[k] === 'model' && v !== '') return v;
  return '';
}

/** Names the unprefixed NIM / KServe tables answer to (other unprefixed names stay unmapped). */
const NIM_NAMES: ReadonlySet<string> = new Set(Object.keys(VLLM));
const TORCHSERVE_NAMES: ReadonlySet<string> = new Set(Object.keys(TORCHSERVE).filter((k) => !k.startsWith('ts_')));

/** Which engine a family name belongs to, and its name inside that engine's table. */
export function classifyFamily(family: Pick<MetricFamily, 'name' | 'type'>): { engine: Engine; name: string } | undefined {
  const n = family.name;
  const base = family.type === 'counter' ? n.replace(/_total$/, '') : n;
  const v = base.lastIndexOf('vllm:');
  if (v >= 0) return { engine: 'vllm', name: base.slice(v + 5) }; // vllm:, ray_vllm:, …
  if (base.startsWith('sglang:')) return { engine: 'sglang', name: base.slice(7) };
  if (base.startsWith('DCGM_FI_')) return { engine: 'dcgm', name: n };
  if (base.startsWith('nv_')) return { engine: 'triton', name: n };
  if (base.startsWith('tgi_')) return { engine: 'tgi', name: n };
  if (base.startsWith('ts_')) return { engine: 'torchserve', name: base };
  if (TORCHSERVE_NAMES.has(n)) return { engine: 'torchserve', name: n };
  if (Object.hasOwn(KSERVE, n)) return { engine: 'kserve', name: n };
  if (NIM_NAMES.has(base)) return { engine: 'nim', name: base };
  return undefined;
}

/** The engine most families of a scrape belong to (DCGM only when nothing else is there). */
export function detectEngine(families: readonly MetricFamily[]): Engine | undefined {
  const counts = new Map<Engine, number>();
  for (const f of families) {
    const cls = classifyFamily(f);
    if (cls && Object.hasOwn(RULES[cls.engine], cls.name)) counts.set(cls.engine, (counts.get(cls.engine) ?? 0) + 1);
  }
  let best: Engine | undefined;
  let bestN = 0;
  for (const [e, n] of counts) {
    const weight = e === 'dcgm' ? n / 1000 : n;
    if (weight > bestN) {
      best = e;
      bestN = weight;
    }
  }
  return best;
}

function normaliseLabels(source: Record<string, string>, engine: Engine, extra?: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { engine };
  for (const [k, v] of Object.entries(source)) {
    const to = LABELS[k];
    if (to !== undefined && v !== '' && out[to] === undefined) out[to] = v;
  }
  if (extra) Object.assign(out, extra);
  return out;
}

/**
 * A bucket bound as a label value. Unscaled bounds print exactly (`0.09852612533569335` stays);
 * scaled ones are rounded to 12 significant digits so `100 ms × 1e-3` prints `0.1`.
 */
function formatBound(le: number, scale: number): string {
  if (le === Infinity) return '+Inf';
  return scale === 1 ? String(le) : String(Number((le * scale).toPrecision(12)));
}

/** Cumulative counter value of a counter family's sample: the `_total` (or bare) one, never `_created`. */
function isCounterValueSample(family: MetricFamily, sampleName: string): boolean {
  return !sampleName.endsWith('_created') && (sampleName === family.name || sampleName === `${family.name}_total`);
}

/**
 * Maps parsed families to concept samples. With `engine: 'auto'` every family is classified by its
 * own name (an endpoint may carry several engines, e.g. Triton plus DCGM in one pod); with a fixed
 * engine only that engine's table is used.
 */
export function mapFamilies(families: readonly MetricFamily[], engine: EngineSetting = 'auto'): MapResult {
  const result: MapResult = {
    engine: engine === 'auto' ? detectEngine(families) : engine,
    samples: [],
    unmappedFamilies: 0,
    unmappedNames: [],
    duplicates: 0,
    nonFinite: 0,
  };
  // Per family (table/name): the models it has series for, for the deprecated-alias rule.
  const present = new Map<string, Set<string>>();
  const classified = families.map((f) => {
    let cls = classifyFamily(f);
    if (cls && engine !== 'auto' && cls.engine !== engine) {
      // vLLM and NIM share one table: a target configured as either reads both spellings.
      const shared = (engine === 'nim' && cls.engine === 'vllm') || (engine === 'vllm' && cls.engine === 'nim');
      cls = shared ? { engine, name: cls.name } : undefined;
    }
    if (cls) {
      const key = `${cls.engine === 'nim' ? 'vllm' : cls.engine}/${cls.name}`;
      const models = present.get(key) ?? new Set<string>();
      for (const s of f.samples) models.add(modelOf(s.labels));
      present.set(key, models);
    }
    return cls;
  });
  const aliasShadowed = (rule: Rule, tableKey: string, labels: Record<string, string>): boolean =>
    rule.unlessPresent !== undefined && (present.get(`${tableKey}/${rule.unlessPresent}`)?.has(modelOf(labels)) ?? false);
  const seen = new Set<string>();
  const push = (s: MappedSample): void => {
    if (!Number.isFinite(s.value)) {
      result.nonFinite++;
      return;
    }
    const key = `${s.concept}\u0002${s.part}\u0002${labelKey(s.labels)}`;
    if (seen.has(key)) {
      result.duplicates++;
      return;
    }
    seen.add(key);
    result.samples.push(s);
  };

  families.forEach((family, i) => {
    const cls = classified[i];
    const rules = cls ? RULES[cls.engine][cls.name] : undefined;
    if (!cls || !rules) {
      result.unmappedFamilies++;
      if (result.unmappedNames.length < MAX_UNMAPPED_NAMES) result.unmappedNames.push(family.name);
      return;
    }
    const tableKey = cls.engine === 'nim' ? 'vllm' : cls.engine;
    for (const rule of rules) {
      const scale = rule.scale ?? 1;
      const base = { concept: rule.concept, source: family.name };
      if (rule.kind === 'histogram' || rule.kind === 'quantiles') {
        for (const series of groupSeries(family)) {
          if (aliasShadowed(rule, tableKey, series.labels)) continue;
          const labels = normaliseLabels(series.labels, cls.engine, rule.labels);
          if (rule.kind === 'quantiles') {
            for (const q of series.quantiles) push({ ...base, part: 'quantile', labels: { ...labels, quantile: String(q.quantile) }, value: q.value * scale });
            continue;
          }
          if (rule.buckets !== false)
            for (const b of series.buckets) push({ ...base, part: 'bucket', labels: { ...labels, le: formatBound(b.le, scale) }, value: b.count });
          if (series.sum !== undefined) push({ ...base, part: 'sum', labels, value: series.sum * scale });
          if (series.count !== undefined) push({ ...base, part: 'count', labels, value: series.count });
        }
        continue;
      }
      const part: SamplePart = rule.kind;
      for (const s of family.samples) {
        if (family.type === 'counter' && !isCounterValueSample(family, s.name)) continue;
        if (family.type !== 'counter' && s.name !== family.name) continue;
        if (aliasShadowed(rule, tableKey, s.labels)) continue;
        push({ ...base, part, labels: normaliseLabels(s.labels, cls.engine, rule.labels), value: part === 'count' ? s.value : s.value * scale });
      }
    }
  });
  return result;
}

/** Every concept name the tables can produce, with its part; docs/engines.md lists them. */
export function concepts(): { concept: string; kind: RuleKind }[] {
  const out = new Map<string, RuleKind>();
  for (const table of Object.values(RULES))
    for (const rules of Object.values(table)) for (const r of rules) if (!out.has(r.concept)) out.set(r.concept, r.kind);
  return [...out].map(([concept, kind]) => ({ concept, kind }));
}
