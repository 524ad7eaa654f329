// Every capture under test/fixtures/prometheus parses without a warning and maps; the counts below
// were read off the files (`grep -c '^# TYPE'`, non-comment non-blank lines) and the values are the
// ones printed in the files, converted by hand where the unit changes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MapResult, MappedSample } from './engines.ts';
import { classifyFamily, concepts, detectEngine, mapFamilies } from './engines.ts';
import { parseExposition } from './parse.ts';
import { createRateState } from './rates.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'prometheus');

function load(rel: string): { families: ReturnType<typeof parseExposition>; mapped: MapResult } {
  const parsed = parseExposition(readFileSync(join(ROOT, rel), 'utf8'));
  return { families: parsed, mapped: mapFamilies(parsed.families) };
}

function pick(mapped: MapResult, concept: string, part: MappedSample['part'], labels: Record<string, string> = {}): number[] {
  return mapped.samples
    .filter((s) => s.concept === concept && s.part === part && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .map((s) => s.value);
}
function one(mapped: MapResult, concept: string, part: MappedSample['part'], labels: Record<string, string> = {}): number {
  const v = pick(mapped, concept, part, labels);
  expect(v, `${concept}/${part} ${JSON.stringify(labels)}`).toHaveLength(1);
  return v[0]!;
}

const ALL = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(ROOT, d.name))
      .filter((f) => f.endsWith('.txt'))
      .map((f) => `${d.name}/${f}`),
  );

describe('every capture parses and maps', () => {
  // [file, families, samples, engine, mapped samples]
  const TABLE: [string, number, number, string, number][] = [
    ['vllm/datadog-vllm-metrics-curated-fixture.txt', 50, 185, 'vllm', 85],
    ['vllm/synthetic-from-definitions-vllm-v1.txt', 12, 51, 'vllm', 46],
    ['triton/datadog-nvidia_triton-metrics.txt', 32, 377, 'triton', 233],
    ['tgi/datadog-hugging_face_tgi-payload.txt', 24, 1888, 'tgi', 163],
    ['tgi/synthetic-from-definitions-tgi.txt', 6, 12, 'tgi', 12],
    ['dcgm/datadog-dcgm-metrics-fixture.txt', 38, 38, 'dcgm', 20],
    ['sglang/datadog-sglang-metrics.txt', 25, 43, 'sglang', 28],
    ['nim/datadog-nvidia_nim-metrics.txt', 24, 111, 'nim', 61],
    ['torchserve/datadog-torchserve-openmetrics.txt', 21, 45, 'torchserve', 33],
    ['kserve/synthetic-from-definitions-kserve.txt', 3, 22, 'kserve', 21],
  ];

  it('the table covers every fixture file', () => {
    expect(TABLE.map((t) => t[0]).sort()).toEqual([...ALL].sort());
  });

  it.each(TABLE)('%s: %i families, %i samples, engine %s, %i mapped', (file, families, samples, engine, mappedCount) => {
    const { families: parsed, mapped } = load(file);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.families).toHaveLength(families);
    expect(parsed.sampleCount).toBe(samples);
    expect(mapped.engine).toBe(engine);
    expect(mapped.samples).toHaveLength(mappedCount);
    expect(mapped.duplicates).toBe(0);
    for (const s of mapped.samples) {
      expect(s.concept).toMatch(/^[a-z_][a-z0-9_]*$/);
      expect(Number.isFinite(s.value)).toBe(true);
      expect(s.labels.engine).toBe(engine);
    }
  });
});

