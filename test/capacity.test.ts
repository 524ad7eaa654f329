// "Is it capacity?" over HTTP: requests and resources on the same buckets, correlations, headroom.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import type { CapacityReply } from '../src/schema/index.ts';

let server: InferlensServer;
const MIN = 60_000;
const START = Math.floor(Date.now() / MIN) * MIN - 30 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const GiB = 1024 ** 3;

async function post<T>(path: string, body: unknown, ndjson = false): Promise<T> {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    body: ndjson ? (body as unknown[]).map((r) => JSON.stringify(r)).join('\n') : JSON.stringify(body),
  });
  const json = (await res.json()) as { status?: string; data?: T; accepted?: number };
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return (json.data ?? json) as T;
}

beforeAll(async () => {
  server = await startServer(loadConfig({ flags: { server: { port: 0 }, storage: { dataDir: ':memory:' }, alerting: { enabled: false } } }), {
    logger: pino({ level: 'silent' }),
    collectors: false,
  });
  const events: unknown[] = [];
  const resources: unknown[] = [];
  for (let m = 0; m < 20; m++) {
    // Node n1 (model "hot"): GPU utilisation climbs 0.50 → 0.975 and latency with it.
    const util = 0.5 + m * 0.025;
    for (let i = 0; i < 40; i++)
      events.push({
        ts: START + m * MIN + i * 1000,
        model: 'hot',
        node: 'n1',
        replica: 'h1',
        queue_ms: 2 + m * 4 + (i % 3),
        total_ms: 20 + m * 10 + (i % 5),
        status: 'ok',
      });
    resources.push({ ts: START + m * MIN + 30_000, node: 'n1', gpu: '0', pool: 'a100', metric: 'gpu_utilization_ratio', value: util });
    // Host readings of n1 carry the node only, as a node exporter's do.
    resources.push({ ts: START + m * MIN + 30_000, node: 'n1', metric: 'cpu_utilization_ratio', value: 0.3 });
    // GPU memory: gpu 0 peaks at 70 of 80 GiB; gpu 1 at 76 (simulated readings).
    resources.push({
      ts: START + m * MIN + 30_000,
      node: 'n1',
      gpu: '0',
      pool: 'a100',
      metric: 'gpu_memory_used_bytes',
      value: (50 + m) * GiB,
      simulated: true,
    });
    resources.push({ ts: START + m * MIN + 30_000, node: 'n1', gpu: '0', pool: 'a100', metric: 'gpu_memory_total_bytes', value: 80 * GiB, simulated: true });
    resources.push({
      ts: START + m * MIN + 30_000,
      node: 'n1',
      gpu: '1',
      pool: 'a100',
      metric: 'gpu_memory_used_bytes',
      value: (57 + m) * GiB,
      simulated: true,
    });
    resources.push({ ts: START + m * MIN + 30_000, node: 'n1', gpu: '1', pool: 'a100', metric: 'gpu_memory_total_bytes', value: 80 * GiB, simulated: true });
    // Node n2 (model "calm"): busy GPU swinging up and down, latency flat.
    for (let i = 0; i < 40; i++) events.push({ ts: START + m * MIN + i * 1000, model: 'calm', node: 'n2', queue_ms: 3, total_ms: 25 + (i % 5), status: 'ok' });
    resources.push({ ts: START + m * MIN + 30_000, node: 'n2', gpu: '0', metric: 'gpu_utilization_ratio', value: m % 2 ? 0.95 : 0.6 });
  }
  await post('/v1/events', events, true);
  await post('/v1/resources', resources, true);
});
afterAll(() => server.stop());

type Answer = CapacityReply;

