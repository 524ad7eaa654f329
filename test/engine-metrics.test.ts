// Engine metrics as first-class data, through a real server: real vLLM and SGLang captures served as
// live /metrics endpoints (capture-replay.ts), scraped three times, then read back by their own
// labels, as bucket-interpolated quantiles, on the targets page, and on /metrics — which Debian's
// `promtool check metrics` must find clean.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import type { ScrapeTargetInput } from '../src/ingest/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { startReplayServer } from './capture-replay.ts';
import type { ReplayServer } from './capture-replay.ts';

const PROMTOOL = '/usr/bin/promtool';
let server: InferlensServer;
let engines: ReplayServer;
const T0 = Date.now();
/** The server's clock: scrapes 15 s apart, so every rate below is exact. */
let clock = T0;

async function read<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(
    server.url + path,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const json = (await res.json()) as { status: string; data: T; error?: string };
  expect(res.status, json.error).toBe(200);
  return json.data;
}
const window = () => ({ from: new Date(T0 - 3_600_000).toISOString(), to: new Date(T0 + 3_600_000).toISOString(), step: '2h' });

beforeAll(async () => {
  engines = await startReplayServer({ vllm: 'vllm/datadog-vllm-metrics-curated-fixture.txt', sglang: 'sglang/datadog-sglang-metrics.txt' });
  // A target that answers 404: down, with the reason.
  engines.urls.nothing = engines.urls.vllm!.replace(/vllm$/, 'nothing');
  const targets: ScrapeTargetInput[] = [
    { url: engines.urls.vllm!, labels: { node: 'gpu-1', replica: 'vllm-0' }, intervalMs: 3_600_000 },
    { url: engines.urls.sglang!, labels: { node: 'gpu-2', replica: 'sglang-0' }, intervalMs: 3_600_000 },
    { url: engines.urls.nothing!, labels: { node: 'gpu-3' }, intervalMs: 3_600_000 },
  ];
  server = await startServer(loadConfig({ flags: { server: { port: 0 }, storage: { dataDir: ':memory:' }, scrape: { targets } } }), {
    logger: pino({ level: 'silent' }),
    ui: false,
    now: () => clock,
  });
  // The loops scrape once at start (the first scrapeOnce joins that run); two more on demand give
  // three scrapes: two intervals.
  for (let i = 0; i < 3; i++) {
    await server.scraper!.scrapeOnce();
    clock += 15_000;
  }
  // One event without a model version (its /metrics series must not carry model_version="").
  await fetch(`${server.url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: JSON.stringify({ ts: clock, model: 'unversioned', total_ms: 12, status: 'ok' }),
  });
});

afterAll(async () => {
  await server.stop();
  await engines.close();
});

describe('scraped engine metrics', () => {
  it('GET /v1/scrape/targets: health, last scrape, error, mapped and unmapped families per target', async () => {
    expect(engines.served.vllm).toBe(3);
    const { targets } = await read<{ targets: Record<string, unknown>[] }>('/v1/scrape/targets');
    expect(targets.map((t) => [t.url, t.health, t.engine, t.scrapes, t.failures, t.mapped_families, t.unmapped_families])).toEqual([
      [engines.urls.vllm, 'up', 'vllm', 3, 0, 22, 28],
      [engines.urls.sglang, 'up', 'sglang', 3, 0, 14, 11],
      [engines.urls.nothing, 'down', null, 3, 3, 0, 0],
    ]);
    const [vllm, , down] = targets as {
      unmapped_names: string[];
      last_error: { reason: string; message: string } | null;
      labels: Record<string, string>;
      last_scrape: string;
      parse_warnings: { total: number };
    }[];
    expect(vllm!.unmapped_names).toContain('vllm:cpu_cache_usage_perc');
    expect(vllm!.unmapped_names).toContain('python_gc_objects_collected_total');
    expect(vllm!.labels).toEqual({ node: 'gpu-1', replica: 'vllm-0' });
    expect(vllm!.parse_warnings.total).toBe(0);
    expect(Date.parse(vllm!.last_scrape)).toBe(T0 + 30_000);
    expect(down!.last_error).toEqual({ at: expect.any(String), reason: 'http_status', message: 'HTTP 404 Not Found' });
  });

  it('resource samples are read by their own labels: engine concepts per engine and model', async () => {
    const data = await read<{ rows: { metric: string; node: string; labels: Record<string, string | null>; avg: number; sum: number; n: number }[] }>(
      '/v1/resources/query',
      {
        ...window(),
        metrics: ['kv_cache_usage_ratio', 'prefix_cache_hit_ratio', 'generation_tokens_per_second'],
        filters: { labels: { model: 'facebook/opt-125m' } },
        group_by: ['node', 'labels.engine'],
      },
    );
    const by = (metric: string, engine: string) => data.rows.find((r) => r.metric === metric && r.labels.engine === engine);
    // Gauges as captured, three scrapes each: SGLang's token_usage 0.25, cache_hit_rate 0.2.
    expect(by('kv_cache_usage_ratio', 'sglang')).toMatchObject({ node: 'gpu-2', avg: 0.25, n: 3 });
    expect(by('prefix_cache_hit_ratio', 'sglang')).toMatchObject({ n: 3 });
    expect(by('prefix_cache_hit_ratio', 'sglang')!.avg).toBeCloseTo(0.2, 12);
    // vLLM's fixture has both KV-cache gauges: one series, from kv_cache_usage_perc.
    expect(by('kv_cache_usage_ratio', 'vllm')).toMatchObject({ node: 'gpu-1', avg: 0, n: 3 });
    // Counters become rates over the two 15 s intervals: each added the capture's totals once
    // (vLLM 7 generated tokens, SGLang 32): 7 / 15 and 32 / 15 tokens per second.
    const gen = (engine: string) => by('generation_tokens_per_second', engine)!;
    expect(gen('vllm').n).toBe(2);
    expect(gen('vllm').avg).toBeCloseTo(7 / 15, 12);
    expect(gen('sglang').avg).toBeCloseTo(32 / 15, 12);
  });

  it('POST /v1/resources/quantiles: histogram quantiles, marked as bucket-interpolated, with the bounds', async () => {
    const q = await read<{
      method: string;
      bounds: number[];
      rows: { labels: Record<string, string>; count: number; values: Record<string, number | null> }[];
    }>('/v1/resources/quantiles', {
      ...window(),
      metric: 'ttft_seconds',
      quantiles: [0.5, 0.99],
      group_by: ['labels.engine'],
    });
    expect(q.method).toBe('bucket_interpolated');
    expect(q.bounds).toEqual([0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);
    const row = (engine: string) => q.rows.find((r) => r.labels.engine === engine)!;
    // vLLM: one first token per interval, in (0.25, 0.5]; two intervals → 2 observations:
    // P50 = 0.25 + 0.25 × (1 / 2) = 0.375, P99 = 0.25 + 0.25 × (1.98 / 2) = 0.4975.
    expect(row('vllm').count).toBe(2);
    expect(row('vllm').values['0.5']).toBeCloseTo(0.375, 12);
    expect(row('vllm').values['0.99']).toBeCloseTo(0.4975, 12);
    // SGLang's capture was shortened to le 0.1 and +Inf: P50 = 0.1 × (1 / 2) = 0.05.
    expect(row('sglang').values['0.5']).toBeCloseTo(0.05, 12);
    // le is what a quantile is over: it cannot be a group
    const bad = await fetch(`${server.url}/v1/resources/quantiles`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...window(), metric: 'ttft_seconds', group_by: ['labels.le'] }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/group_by\.0: le is what the quantile is computed over/);
  });

  it.skipIf(!existsSync(PROMTOOL))('/metrics follows the Prometheus conventions: promtool check metrics is clean', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
    // Standard process metric names (no doubled prefix), absent labels left out.
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).not.toMatch(/inferlens_process_/);
    expect(text).not.toMatch(/=""/);
    expect(text).toMatch(/^inferlens_model_requests_total\{model="unversioned",status="ok"\} 1$/m);
    // Scrape results: counters are counters, the unmapped families a gauge.
    expect(text).toMatch(/^# TYPE inferlens_scrape_failures_total counter$/m);
    expect(text).toMatch(new RegExp(`^inferlens_scrape_unmapped_families\\{target="${engines.urls.vllm}"\\} 28$`, 'm'));
    expect(text).toMatch(new RegExp(`^inferlens_scrape_parse_warnings_total\\{target="${engines.urls.sglang}"\\} 0$`, 'm'));
    expect(text).toMatch(new RegExp(`^inferlens_scrape_failures_total\\{target="${engines.urls.nothing}"\\} 3$`, 'm'));
    expect(execFileSync(PROMTOOL, ['--version'], { encoding: 'utf8' })).toMatch(/promtool/);
  });
});