describe('vLLM', () => {
  it('Datadog fixture (V0 names plus newer ones)', () => {
    const { mapped } = load('vllm/datadog-vllm-metrics-curated-fixture.txt');
    const m = { model: 'facebook/opt-125m' };
    expect(one(mapped, 'queue_length', 'gauge', m)).toBe(0); // vllm:num_requests_waiting 0.0
    expect(one(mapped, 'running_requests', 'gauge', m)).toBe(0);
    // gpu_cache_usage_perc is the deprecated alias of kv_cache_usage_perc; both are in the file: one series.
    expect(one(mapped, 'kv_cache_usage_ratio', 'gauge', m)).toBe(0);
    expect(one(mapped, 'prompt_tokens', 'counter', m)).toBe(5);
    expect(one(mapped, 'generation_tokens', 'counter', m)).toBe(7);
    expect(one(mapped, 'request_success', 'counter', { ...m, reason: 'length' })).toBe(1);
    expect(one(mapped, 'ttft_seconds', 'sum', m)).toBe(0.31326723098754883);
    expect(one(mapped, 'ttft_seconds', 'count', m)).toBe(1);
    expect(one(mapped, 'queue_time_seconds', 'sum', m)).toBe(7.358146831393242e-5);
    expect(one(mapped, 'prefix_cache_hit_tokens', 'counter', m)).toBe(64);
    // TTFT buckets 0.001 … 10.0 plus +Inf in the V0 part of the file.
    const le = mapped.samples.filter((s) => s.concept === 'ttft_seconds' && s.part === 'bucket').map((s) => s.labels.le);
    expect(le[0]).toBe('0.001');
    expect(le.at(-1)).toBe('+Inf');
    // Token histograms keep sum/count only.
    expect(pick(mapped, 'request_prompt_tokens', 'bucket')).toEqual([]);
  });

  it('V1 synthetic: engine index kept apart from the engine name, reasons kept', () => {
    const { mapped } = load('vllm/synthetic-from-definitions-vllm-v1.txt');
    const m = { model: 'meta-llama/Llama-3.1-8B-Instruct', engine_index: '0' };
    expect(one(mapped, 'queue_length', 'gauge', m)).toBe(12);
    expect(one(mapped, 'running_requests', 'gauge', m)).toBe(7);
    expect(one(mapped, 'kv_cache_usage_ratio', 'gauge', m)).toBe(0.83);
    expect(pick(mapped, 'request_success', 'counter').sort((a, b) => a - b)).toEqual([3, 38, 410]);
    expect(one(mapped, 'request_success', 'counter', { reason: 'abort' })).toBe(3);
    expect(pick(mapped, 'ttft_seconds', 'bucket')).toHaveLength(23);
    expect(one(mapped, 'ttft_seconds', 'bucket', { le: '0.1' })).toBe(355);
    expect(one(mapped, 'batch_tokens', 'sum', m)).toBe(278255);
    // The `_created` gauge family is not a concept.
    expect(mapped.unmappedFamilies).toBe(1);
  });

  it('Ray Serve prefix (ray_vllm:) maps like vllm:', () => {
    const r = parseExposition('# TYPE ray_vllm:num_requests_waiting gauge\nray_vllm:num_requests_waiting{model_name="m",WorkerId="abc"} 4\n');
    const mapped = mapFamilies(r.families);
    expect(mapped.engine).toBe('vllm');
    expect(mapped.samples).toEqual([
      { concept: 'queue_length', part: 'gauge', labels: { engine: 'vllm', model: 'm' }, value: 4, source: 'ray_vllm:num_requests_waiting' },
    ]);
  });

  it('the deprecated KV-cache alias is dropped per model, not per scrape (two models behind one endpoint)', () => {
    // Ray Serve in front of two vLLM deployments: "new" writes both gauges, "old" (an older vLLM)
    // only gpu_cache_usage_perc. Per scrape, "old" lost its KV-cache usage entirely.
    const r = parseExposition(
      [
        '# TYPE ray_vllm:kv_cache_usage_perc gauge',
        'ray_vllm:kv_cache_usage_perc{model_name="new",engine="0"} 0.42',
        '# TYPE ray_vllm:gpu_cache_usage_perc gauge',
        'ray_vllm:gpu_cache_usage_perc{model_name="new",engine="0"} 0.42',
        'ray_vllm:gpu_cache_usage_perc{model_name="old",engine="0"} 0.77',
        '# TYPE ray_vllm:gpu_prefix_cache_hits counter',
        'ray_vllm:gpu_prefix_cache_hits_total{model_name="old"} 12',
        '# TYPE ray_vllm:prefix_cache_hits counter',
        'ray_vllm:prefix_cache_hits_total{model_name="new"} 30',
        '',
      ].join('\n'),
    );
    const mapped = mapFamilies(r.families);
    expect(pick(mapped, 'kv_cache_usage_ratio', 'gauge', { model: 'new' })).toEqual([0.42]);
    expect(pick(mapped, 'kv_cache_usage_ratio', 'gauge', { model: 'old' })).toEqual([0.77]);
    expect(mapped.duplicates).toBe(0);
    expect(pick(mapped, 'prefix_cache_hit_tokens', 'counter').sort()).toEqual([12, 30]);
  });

  it('OpenMetrics counter spelling (TYPE without _total) maps the same', () => {
    const r = parseExposition(
      '# TYPE vllm:prompt_tokens counter\nvllm:prompt_tokens_total{model_name="m"} 9\nvllm:prompt_tokens_created{model_name="m"} 1.7e9\n# EOF\n',
    );
    expect(mapFamilies(r.families).samples.map((s) => [s.concept, s.value])).toEqual([['prompt_tokens', 9]]);
  });
});