describe('POST /v1/analysis/capacity', () => {
  it('ties rising tail latency and queue time to a saturating GPU, with the numbers', async () => {
    const a = await post<Answer>('/v1/analysis/capacity', { from: iso(START), to: iso(START + 20 * MIN), filters: { node: 'n1' }, step: '1m' });
    expect(a.buckets).toHaveLength(20);
    expect(a.verdict).toBe('capacity_bound');
    const p99 = a.correlations.find((c) => c.request === 'p99_total_ms' && c.resource === 'gpu_utilization_ratio')!;
    // Both series rise every minute: ranks agree exactly, ρ = 1 over 20 buckets.
    expect(p99.correlation).toMatchObject({ r: 1, n: 20 });
    expect(p99.strong).toBe(true);
    expect(a.saturated.find((s) => s.resource === 'gpu_utilization_ratio')?.peak).toBeCloseTo(0.975, 9);
    // GPU memory ratio per bucket: the fuller GPU's own used / total (gpu 1: 57 of 80 GiB), not the
    // average of the two (53.5 of 80).
    expect(a.buckets[0]!.resources.gpu_memory_ratio).toBeCloseTo(57 / 80, 9);
  });

  it('reports GPU memory headroom per node, GPU and pool at the window peak, tightest first', async () => {
    const a = await post<Answer>('/v1/analysis/capacity', { from: iso(START), to: iso(START + 20 * MIN), filters: { node: 'n1' } });
    expect(a.headroom).toEqual([
      { node: 'n1', gpu: '1', pool: 'a100', max_used_bytes: 76 * GiB, total_bytes: 80 * GiB, headroom_bytes: 4 * GiB, headroom_ratio: 0.05, simulated: true },
      {
        node: 'n1',
        gpu: '0',
        pool: 'a100',
        max_used_bytes: 69 * GiB,
        total_bytes: 80 * GiB,
        headroom_bytes: 11 * GiB,
        headroom_ratio: 11 / 80,
        simulated: true,
      },
    ]);
  });

  it('says not capacity when latency stays flat while the GPU swings', async () => {
    const a = await post<Answer>('/v1/analysis/capacity', { from: iso(START), to: iso(START + 20 * MIN), filters: { node: 'n2' } });
    expect(a.verdict).toBe('not_capacity');
    expect(a.correlations.find((c) => c.request === 'p99_total_ms' && c.resource === 'gpu_utilization_ratio')!.strong).toBe(false);
  });

  it('without a filter, reads each GPU on its own: one near its memory limit is named', async () => {
    // Unfiltered, the old average over every GPU put memory at (76 + 69)/2 / 80 = 90.6 % at the
    // window's end and utilisation (0.975 + 0.95)/2; per GPU, n1's gpu 1 peaks at 76/80 = 95 %.
    const a = await post<Answer & { nodes: string[] | null }>('/v1/analysis/capacity', { from: iso(START), to: iso(START + 20 * MIN) });
    expect(a.nodes).toBeNull();
    expect(a.saturated.find((s) => s.resource === 'gpu_memory_ratio')).toEqual({ resource: 'gpu_memory_ratio', peak: 0.95, level: 0.9, node: 'n1', gpu: '1' });
    expect(a.reasons.join(' ')).not.toMatch(/no resource near saturation/);
    expect(a.reasons.join(' ')).toMatch(/gpu_memory_ratio (peaks at )?95\.0 % on node n1 GPU 1/);
  });

  it('a replica filter reads the resources of the node its requests ran on', async () => {
    const a = await post<Answer & { nodes: string[] | null }>('/v1/analysis/capacity', {
      from: iso(START),
      to: iso(START + 20 * MIN),
      filters: { replica: 'h1' },
    });
    expect(a.nodes).toEqual(['n1']);
    expect(a.buckets.every((b) => b.resources.cpu_utilization_ratio === 0.3)).toBe(true);
    expect(a.verdict).toBe('capacity_bound');
  });

  it('needs data on both sides', async () => {
    const a = await post<Answer>('/v1/analysis/capacity', { from: iso(START), to: iso(START + 20 * MIN), filters: { node: 'nowhere' } });
    expect(a.verdict).toBe('not_enough_data');
  });
});