describe('Triton', () => {
  const { mapped } = load('triton/datadog-nvidia_triton-metrics.txt');
  const gpu = { gpu_uuid: 'GPU-951eeeeb-d284-d263-688e-d98a5306389b' };
  const densenet = { model: 'densenet_onnx', model_version: '1' };
  it('GPU and CPU gauges', () => {
    expect(one(mapped, 'gpu_memory_used_bytes', 'gauge', gpu)).toBe(266338304); // nv_gpu_memory_used_bytes
    expect(one(mapped, 'gpu_memory_total_bytes', 'gauge', gpu)).toBe(16106127360);
    expect(one(mapped, 'gpu_utilization_ratio', 'gauge', gpu)).toBe(0);
    expect(one(mapped, 'gpu_power_watts', 'gauge', gpu)).toBe(32.09);
    expect(one(mapped, 'gpu_power_limit_watts', 'gauge', gpu)).toBe(70);
    expect(one(mapped, 'gpu_energy_joules', 'counter', gpu)).toBe(4879631.328000044);
    expect(one(mapped, 'memory_used_bytes', 'gauge')).toBe(2249916416);
    expect(one(mapped, 'memory_total_bytes', 'gauge')).toBe(33164935168);
  });
  it('per-model counters, latency sum (µs → s) paired with the success count, quantiles', () => {
    expect(pick(mapped, 'queue_length', 'gauge')).toHaveLength(8); // 8 models, all 0 pending
    expect(one(mapped, 'request_success', 'counter', densenet)).toBe(3);
    expect(one(mapped, 'request_latency_seconds', 'count', densenet)).toBe(3);
    // nv_inference_request_duration_us 1327965 µs = 1.327965 s
    expect(one(mapped, 'request_latency_seconds', 'sum', densenet)).toBeCloseTo(1.327965, 9);
    expect(one(mapped, 'queue_time_seconds', 'sum', densenet)).toBeCloseTo(0.000145, 12);
    expect(one(mapped, 'compute_time_seconds', 'sum', densenet)).toBeCloseTo(1.326831, 9);
    // batch size: 3 inferences in 3 executions
    expect(one(mapped, 'batch_size', 'sum', densenet)).toBe(3);
    expect(one(mapped, 'batch_size', 'count', densenet)).toBe(3);
    // summary quantile 0.99 = 3 µs (hand-edited values in the capture)
    expect(one(mapped, 'request_latency_seconds', 'quantile', { ...densenet, quantile: '0.99' })).toBeCloseTo(3e-6, 15);
  });
  it('first-response histogram in ms becomes ttft_seconds with scaled bounds', () => {
    const r = parseExposition(
      '# TYPE nv_inference_first_response_histogram_ms histogram\n' +
        'nv_inference_first_response_histogram_ms_count{model="m",version="1"} 37\n' +
        'nv_inference_first_response_histogram_ms_sum{model="m",version="1"} 10771\n' +
        'nv_inference_first_response_histogram_ms{model="m",version="1", le="100"} 8\n' +
        'nv_inference_first_response_histogram_ms{model="m",version="1", le="+Inf"} 37\n',
    );
    const m = mapFamilies(r.families);
    expect(pick(m, 'ttft_seconds', 'bucket')).toEqual([8, 37]);
    expect(m.samples.filter((s) => s.part === 'bucket').map((s) => s.labels.le)).toEqual(['0.1', '+Inf']);
    expect(one(m, 'ttft_seconds', 'sum')).toBeCloseTo(10.771, 9);
  });
});

describe('TGI', () => {
  it('real capture', () => {
    const { mapped } = load('tgi/datadog-hugging_face_tgi-payload.txt');
    expect(one(mapped, 'queue_length', 'gauge')).toBe(0);
    expect(one(mapped, 'batch_size', 'gauge')).toBe(0);
    expect(one(mapped, 'requests', 'counter')).toBe(111);
    expect(one(mapped, 'request_success', 'counter')).toBe(109);
    expect(one(mapped, 'request_failure', 'counter', { reason: 'validation' })).toBe(2);
    expect(one(mapped, 'request_latency_seconds', 'sum')).toBe(541.2140316159999);
    expect(one(mapped, 'request_latency_seconds', 'count')).toBe(109);
    expect(pick(mapped, 'request_latency_seconds', 'bucket')).toHaveLength(36); // 35 bounds + +Inf
    // tgi_batch_next_size has 1024 buckets: only its sum and count are kept (109 requests in 16 batches).
    expect(pick(mapped, 'batch_size', 'bucket')).toEqual([]);
    expect(one(mapped, 'batch_size', 'sum')).toBe(109);
    expect(one(mapped, 'batch_size', 'count')).toBe(16);
  });
  it('synthetic: failure reasons and non-zero gauges', () => {
    const { mapped } = load('tgi/synthetic-from-definitions-tgi.txt');
    expect(one(mapped, 'queue_length', 'gauge')).toBe(23);
    expect(one(mapped, 'batch_size', 'gauge')).toBe(32);
    expect(one(mapped, 'request_failure', 'counter', { reason: 'overloaded' })).toBe(17);
    expect(pick(mapped, 'request_failure', 'counter')).toHaveLength(3);
    expect(one(mapped, 'queue_time_seconds', 'bucket', { le: '0.09852612533569335' })).toBe(300);
  });
});

describe('DCGM', () => {
  const { mapped } = load('dcgm/datadog-dcgm-metrics-fixture.txt');
  const t4 = { gpu: '0', gpu_uuid: 'GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e', gpu_model: 'Tesla T4' };
  it('percent → ratio, MiB → bytes, mJ → J, MHz → Hz', () => {
    expect(one(mapped, 'gpu_utilization_ratio', 'gauge', t4)).toBe(0 / 100); // DCGM_FI_DEV_GPU_UTIL 0
    expect(one(mapped, 'gpu_power_watts', 'gauge', t4)).toBe(8.969); // 8.969000
    expect(one(mapped, 'gpu_temperature_celsius', 'gauge', t4)).toBe(25);
    expect(one(mapped, 'gpu_memory_free_bytes', 'gauge', t4)).toBe(15109 * 1048576);
    expect(one(mapped, 'gpu_memory_used_bytes', 'gauge', t4)).toBe(0);
    expect(one(mapped, 'gpu_memory_total_bytes', 'gauge', { gpu_uuid: 'GPU-9ef1b6d0-3643-5dd7-b823-c0ec20dcf2d5' })).toBe(15109 * 1048576);
    expect(one(mapped, 'gpu_energy_joules', 'counter', t4)).toBeCloseTo(128996.013, 6); // 128996013 mJ
    expect(one(mapped, 'gpu_sm_clock_hertz', 'gauge', t4)).toBe(300e6);
    // The A10G pod sample keeps its Kubernetes labels.
    expect(one(mapped, 'gpu_dram_active_ratio', 'gauge', { pod: 'ray-1111111', namespace: 'ray-llm', container: 'ray-worker' })).toBe(0.000003);
  });
  it('a non-zero utilisation is divided by 100', () => {
    const r = parseExposition('# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-x"} 87\n');
    expect(one(mapFamilies(r.families), 'gpu_utilization_ratio', 'gauge', { gpu: '1' })).toBe(0.87);
  });
});

describe('SGLang, NIM, TorchServe, KServe', () => {
  it('SGLang', () => {
    const { mapped } = load('sglang/datadog-sglang-metrics.txt');
    const m = { model: 'facebook/opt-125m' };
    expect(one(mapped, 'queue_length', 'gauge', { ...m, tp_rank: '0' })).toBe(0);
    expect(one(mapped, 'kv_cache_usage_ratio', 'gauge', m)).toBe(0.25);
    expect(one(mapped, 'prefix_cache_hit_ratio', 'gauge', m)).toBe(0.2);
    expect(one(mapped, 'generation_tokens', 'counter', m)).toBe(32);
    expect(one(mapped, 'ttft_seconds', 'sum', m)).toBe(0.02);
    expect(one(mapped, 'ttft_seconds', 'bucket', { ...m, le: '0.1' })).toBe(1);
    expect(one(mapped, 'inter_token_latency_seconds', 'count', m)).toBe(31);
    // Families no table knows are counted and named (the targets page lists them).
    expect(mapped.unmappedNames).toContain('sglang:gen_throughput');
    expect(mapped.unmappedNames).toHaveLength(mapped.unmappedFamilies);
  });
  it('SGLang time per output token (written from its metric definition: a histogram with model_name) maps to tpot_seconds', () => {
    const r = parseExposition(
      [
        '# HELP sglang:time_per_output_token_seconds Histogram of time per output token in seconds.',
        '# TYPE sglang:time_per_output_token_seconds histogram',
        'sglang:time_per_output_token_seconds_bucket{le="0.01",model_name="qwen"} 40.0',
        'sglang:time_per_output_token_seconds_bucket{le="0.025",model_name="qwen"} 90.0',
        'sglang:time_per_output_token_seconds_bucket{le="+Inf",model_name="qwen"} 100.0',
        'sglang:time_per_output_token_seconds_sum{model_name="qwen"} 1.7',
        'sglang:time_per_output_token_seconds_count{model_name="qwen"} 100.0',
        '',
      ].join('\n'),
    );
    const mapped = mapFamilies(r.families);
    expect(mapped.engine).toBe('sglang');
    expect(one(mapped, 'tpot_seconds', 'bucket', { model: 'qwen', le: '0.025' })).toBe(90);
    expect(one(mapped, 'tpot_seconds', 'sum', { model: 'qwen' })).toBe(1.7);
    expect(mapped.unmappedFamilies).toBe(0);
  });
  it('NIM (vLLM names without prefix, exponent values)', () => {
    const { mapped } = load('nim/datadog-nvidia_nim-metrics.txt');
    const m = { model: 'meta/llama-3.1-8b-instruct' };
    expect(one(mapped, 'running_requests', 'gauge', m)).toBe(1);
    expect(one(mapped, 'queue_length', 'gauge', m)).toBe(0);
    expect(one(mapped, 'max_running_requests', 'gauge', m)).toBe(64);
    expect(one(mapped, 'kv_cache_usage_ratio', 'gauge', m)).toBe(0.0002848191398461977);
    expect(one(mapped, 'request_success', 'counter', m)).toBe(5);
    expect(one(mapped, 'request_failure', 'counter', m)).toBe(0);
    expect(one(mapped, 'request_finished', 'counter', { ...m, reason: 'length' })).toBe(5);
    expect(one(mapped, 'ttft_seconds', 'sum', m)).toBe(0.6119842529296875);
    expect(one(mapped, 'request_latency_seconds', 'count', m)).toBe(5);
  });
  it('TorchServe (trailing commas, CamelCase host gauges in % and MB)', () => {
    const { mapped } = load('torchserve/datadog-torchserve-openmetrics.txt');
    expect(one(mapped, 'gpu_utilization_ratio', 'gauge')).toBe(0.01); // GPUUtilization 1.0 %
    expect(one(mapped, 'cpu_utilization_ratio', 'gauge')).toBeCloseTo(0.933, 12); // 93.3 %
    expect(one(mapped, 'gpu_memory_used_bytes', 'gauge')).toBe(4 * 1048576);
    expect(one(mapped, 'request_success', 'counter')).toBe(58);
    expect(one(mapped, 'request_failure', 'counter', { reason: 'http_5xx' })).toBe(60);
    expect(one(mapped, 'request_failure', 'counter', { reason: 'http_4xx' })).toBe(59);
    const m = { model: 'linear_regression_1_1', model_version: 'default' };
    expect(one(mapped, 'requests', 'counter', m)).toBe(11);
    expect(one(mapped, 'request_latency_seconds', 'sum', m)).toBeCloseTo(9.136028087, 9);
    expect(one(mapped, 'queue_time_seconds', 'count', m)).toBe(11);
  });
  it('KServe synthetic', () => {
    const { mapped } = load('kserve/synthetic-from-definitions-kserve.txt');
    const m = { model: 'sklearn-iris' };
    expect(pick(mapped, 'inference_time_seconds', 'bucket', m)).toHaveLength(15);
    expect(one(mapped, 'inference_time_seconds', 'bucket', { ...m, le: '0.01' })).toBe(40);
    expect(one(mapped, 'inference_time_seconds', 'sum', m)).toBe(0.6123);
    expect(one(mapped, 'preprocess_time_seconds', 'count', m)).toBe(60);
  });
});

describe('engine detection and configuration', () => {
  it('classifies families by prefix', () => {
    expect(classifyFamily({ name: 'vllm:prompt_tokens_total', type: 'counter' })).toEqual({ engine: 'vllm', name: 'prompt_tokens' });
    expect(classifyFamily({ name: 'ray_vllm:num_requests_running', type: 'gauge' })).toEqual({ engine: 'vllm', name: 'num_requests_running' });
    expect(classifyFamily({ name: 'python_gc_objects_collected_total', type: 'counter' })).toBeUndefined();
  });
  it('DCGM beside an engine does not win detection', () => {
    const r = parseExposition('DCGM_FI_DEV_GPU_UTIL 1\nDCGM_FI_DEV_GPU_TEMP 1\nDCGM_FI_DEV_FB_USED 1\nnv_gpu_utilization 0.5\n');
    expect(detectEngine(r.families)).toBe('triton');
  });
  it('a fixed engine maps only its own table', () => {
    const r = parseExposition('DCGM_FI_DEV_GPU_UTIL 50\nvllm:num_requests_waiting 2\nnum_requests_running 1\n');
    expect(mapFamilies(r.families, 'vllm').samples.map((s) => s.concept)).toEqual(['queue_length', 'running_requests']);
    expect(mapFamilies(r.families, 'dcgm').samples.map((s) => s.concept)).toEqual(['gpu_utilization_ratio']);
    expect(mapFamilies(r.families, 'auto').samples).toHaveLength(3);
  });
  it('NaN summary quantiles are dropped and counted', () => {
    const r = parseExposition('# TYPE nv_inference_queue_summary_us summary\nnv_inference_queue_summary_us{model="m",version="1",quantile="0.5"} NaN\n');
    const m = mapFamilies(r.families);
    expect(m.samples).toEqual([]);
    expect(m.nonFinite).toBe(1);
  });
  it('the concept list has units in every quantity name', () => {
    const names = concepts().map((x) => x.concept);
    expect(names).toContain('queue_length');
    expect(names).toContain('gpu_temperature_celsius');
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});

describe('two scrapes of a capture give rates', () => {
  it('vLLM: request_success and ttft mean over the interval', () => {
    const text = readFileSync(join(ROOT, 'vllm/datadog-vllm-metrics-curated-fixture.txt'), 'utf8');
    const later = text
      .replace(
        'vllm:request_success_total{finished_reason="length",model_name="facebook/opt-125m"} 1.0',
        'vllm:request_success_total{finished_reason="length",model_name="facebook/opt-125m"} 11.0',
      )
      .replace(
        'vllm:time_to_first_token_seconds_count{model_name="facebook/opt-125m"} 1.0',
        'vllm:time_to_first_token_seconds_count{model_name="facebook/opt-125m"} 5.0',
      )
      .replace(
        'vllm:time_to_first_token_seconds_sum{model_name="facebook/opt-125m"} 0.31326723098754883',
        'vllm:time_to_first_token_seconds_sum{model_name="facebook/opt-125m"} 1.11326723098754883',
      );
    const st = createRateState();
    st.apply(mapFamilies(parseExposition(text).families).samples, 0);
    const out = st.apply(mapFamilies(parseExposition(later).families).samples, 5000);
    // 10 more successes in 5 s: 2 per second. 4 more first tokens totalling 0.8 s: mean 0.2 s.
    expect(out.find((s) => s.metric === 'request_success_per_second')!.value).toBe(2);
    expect(out.find((s) => s.metric === 'ttft_seconds_mean')!.value).toBeCloseTo(0.2, 9);
    expect(out.find((s) => s.metric === 'ttft_seconds_count_per_second')!.value).toBeCloseTo(0.8, 9);
  });
});
